import type { Db } from '../../db/database.js';
import type { PartnerRow, ProgramRow } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import { validate } from '../../http/validation.js';
import { PartnerUpdate } from '../partners/partners.schema.js';
import { updatePartner } from '../partners/partners.service.js';

/**
 * What a partner may change about themselves in the portal's settings
 * (ingest/docs/partner-portal.md): their name, country, how they are paid and the three e-mail
 * switches. Never their status, e-mail, group or the program's notes: those are the program's. It
 * goes through `updatePartner`, so the API's rules hold (payout details as each method takes them;
 * a new method without details starts empty).
 */
export const PortalSettings = PartnerUpdate.pick({
  first_name: true,
  last_name: true,
  country_code: true,
  payout_method: true,
  payout_details: true,
  first_customer_email_active: true,
  new_customer_email_active: true,
  payout_paid_email_active: true,
});

/** The methods a partner of the program may choose: the program's, "none", and the one they have (kept even if the program dropped it). */
export function portalPayoutMethods(program: Pick<ProgramRow, 'payout_methods'>, partner?: Pick<PartnerRow, 'payout_method'>): string[] {
  const methods = [...(program.payout_methods as string[]), 'none', ...(partner ? [partner.payout_method] : [])];
  return [...new Set(methods)];
}

/** Saves the partner's own settings; 400 (with the field as `param`) for anything the API or the program refuses. */
export async function updatePortalSettings(db: Db, program: ProgramRow, partner: PartnerRow, fields: unknown): Promise<PartnerRow> {
  const input = validate(PortalSettings, fields, 'body');
  if (input.payout_method !== undefined && !portalPayoutMethods(program, partner).includes(input.payout_method)) {
    throw new ApiError('invalid_request_error', 'This program does not pay by that method.', { param: 'payout_method' });
  }
  return updatePartner(db, program.organization_id, partner.id, input);
}
