import type { z } from 'zod';
import type { Db } from '../db/database.js';
import { loadByIds } from '../db/load-by-ids.js';
import type { ExpandedPartner } from './partners/partners.schema.js';
import { toExpandedPartner } from './partners/partners.serializer.js';
import type { ExpandedProgram } from './programs/programs.schema.js';
import { toExpandedProgram } from './programs/programs.serializer.js';

export type PartnerProgramExpand = 'partner' | 'program';

type Expanded<T> = T & { partner?: z.output<typeof ExpandedPartner>; program?: z.output<typeof ExpandedProgram> };

/**
 * Serialises a page of rows that point at a partner and a program, adding the requested expansions
 * (the Partnership Program API's expanded partner and program objects), each loaded once per page.
 */
export async function presentWithPartnerAndProgram<R extends { partner_id: string | null; program_id: string }, T>(
  db: Db,
  rows: R[],
  expand: PartnerProgramExpand[] | undefined,
  serialize: (row: R) => T,
): Promise<Expanded<T>[]> {
  const partnerIds = rows.flatMap((r) => (r.partner_id ? [r.partner_id] : []));
  const partners = expand?.includes('partner') ? await loadByIds(db, 'partners', partnerIds) : null;
  const programs = expand?.includes('program')
    ? await loadByIds(
        db,
        'programs',
        rows.map((r) => r.program_id),
      )
    : null;
  return rows.map((r) => {
    const partner = r.partner_id ? partners?.get(r.partner_id) : undefined;
    const program = programs?.get(r.program_id);
    return {
      ...serialize(r),
      ...(partner ? { partner: toExpandedPartner(partner) } : {}),
      ...(program ? { program: toExpandedProgram(program) } : {}),
    };
  });
}
