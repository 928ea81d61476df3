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

/**
 * What `include[]` may add to a commission (ingest/docs/api.md#field-sets). The field sets of the
 * Partnership Program API (README.md#the-api-specification) are exact ("show only"), so a column
 * they do not name is shown only when asked for, as
 * partners show their stats (`include[]=stats`).
 */
export const COMMISSION_INCLUDES = ['rejection_reason'] as const;
export type CommissionInclude = (typeof COMMISSION_INCLUDES)[number];
/** `include[]` of every list or operation that answers commissions (a payout's commissions too). */
export const commissionIncludeParam = multiValue(COMMISSION_INCLUDES);

export const CommissionListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
  customer_id: idField.optional(),
  transaction_id: idField.optional(),
  status: z.enum(COMMISSION_STATUSES).optional(),
  expand: expandParam.optional(),
  include: commissionIncludeParam.optional(),
});
export type CommissionListQueryInput = z.output<typeof CommissionListQuery>;
export const CommissionRetrieveQuery = z.strictObject({ expand: expandParam.optional(), include: commissionIncludeParam.optional() });
/** Create and update take no parameter in their query but `include[]`. */
export const CommissionWriteQuery = z.strictObject({ include: commissionIncludeParam.optional() });

const expansions = {
  partner: ExpandedPartner.optional(),
  program: ExpandedProgram.optional(),
  customer: ExpandedCustomer.optional(),
  transaction: ExpandedTransaction.optional(),
};

/** Beyond the Partnership Program API's field sets: present only when `include[]=rejection_reason` asks for it. */
const rejectionReason = z.string().nullable().optional().meta({
  description:
    'Only with `include[]=rejection_reason`: why the merchant rejected the commission, shown to the partner; null unless status is rejected',
});

/** The commission as list and retrieve show it: only the Partnership Program API's short field set (and what expand and include add). */
export const Commission = z
  .object({
    id: z.string(),
    amount: z.number().int(),
    customer_id: z.string().nullable(),
    transaction_id: z.string().nullable(),
    charge_id: z.string().nullable(),
    source: z.string().nullable(),
    status: z.enum(COMMISSION_STATUSES),
    revenue: z.number().int().nullable(),
    created_at: isoString,
    updated_at: isoString,
    program_id: z.string(),
    organization_id: z.string(),
    ...expansions,
    rejection_reason: rejectionReason,
  })
  .meta({ id: 'Commission' });
export type CommissionObject = z.output<typeof Commission>;

const centsString = z
  .string()
  .regex(/^-?\d+$/)
  .meta({ description: 'Cents, as a string', example: '980' });

/**
 * The commission as create and update show it: the Partnership Program API's full field set, amount
 * and revenue as strings (and what include adds).
 */
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
    rejection_reason: rejectionReason,
  })
  .meta({ id: 'FullCommission' });
export type FullCommissionObject = z.output<typeof FullCommission>;

/** Said by every operation that shows a commission: how to see the rejection reason. */
const INCLUDE_DOC =
  "`include[]=rejection_reason` adds `rejection_reason` (why the merchant rejected it, shown to the partner; null unless rejected), which the spec's field set does not have.";

/** The OpenAPI descriptions of the commission operations. */
export const commissionDocs = {
  create: `For a customer (\`customer_id\`: its partner and program are used), or without one (\`program_id\` and \`partner_id\` are then required). Any status may be given (default pending); \`paid\` assigns a \`payout_id\`; \`rejection_reason\` only with \`rejected\` (400 otherwise). The response shows exactly the spec's full field set, with \`amount\` and \`revenue\` as strings. ${INCLUDE_DOC}`,
  list: `Shows exactly the spec's short field set (and what \`expand[]\` adds). Refund entries (negative amounts) are commissions too. ${INCLUDE_DOC}`,
  retrieve: `Shows exactly the spec's short field set (and what \`expand[]\` adds). ${INCLUDE_DOC}`,
  update: `Moving to \`paid\` assigns a \`payout_id\`; leaving \`paid\` clears it. \`rejection_reason\` (shown to the partner) only on a commission rejected by this request or already rejected (400 otherwise); leaving \`rejected\` clears it. A reward's unpaid refund entries leave the totals with it (rejected, refunded) and come back with it. A refund entry's \`amount\` and \`transaction_id\`, and a flow commission's \`transaction_id\`, cannot change (400). The response shows exactly the spec's full field set, with \`amount\` and \`revenue\` as strings. ${INCLUDE_DOC}`,
  delete: "Soft delete: hidden from the API and from partner and customer totals, with the reward's refund entries that are not paid.",
} as const;
