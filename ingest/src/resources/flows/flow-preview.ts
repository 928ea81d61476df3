import { z } from 'zod';
import type { Db } from '../../db/database.js';
import { centsField, currencyCode, idField } from '../../http/fields.js';
import { planEarnings } from '../commissions/award.js';
import type { PlannedCommission } from '../commissions/engine.js';
import { requireGroup } from '../groups/groups.service.js';
import { loadPartnerStats } from '../partners/partner-stats.js';
import { requireProgramPartner } from '../partners/partners.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { BILLING_TYPES, INTERVALS } from '../transactions/transactions.schema.js';
import { activeFlows } from './flows.repository.js';

/**
 * A dry run of the program's payment flows: what a payment would earn, planned by the very
 * function every recorded payment is planned with (`planEarnings` in commissions/award.ts), on
 * facts the caller describes instead of a customer's. Nothing is written.
 */

export const FlowPreviewInput = z
  .strictObject({
    amount: centsField.meta({ description: 'The payment, in cents' }),
    currency: currencyCode.optional().meta({ description: "Default: the program's currency" }),
    partner_id: idField.optional().meta({ description: 'A partner of the program: their group, country, status and customers' }),
    group_id: idField.optional().meta({ description: "A partner of this group (default: the program's default group)" }),
    product_id: z.string().trim().min(1).max(255).optional(),
    billing_type: z.enum(BILLING_TYPES).optional(),
    interval: z.enum(INTERVALS).optional(),
    payment_number: z.number().int().min(1).max(1_000_000).optional().meta({ description: "The customer's nth payment (default 1)" }),
    days_since_signup: z
      .number()
      .int()
      .min(0)
      .max(36_500)
      .optional()
      .meta({ description: 'Days since the customer became a lead (default 0)' }),
  })
  .refine((p) => !(p.partner_id && p.group_id), { message: 'give partner_id or group_id, not both', path: ['group_id'] })
  .refine((p) => !p.interval || p.billing_type === 'subscription', {
    message: 'only a subscription has an interval (set billing_type to subscription)',
    path: ['interval'],
  })
  .meta({ id: 'FlowPreviewInput' });
export type FlowPreviewInputValue = z.output<typeof FlowPreviewInput>;

export interface FlowPreview {
  /** One line per flow that would pay, in the order the engine runs them. */
  commissions: PlannedCommission[];
  total: number;
  currency: string;
  /** The partner asked about, and whether their status lets them earn. */
  partner: { id: string; status: string; earns: boolean } | null;
  group_id: string;
  /** The facts the flows were run on. */
  facts: { payment_number: number; days_since_signup: number; partner_customers: number; country_code: string | null };
}

const DAY_MS = 86_400_000;

export async function previewPayment(
  db: Db,
  organizationId: string,
  programId: string,
  input: FlowPreviewInputValue,
): Promise<FlowPreview> {
  const program = await requireProgram(db, organizationId, programId);
  let partner: { status: string; deleted: boolean; group_id: string; country_code: string | null };
  let partnerCustomers = 1;
  let asked: FlowPreview['partner'] = null;
  if (input.partner_id) {
    const row = await requireProgramPartner(db, organizationId, program.id, input.partner_id);
    partner = { status: row.status, deleted: false, group_id: row.group_id, country_code: row.country_code };
    // Counted as a real payment counts them, before its customer turns active: a first payment's
    // customer is still a lead then; a later payment's is one of them already.
    const customers = (await loadPartnerStats(db, [row.id])).get(row.id)?.total_customers ?? 0;
    partnerCustomers = (input.payment_number ?? 1) > 1 ? Math.max(1, customers) : customers;
    asked = { id: row.id, status: row.status, earns: row.status === 'active' };
  } else {
    const groupId = input.group_id
      ? (await requireGroup(db, organizationId, input.group_id, { programId: program.id, param: 'group_id' })).id
      : program.default_group_id;
    partner = { status: 'active', deleted: false, group_id: groupId, country_code: null };
  }
  const paymentNumber = input.payment_number ?? 1;
  const daysSinceSignup = input.days_since_signup ?? 0;
  const at = new Date();
  const flows = await activeFlows(db, program.id, 'payment');
  const commissions = planEarnings(
    flows,
    { partner, lead_at: new Date(at.getTime() - daysSinceSignup * DAY_MS) },
    { transactionCount: paymentNumber - 1, partnerCustomers },
    {
      trigger: 'payment',
      at,
      transaction: {
        amount: input.amount,
        currency: input.currency ?? program.currency_code,
        billing_type: input.billing_type ?? 'one_time',
        interval: input.interval ?? null,
        product_id: input.product_id ?? null,
        product_name: null,
        source: null,
      },
    },
  );
  return {
    commissions,
    total: commissions.reduce((sum, c) => sum + c.amount, 0),
    currency: input.currency ?? program.currency_code,
    partner: asked,
    group_id: partner.group_id,
    facts: {
      payment_number: paymentNumber,
      days_since_signup: daysSinceSignup,
      partner_customers: partnerCustomers,
      country_code: partner.country_code,
    },
  };
}
