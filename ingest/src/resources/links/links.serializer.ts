import type { LinkRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
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
