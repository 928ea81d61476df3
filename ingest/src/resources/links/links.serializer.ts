import type { Db } from '../../db/database.js';
import type { LinkRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import { type PartnerProgramExpand, presentWithPartnerAndProgram } from '../expand-partner-program.js';
import type { LinkObject } from './links.schema.js';

export function toLink(l: LinkRow): LinkObject {
  return {
    id: l.id,
    param: l.param,
    value: l.value,
    partner_id: l.partner_id,
    program_id: l.program_id,
    organization_id: l.organization_id,
    created_at: toIso(l.created_at),
    updated_at: toIso(l.updated_at),
  };
}

/** Links as the API shows them, with the requested expansions (each loaded once for the page). */
export function presentLinks(db: Db, links: LinkRow[], expand?: PartnerProgramExpand[]): Promise<LinkObject[]> {
  return presentWithPartnerAndProgram(db, links, expand, toLink);
}

export async function presentLink(db: Db, link: LinkRow, expand?: PartnerProgramExpand[]): Promise<LinkObject> {
  return (await presentLinks(db, [link], expand))[0];
}
