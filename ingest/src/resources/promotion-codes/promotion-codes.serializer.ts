import type { Db } from '../../db/database.js';
import type { PromotionCodeRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import { type PartnerProgramExpand, presentWithPartnerAndProgram } from '../expand-partner-program.js';
import type { PromotionCodeObject } from './promotion-codes.schema.js';

export function toPromotionCode(c: PromotionCodeRow): PromotionCodeObject {
  return {
    id: c.id,
    code: c.code,
    type: c.type as PromotionCodeObject['type'],
    value: c.value,
    entity_type: c.partner_id ? 'partner' : c.group_id ? 'group' : 'program',
    partner_id: c.partner_id,
    group_id: c.group_id,
    active: c.active,
    program_id: c.program_id,
    organization_id: c.organization_id,
    created_at: toIso(c.created_at),
    updated_at: toIso(c.updated_at),
  };
}

/** Codes as the API shows them, with the requested expansions (each loaded once for the page). */
export function presentPromotionCodes(db: Db, codes: PromotionCodeRow[], expand?: PartnerProgramExpand[]): Promise<PromotionCodeObject[]> {
  return presentWithPartnerAndProgram(db, codes, expand, toPromotionCode);
}

export async function presentPromotionCode(db: Db, code: PromotionCodeRow, expand?: PartnerProgramExpand[]): Promise<PromotionCodeObject> {
  return (await presentPromotionCodes(db, [code], expand))[0];
}
