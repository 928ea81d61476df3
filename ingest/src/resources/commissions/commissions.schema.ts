import { z } from 'zod';
import { centsField, externalId, idField, isoString, optionalText, storedTimestampField } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedCustomer } from '../customers/customers.schema.js';
import { ExpandedPartner } from '../partners/partners.schema.js';
import { ExpandedProgram } from '../programs/programs.schema.js';
import { ExpandedTransaction } from '../transactions/transactions.schema.js';

export const COMMISSION_STATUSES = ['pending', 'approved', 'paid', 'rejected', 'refunded'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];
export const APPROVAL_TYPES = ['immediate', 'scheduled', 'manual'] as const;

const editableFields = {
  amount: centsField,
  transaction_id: idField.nullable().meta({ description: 'A transaction of the same program (and of the customer, when there is one)' }),
  charge_id: externalId.nullable().meta({ description: "Default: the transaction's charge_id" }),
  source: z.string().trim().min(1).max(255).nullable(),
  status: z.enum(COMMISSION_STATUSES).meta({ description: 'Default pending. Moving to paid assigns a payout_id; leaving paid clears it.' }),
  revenue: centsField.nullable(),
  created_at: storedTimestampField,
  rejection_reason: optionalText(2000).meta({
    description:
      'Why the commission is rejected, shown to the partner. Only with status rejected (given with it, or on a commission already rejected); null or empty clears it; leaving rejected clears it.',
  }),
};

export const CommissionCreate = z
  .strictObject({
    ...editableFields,
    customer_id: idField
      .nullable()
      .meta({ description: 'Omit or null for a commission without a customer (then program_id and partner_id are required)' }),
    program_id: idField,
    partner_id: idField,
  })
  .partial()
  .required({ amount: true })
  .meta({ id: 'CommissionCreate' });
export type CommissionCreateInput = z.output<typeof CommissionCreate>;

export const CommissionUpdate = z.strictObject(editableFields).partial().meta({ id: 'CommissionUpdate' });
export type CommissionUpdateInput = z.output<typeof CommissionUpdate>;

const expandParam = multiValue(['partner', 'program', 'customer', 'transaction']);
export type CommissionExpand = 'partner' | 'program' | 'customer' | 'transaction';

export const CommissionListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
  customer_id: idField.optional(),
  transaction_id: idField.optional(),
  status: z.enum(COMMISSION_STATUSES).optional(),
  expand: expandParam.optional(),
});
export type CommissionListQueryInput = z.output<typeof CommissionListQuery>;
export const CommissionRetrieveQuery = z.strictObject({ expand: expandParam.optional() });

const expansions = {
  partner: ExpandedPartner.optional(),
  program: ExpandedProgram.optional(),
  customer: ExpandedCustomer.optional(),
  transaction: ExpandedTransaction.optional(),
};

const rejectionReason = z
  .string()
  .nullable()
  .meta({ description: 'Why the merchant rejected the commission, shown to the partner; null unless status is rejected' });

/** The commission as list and retrieve show it: the spec's short field set, and the rejection reason. */
export const Commission = z
  .object({
    id: z.string(),
    amount: z.number().int(),
    customer_id: z.string().nullable(),
    transaction_id: z.string().nullable(),
    charge_id: z.string().nullable(),
    source: z.string().nullable(),
    status: z.enum(COMMISSION_STATUSES),
    rejection_reason: rejectionReason,
    revenue: z.number().int().nullable(),
    created_at: isoString,
    updated_at: isoString,
    program_id: z.string(),
    organization_id: z.string(),
    ...expansions,
  })
  .meta({ id: 'Commission' });
export type CommissionObject = z.output<typeof Commission>;

const centsString = z
  .string()
  .regex(/^-?\d+$/)
  .meta({ description: 'Cents, as a string', example: '980' });

/** The commission as create and update show it: every field, amount and revenue as strings. */
export const FullCommission = z
  .object({
    id: z.string(),
    amount: centsString,
    revenue: centsString.nullable(),
    customer_id: z.string().nullable(),
    transaction_id: z.string().nullable(),
    charge_id: z.string().nullable(),
    charge_status: z.string().nullable(),
    source: z.string().nullable(),
    status: z.enum(COMMISSION_STATUSES),
    rejection_reason: rejectionReason,
    type: z.string().nullable().meta({ description: 'reward, or refund for an entry offsetting a refunded payment' }),
    currency: z.string().nullable(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    payout_id: z.string().nullable(),
    scheduled_approval_date: isoString.nullable(),
    approval_type: z.enum(APPROVAL_TYPES),
    flow_id: z.string().nullable(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'FullCommission' });
export type FullCommissionObject = z.output<typeof FullCommission>;

/** The OpenAPI descriptions of the commission operations. */
export const commissionDocs = {
  create:
    'For a customer (`customer_id`: its partner and program are used), or without one (`program_id` and `partner_id` are then required). Any status may be given (default pending); `paid` assigns a `payout_id`; `rejection_reason` only with `rejected` (400 otherwise). The response shows every field, with `amount` and `revenue` as strings.',
  list: 'Shows the short field set of the spec, with `rejection_reason`. Refund entries (negative amounts) are commissions too.',
  retrieve: 'Shows the short field set of the spec, with `rejection_reason`.',
  update:
    "Moving to `paid` assigns a `payout_id`; leaving `paid` clears it. `rejection_reason` (shown to the partner) only on a commission rejected by this request or already rejected (400 otherwise); leaving `rejected` clears it. A reward's unpaid refund entries leave the totals with it (rejected, refunded) and come back with it. A refund entry's `amount` and `transaction_id`, and a flow commission's `transaction_id`, cannot change (400). The response shows every field, with `amount` and `revenue` as strings.",
  delete: "Soft delete: hidden from the API and from partner and customer totals, with the reward's refund entries that are not paid.",
} as const;
