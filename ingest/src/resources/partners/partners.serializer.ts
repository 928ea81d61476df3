import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { GroupRow, PartnerRow, ProgramRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import { toExpandedGroup } from '../groups/groups.serializer.js';
import { toExpandedProgram, toExpandedProgramWithTerms } from '../programs/programs.serializer.js';
import { loadPartnerStats } from './partner-stats.js';
import type { ExpandedPartner, PartnerObject, PartnerStatsObject } from './partners.schema.js';

export type PartnerExpand = 'group' | 'program';

export interface PartnerExpansions {
  group?: GroupRow;
  program?: ProgramRow;
  /** The partner list's program expansion carries the program's terms as well. */
  programWithTerms?: boolean;
  stats?: PartnerStatsObject;
}

export function toPartner(p: PartnerRow, x: PartnerExpansions = {}): PartnerObject {
  return {
    id: p.id,
    status: p.status as PartnerObject['status'],
    first_name: p.first_name,
    last_name: p.last_name,
    email: p.email,
    company_name: p.company_name,
    program_id: p.program_id,
    organization_id: p.organization_id,
    group_id: p.group_id,
    payout_method: p.payout_method as PartnerObject['payout_method'],
    payout_details: p.payout_details,
    country_code: p.country_code,
    completed_onboarding: p.completed_onboarding,
    rejection_note: p.rejection_note,
    internal_note: p.internal_note,
    suspension_reason: p.suspension_reason,
    first_customer_email_active: p.first_customer_email_active,
    new_customer_email_active: p.new_customer_email_active,
    payout_paid_email_active: p.payout_paid_email_active,
    created_at: toIso(p.created_at),
    updated_at: toIso(p.updated_at),
    ...(x.group ? { group: toExpandedGroup(x.group) } : {}),
    ...(x.program ? { program: x.programWithTerms ? toExpandedProgramWithTerms(x.program) : toExpandedProgram(x.program) } : {}),
    ...(x.stats ? { stats: x.stats } : {}),
  };
}

export function toExpandedPartner(p: PartnerRow): z.output<typeof ExpandedPartner> {
  return {
    id: p.id,
    first_name: p.first_name,
    last_name: p.last_name,
    email: p.email,
    company_name: p.company_name,
    status: p.status as PartnerObject['status'],
    created_at: toIso(p.created_at),
  };
}

/** Serialises a page of partners with the requested expansions and stats, loading each related table once. */
export async function presentPartners(
  db: Db,
  rows: PartnerRow[],
  expand: PartnerExpand[] = [],
  opts: { programWithTerms?: boolean; include?: 'stats'[] } = {},
): Promise<PartnerObject[]> {
  const ids = rows.map((r) => r.id);
  const [groups, programs, stats] = await Promise.all([
    expand.includes('group')
      ? loadByIds(
          db,
          'groups',
          rows.map((r) => r.group_id),
        )
      : null,
    expand.includes('program')
      ? loadByIds(
          db,
          'programs',
          rows.map((r) => r.program_id),
        )
      : null,
    opts.include?.includes('stats') ? loadPartnerStats(db, ids) : null,
  ]);
  return rows.map((r) => {
    const x: PartnerExpansions = { programWithTerms: opts.programWithTerms };
    if (groups) x.group = groups.get(r.group_id);
    if (programs) x.program = programs.get(r.program_id);
    if (stats) x.stats = stats.get(r.id);
    return toPartner(r, x);
  });
}
