import { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { LinkRow, PartnerRow, ProgramRow } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import { countryCode, emailField, optionalText, payoutMethod, shortText } from '../../http/fields.js';
import { validate } from '../../http/validation.js';
import { queueEmail } from '../../mail/outbox.js';
import type { SharedStore } from '../../store/index.js';
import { createLink } from '../links/links.service.js';
import { applicationEmail } from '../partners/partner-emails.js';
import { findPartnerByEmail } from '../partners/partners.repository.js';
import { createPartner } from '../partners/partners.service.js';
import { portalUrl, queueSignInLink } from './partner-access.service.js';
import { portalPayoutMethods } from './portal-settings.js';

/**
 * A partner's own sign-up in the portal of a public program (ingest/docs/partner-portal.md; the
 * portal refuses it for a private one, which takes partners by invitation). It goes through
 * `createPartner`, so the API's rules hold (one e-mail per program, compared case-insensitively);
 * the program's `auto_approve_partners` picks active or pending.
 */
export const PortalSignUp = z.strictObject({
  first_name: shortText(100),
  last_name: shortText(100),
  email: emailField,
  country_code: countryCode,
  company_name: optionalText(200).optional(),
  payout_method: payoutMethod,
  accept_terms: z.literal('on').optional(),
});
export type PortalSignUpInput = z.output<typeof PortalSignUp>;

export type SignUpOutcome = 'applied' | 'approved' | 'already-a-partner';

export async function signUpPartner(
  db: Db,
  store: SharedStore,
  program: ProgramRow,
  fields: Record<string, unknown>,
  publicUrl: string,
): Promise<SignUpOutcome> {
  const input = validate(PortalSignUp, fields, 'body');
  if (!portalPayoutMethods(program).includes(input.payout_method)) {
    throw new ApiError('invalid_request_error', 'This program does not pay by that method.', { param: 'payout_method' });
  }
  if (program.partner_terms && input.accept_terms !== 'on') {
    throw new ApiError('invalid_request_error', "Accept the program's terms to join.", { param: 'accept_terms' });
  }
  // Someone who is a partner already gets a sign-in link instead, and the form answers as for
  // anyone: it must not tell who is a partner of the program.
  const existing = await findPartnerByEmail(db, program.id, input.email);
  if (existing) {
    await queueSignInLink(db, existing, program, publicUrl, 'already-a-partner');
    return 'already-a-partner';
  }
  const { accept_terms: _accepted, ...partnerFields } = input;
  const partner = await createPartner(
    db,
    program.organization_id,
    {
      ...partnerFields,
      program_id: program.id,
      status: program.auto_approve_partners ? 'active' : 'pending',
      completed_onboarding: true,
    },
    () => undefined,
  );
  const link = await createDefaultLink(db, store, program, partner);
  await queueEmail(db, applicationEmail(partner, program, portalUrl(publicUrl, program), link));
  return partner.status === 'active' ? 'approved' : 'applied';
}

/** A link value from a partner's first name: "Zoë" → "zoe" (a-z and 0-9 only), "partner" when nothing is left. */
export function linkValueFrom(firstName: string): string {
  return (
    firstName
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '')
      .slice(0, 40) || 'partner'
  );
}

/**
 * The partner's first link: their first name as the value of the program's first parameter,
 * numbered when taken (`alice2`); undefined when the first fifty are all taken.
 */
export async function createDefaultLink(
  db: Db,
  store: SharedStore,
  program: ProgramRow,
  partner: PartnerRow,
): Promise<LinkRow | undefined> {
  const base = linkValueFrom(partner.first_name);
  for (let n = 1; n <= 50; n++) {
    try {
      return await createLink(db, store, program.organization_id, {
        param: program.url_params[0],
        value: n === 1 ? base : `${base}${n}`,
        partner_id: partner.id,
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    }
  }
  return undefined;
}
