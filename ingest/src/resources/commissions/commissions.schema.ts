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
  amount: centsField.meta({
    description: 'Integer cents, never negative (only refund entries, which svc writes, are). A refund entry’s amount cannot change (400).',
    example: 4900,
  }),
  transaction_id: idField.nullable().meta({
    description:
      'A transaction of the same program and partner (and of the customer, when there is one); 400 otherwise. A refund entry’s, and that of a commission a flow made (a flow pays once per transaction), cannot change (400).',
  }),
  charge_id: externalId.nullable().meta({ description: "Default: the transaction's charge_id" }),
  source: z.string().trim().min(1).max(255).nullable(),
  status: z.enum(COMMISSION_STATUSES).meta({
    description:
      'Default on create: pending. Moving to paid assigns a payout_id (po_…), kept while the commission stays paid; any other status clears it. A commission in an unpaid payout, or paid by a payout, cannot change status (400 naming the payout).',
  }),
  revenue: centsField.nullable().meta({ description: 'Cents of the sale the commission was earned on; null when not set' }),
  created_at: storedTimestampField,
  rejection_reason: optionalText(2000).meta({
    description:
      'Beyond the spec. Why the commission is rejected, shown to the partner in the portal: up to 2,000 characters (trimmed), or null. Only with status rejected (given with it in the same request, or alone on a commission already rejected, replacing its reason); anywhere else → 400 naming rejection_reason, nothing changed. null or an empty string clears it; a commission leaving rejected loses it, and set back to rejected without a reason has none. A reward’s refund entries do not take its reason.',
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

const expandParam = multiValue(['partner', 'program', 'customer', 'transaction']).meta({
  description:
    'One or more of: partner (id, first_name, last_name, email, company_name, status, created_at), program (id, status, name, product_name, subdomain, type, currency_code, created_at), customer (id, email, name, status, created_at), transaction (id, amount, status, created_at). A deleted record is not expanded: its key is absent.',
});
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
export const commissionIncludeParam = multiValue(COMMISSION_INCLUDES).meta({
  description:
    'Beyond the spec. rejection_reason: adds `rejection_reason` to each commission of the answer; another value → 400, nothing changed',
});

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
    type: z.string().nullable().meta({
      description:
        'reward (a flow’s, or made by hand), or refund for an entry offsetting a refunded payment: a negative amount that counts only while its reward does',
    }),
    currency: z.string().nullable(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    payout_id: z.string().nullable().meta({
      description:
        'Set only while paid: the payout that paid it, or, for a commission marked paid by itself, an id of its own that names no payout (`GET /v1/payouts/{id}` answers 404). Null while unpaid, also while in a payout.',
    }),
    scheduled_approval_date: isoString.nullable().meta({ description: 'When a scheduled approval approves it' }),
    approval_type: z
      .enum(APPROVAL_TYPES)
      .meta({ description: 'The approval of the flow that made it; manual for a commission made by hand' }),
    flow_id: z.string().nullable().meta({ description: 'The flow that made it; null for a commission made by hand' }),
    created_at: isoString,
    updated_at: isoString,
    rejection_reason: rejectionReason,
  })
  .meta({ id: 'FullCommission' });
export type FullCommissionObject = z.output<typeof FullCommission>;

/** Said by every operation that shows a commission: how to see the rejection reason. */
const INCLUDE_DOC =
  "`include[]=rejection_reason` adds `rejection_reason` (why the merchant rejected it, shown to the partner; null unless rejected), which the spec's field set does not have: a column the spec does not name is never added to these sets (clients generated from the spec are strict), only shown on request. In a commission's events it is beside `data`, in `included`.";

/** The spec's two field sets, as each operation answers them. */
const FULL_SET =
  'The response shows exactly the spec’s full field set (`id, amount, revenue, customer_id, transaction_id, charge_id, charge_status, source, status, type, currency, partner_id, program_id, organization_id, payout_id, scheduled_approval_date, approval_type, flow_id, created_at, updated_at`), with `amount` and `revenue` as strings (`revenue` null when not set).';
const SHORT_SET =
  'Shows exactly the spec’s short field set (`id, amount, customer_id, transaction_id, charge_id, source, status, revenue, created_at, updated_at, program_id, organization_id`), with numbers, and the objects `expand[]` asks for.';

/** What a payout does to its commissions (ingest/docs/payouts.md). */
const PAYOUT_LOCK =
  'A commission in an unpaid payout cannot change status or amount, or be deleted (400 naming the payout: cancel it first), nor can one a payout paid (400: correct it with a refund of its transaction).';

/** The OpenAPI descriptions of the commission operations. */
export const commissionDocs = {
  create: `For a customer (\`customer_id\`: its partner and program are used), or without one (\`program_id\` and \`partner_id\` are then required). \`transaction_id\` must be a transaction of the program and the partner, and of the customer when there is one (400 otherwise); \`charge_id\` defaults to the transaction's. Any status may be given (default pending); \`paid\` assigns a \`payout_id\`; \`rejection_reason\` only with \`rejected\` (400 otherwise). A commission made by hand has \`type: "reward"\`, \`approval_type: "manual"\`, no \`flow_id\`, and the transaction's currency, else the program's. One created already paid (importing history) sends the partner no e-mail. ${FULL_SET} ${INCLUDE_DOC}`,
  list: `The commissions of the program named by \`program_id\` (required), filtered by \`partner_id\`, \`customer_id\`, \`transaction_id\` and \`status\`. ${SHORT_SET} Refund entries (negative amounts) are commissions too. ${INCLUDE_DOC}`,
  retrieve: `${SHORT_SET} ${INCLUDE_DOC}`,
  update: `Changes \`amount\`, \`transaction_id\`, \`charge_id\`, \`source\`, \`status\`, \`revenue\`, \`created_at\` and \`rejection_reason\`, with what svc computed left alone (400 naming the field, nothing changed): a refund entry's \`amount\` and \`transaction_id\`, and the \`transaction_id\` of a commission a flow made. Giving the current value is no change. Moving to \`paid\` assigns a \`payout_id\` and sends the partner the "paid" e-mail (when their \`payout_paid_email_active\` is on; marking a paid commission paid again sends nothing); leaving \`paid\` clears it. ${PAYOUT_LOCK} \`rejection_reason\` (shown to the partner) only on a commission rejected by this request or already rejected (400 otherwise); leaving \`rejected\` clears it; a change of the reason alone is a \`commission.updated\` whose \`previous_attributes\` holds the reason before.\n\nRefund entries follow their reward: when the reward leaves the totals (set to \`rejected\` or \`refunded\`, here or by a full refund or a transaction's delete), its unpaid entries (\`pending\`, \`approved\`) take the same status in the same SQL transaction; when it counts again (\`pending\`, \`approved\` or \`paid\`), the entries that went with it come back with the status they had. Paid entries always stay as they are (that money was already recovered), as do entries rejected or refunded on their own, and an entry whose status was set by a PUT while its reward was out stays as set.\n\n${FULL_SET} ${INCLUDE_DOC}`,
  delete: `Soft delete: hidden from the API and from partner and customer totals, with the reward's refund entries that are not paid. ${PAYOUT_LOCK}`,
} as const;
