import type { ClickRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import type { ClickObject } from './clicks.schema.js';

export function toClick(c: ClickRow): ClickObject {
  return {
    id: c.id,
    partner_id: c.partner_id,
    link_id: c.link_id,
    country: c.country,
    state: c.state,
    device: c.device as ClickObject['device'],
    page: c.page,
    browser: c.browser,
    referrer: c.referrer,
    program_id: c.program_id,
    organization_id: c.organization_id,
    created_at: toIso(c.created_at),
    updated_at: toIso(c.updated_at),
  };
}
