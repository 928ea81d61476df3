import { z } from 'zod';
import { centsField, currencyCode, externalId, idField, isoString, storedTimestampField } from '../../http/fields.js';
import { listQuery, multiValue } from '../../http/list.js';
import { ExpandedCustomer } from '../customers/customers.schema.js';
import { ExpandedPartner } from '../partners/partners.schema.js';
import { ExpandedProgram } from '../programs/programs.schema.js';

export const TRANSACTION_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;
export const BILLING_TYPES = ['one_time', 'subscription'] as const;
export const INTERVALS = ['day', 'week', 'month', 'year'] as const;

const text = z.string().trim().min(1).max(255).nullable();

const describedFields = {
  billing_type: z.enum(BILLING_TYPES).meta({ description: 'Default one_time' }),
  interval: z.enum(INTERVALS).nullable().meta({ description: 'Billing interval of a subscription' }),
  charge_id: externalId
    .nullable()
    .meta({ description: 'Your payment provider’s charge id; recorded once per program (a repeat answers 409)' }),
  product_id: text,
  product_name: text,
  source: text.meta({ description: 'Where the payment came from, e.g. stripe' }),
};

/** An interval describes a subscription; on a one-time payment it is a mistake worth reporting. */
export function checkInterval(t: { billing_type?: string; interval?: string | null }, ctx: z.RefinementCtx): void {
  if (t.interval && t.billing_type !== 'subscription') {
    ctx.addIssue({ code: 'custom', path: ['interval'], message: 'only a subscription has an interval (set billing_type to subscription)' });
  }
}

export const TransactionCreate = z
  .strictObject({
    amount: centsField,
    customer_id: idField.meta({ description: 'The customer’s id as returned by the service (cust_…)' }),
    ...describedFields,
    currency: currencyCode.meta({ description: 'Default: the program’s currency' }),
    created_at: storedTimestampField.meta({ description: 'When the payment happened (default now); years 1000–8999' }),
  })
  .partial()
  .required({ amount: true, customer_id: true })
  .superRefine(checkInterval)
  .meta({ id: 'TransactionCreate' });
export type TransactionCreateInput = z.output<typeof TransactionCreate>;

export const TransactionUpdate = z.strictObject(describedFields).partial().meta({ id: 'TransactionUpdate' });
export type TransactionUpdateInput = z.output<typeof TransactionUpdate>;

export const TransactionRefund = z
  .strictObject({ amount: centsField.min(1).optional().meta({ description: 'Cents to refund; default everything not yet refunded' }) })
  .meta({ id: 'TransactionRefund' });

const expandParam = multiValue(['customer', 'partner', 'program']);
export const TransactionListQuery = listQuery({
  program_id: idField,
  partner_id: idField.optional(),
  customer_id: idField.optional(),
  charge_id: externalId.optional(),
  expand: expandParam.optional(),
});
export type TransactionListQueryInput = z.output<typeof TransactionListQuery>;
export type TransactionExpand = 'customer' | 'partner' | 'program';
export const TransactionRetrieveQuery = z.strictObject({ expand: expandParam.optional() });

export const Transaction = z
  .object({
    id: z.string(),
    status: z.enum(TRANSACTION_STATUSES),
    amount: z.number().int(),
    refunded_amount: z.number().int(),
    currency: z.string(),
    customer_id: z.string(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    click_id: z.string().nullable(),
    charge_id: z.string().nullable(),
    billing_type: z.enum(BILLING_TYPES),
    interval: z.enum(INTERVALS).nullable(),
    product_id: z.string().nullable(),
    product_name: z.string().nullable(),
    source: z.string().nullable(),
    refunded_at: isoString.nullable(),
    created_at: isoString,
    updated_at: isoString,
    customer: ExpandedCustomer.optional(),
    partner: ExpandedPartner.optional(),
    program: ExpandedProgram.optional(),
  })
  .meta({ id: 'Transaction' });
export type TransactionObject = z.output<typeof Transaction>;

/** The transaction as expanded on commissions. */
export const ExpandedTransaction = Transaction.pick({ id: true, amount: true, status: true, created_at: true }).meta({
  id: 'ExpandedTransaction',
});

export const TransactionExistsResponse = z
  .object({
    success: z.literal(false),
    error: z.object({ message: z.string(), type: z.literal('conflict_error'), param: z.literal('charge_id') }),
    data: Transaction,
  })
  .meta({ id: 'TransactionExists' });

/** The OpenAPI descriptions of the transaction operations. */
export const transactionDocs = {
  create:
    "The partner is the customer's. The program's payment flows run at once and their commissions are created in the same database transaction. A `charge_id` already recorded in the program answers 409 with the existing transaction in `data`, and creates nothing. A lead or trialing customer who pays becomes active.",
  update:
    'Descriptive fields only; the amount changes through a refund. Commissions already created are not recomputed; a new `charge_id` replaces the old one on the commissions that carried it.',
  refund:
    "Without `amount`, refunds everything not yet refunded. A full refund marks the transaction's unpaid commissions refunded; a partial refund, or a refund of a paid commission, adds a `refund` commission with a negative amount proportional to the refunded share. A commission in a pending payout changes that payout at once (its refund entry joins it; refunded in full, it leaves); one in a payout being processed or paid gets an approved entry the next payout takes back.",
  delete:
    'Soft delete: hidden and out of the totals, and its charge_id can be recorded again. Its commissions are settled as by a full refund, rejected instead of refunded: unpaid ones are rejected, a paid one gets an approved refund entry offsetting it.',
} as const;
