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
  billing_type: z.enum(BILLING_TYPES).meta({ description: 'one_time (the default) or subscription' }),
  interval: z
    .enum(INTERVALS)
    .nullable()
    .meta({ description: 'Billing interval of a subscription; only with billing_type subscription (400 otherwise)' }),
  charge_id: externalId.nullable().meta({
    description:
      'Your payment provider’s charge id; recorded once per program (a repeat answers 409). Without it nothing is deduplicated: use an Idempotency-Key. A new one given on update replaces the old one on the transaction’s commissions that carried it (refund entries included; one given by hand on a commission stays).',
  }),
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
  .strictObject({
    amount: centsField
      .min(1)
      .optional()
      .meta({ description: 'Cents to refund; default everything not yet refunded. More than what is left, or nothing left → 400.' }),
  })
  .meta({ id: 'TransactionRefund' });

const expandParam = multiValue(['customer', 'partner', 'program']).meta({
  description:
    'One or more of: customer (id, email, name, status, created_at), partner (id, first_name, last_name, email, company_name, status, created_at), program (id, status, name, product_name, subdomain, type, currency_code, created_at). A deleted customer or partner is not expanded: its key is absent.',
});
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
    status: z.enum(TRANSACTION_STATUSES).meta({ description: 'paid, partially_refunded or refunded' }),
    amount: z.number().int().meta({ description: 'Cents paid' }),
    refunded_amount: z.number().int().meta({ description: 'Cents refunded so far' }),
    currency: z.string(),
    customer_id: z.string(),
    partner_id: z.string(),
    program_id: z.string(),
    organization_id: z.string(),
    click_id: z.string().nullable().meta({ description: "The customer's click" }),
    charge_id: z.string().nullable(),
    billing_type: z.enum(BILLING_TYPES),
    interval: z.enum(INTERVALS).nullable(),
    product_id: z.string().nullable(),
    product_name: z.string().nullable(),
    source: z.string().nullable(),
    refunded_at: isoString.nullable().meta({ description: 'When it was last refunded; null before any refund' }),
    created_at: isoString.meta({ description: 'When the payment happened' }),
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
    "The partner is the customer's. The transaction, the commissions of the program's payment flows and the customer's activation are written by one SQL statement, so they commit together; when a flow reads `customer.transaction_count` (first payment only), the customer's row is locked first, so that count is exact even when payments arrive at once. A `charge_id` already recorded in the program answers 409 (`param: charge_id`) with the existing transaction in `data`, and creates nothing (no second commission), decided by a unique index, so simultaneous requests record one. A lead or trialing customer who pays (amount above 0) becomes active, with `active_at` set to the payment time unless it had one.",
  list: 'The transactions of the program named by `program_id` (required), filtered by `partner_id`, `customer_id` and `charge_id`.',
  retrieve: '`expand[]=customer|partner|program` as on the list; a deleted customer or partner is not expanded (the key is absent).',
  update:
    'Descriptive fields only (`charge_id`, `billing_type`, `interval`, `product_id`, `product_name`, `source`); the amount changes through a refund. Commissions already created are not recomputed, but a new `charge_id` replaces the old one on the transaction’s commissions that carried it (refund entries included; one given by hand on a commission stays), in the same SQL transaction. A `charge_id` another transaction of the program has → 409.',
  refund:
    "Refunds `amount` cents, or without it everything not yet refunded; more than what is left, or nothing left → 400. Refunds of one transaction run one at a time. Nothing is rewritten silently:\n\n- A full refund marks the transaction's unpaid commissions `refunded` (their unpaid refund entries follow them).\n- A partial refund, or any refund of a paid commission, adds a commission of `type: \"refund\"` with a negative amount: the difference between what the commission is worth after the refund (`amount − round(amount × refunded ÷ transaction amount)`, on the cumulative refunded total, so several partial refunds never drift by a cent) and what it is worth now. Its `revenue` is minus the cents refunded by this call. The entry of a paid commission is `approved` (taken from the next payout); otherwise it has the commission's status and approval schedule.\n- `charge_status` of the transaction's commissions follows the transaction's status.\n- A commission in a pending payout changes that payout at once (its refund entry joins it; refunded in full, it leaves); one in a payout being processed or paid gets an approved entry the next payout takes back (ingest/docs/payouts.md). A refund waits for a payout generation of the program that is running.",
  delete:
    'Soft delete: hidden and out of the totals, and its charge_id can be recorded again. A deleted transaction earns nothing, so its commissions are settled as a full refund would settle them, `rejected` where a refund marks `refunded`: unpaid commissions are rejected (their unpaid refund entries follow them); a paid commission keeps its status, its `payout_id` and its refund entries, and gets an `approved` refund entry for what it still counts (the entry’s `revenue` is minus what was left of the transaction), recovered from the next payout, so recording the same charge again does not pay the partner twice.',
} as const;
