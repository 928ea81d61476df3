import { z } from 'zod';
import { isoString } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';

export const STRIPE_EVENT_STATUSES = ['processed', 'ignored', 'failed', 'error'] as const;

export const StripeConnect = z
  .strictObject({
    webhook_secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=_-]{8,200}$/, 'must be the signing secret of a Stripe webhook endpoint (whsec_…)')
      .optional()
      .meta({ description: 'The signing secret of your Stripe webhook endpoint; required to connect, optional to change options' }),
    tax_counts_as_revenue: z
      .boolean()
      .optional()
      .meta({ description: 'Whether tax Stripe collected counts in the transaction amount (default false: revenue excludes tax)' }),
  })
  .meta({ id: 'StripeConnect' });
export type StripeConnectInput = z.output<typeof StripeConnect>;

const counts = z.object(
  Object.fromEntries(STRIPE_EVENT_STATUSES.map((s) => [s, z.number().int()])) as Record<
    (typeof STRIPE_EVENT_STATUSES)[number],
    z.ZodNumber
  >,
);

export const StripeIntegration = z
  .object({
    program_id: z.string(),
    connected: z.boolean(),
    webhook_secret: z.string().nullable().meta({ description: 'Redacted: whsec_… and the last four characters' }),
    webhook_url: z.string().meta({
      description: 'The endpoint URL to give Stripe, on the public address (SVC_PUBLIC_URL), never on the Host a request came with',
    }),
    tax_counts_as_revenue: z.boolean(),
    events_to_enable: z.array(z.string()).meta({
      description:
        'The event types to select on the Stripe webhook endpoint (charge.succeeded is optional, only for one-off payments outside Checkout and invoices: ingest/docs/stripe.md)',
    }),
    event_counts: counts.meta({ description: 'Events received, by outcome' }),
    last_event_at: isoString.nullable(),
    connected_at: isoString.nullable(),
    updated_at: isoString.nullable(),
  })
  .meta({ id: 'StripeIntegration' });
export type StripeIntegrationObject = z.output<typeof StripeIntegration>;

export const StripeEventListQuery = listQuery({
  status: z.enum(STRIPE_EVENT_STATUSES).optional(),
  type: z.string().min(1).max(100).optional().meta({ description: 'A Stripe event type, e.g. invoice.paid' }),
});
export type StripeEventListInput = z.output<typeof StripeEventListQuery>;

export const StripeEventRecord = z
  .object({
    id: z.string().meta({ description: "Stripe's event id (evt_…)" }),
    type: z.string(),
    status: z.enum(STRIPE_EVENT_STATUSES),
    reason: z.string().nullable().meta({
      description:
        'A stable code: customer_linked, payment_recorded, already_recorded, payment_linked, refund_applied, already_refunded, customer_canceled, customer_trialing, unknown_customer, unknown_payment, nothing_paid, customer_deleted, other_subscription, no_svc_metadata, invoice_charge, charge_origin_unknown, not_paid, unhandled_type, unusable_event, rejected, processing_error',
    }),
    message: z.string().nullable().meta({
      description: 'The same for people, e.g. "Invoice in_…: no click, svc metadata or partner promotion code attributes this customer"',
    }),
    customer_id: z.string().nullable(),
    transaction_id: z.string().nullable(),
    waiting_for: z
      .array(z.string())
      .nullable()
      .meta({ description: 'Stripe ids whose arrival makes the event run again (an event waits three days at most, then stays ignored)' }),
    livemode: z.boolean(),
    api_version: z.string().nullable(),
    attempts: z
      .number()
      .int()
      .meta({ description: 'How often the event ran: each delivery, and each run once what it waited for arrived' }),
    stripe_created_at: isoString,
    created_at: isoString.meta({ description: 'When svc received it first' }),
    updated_at: isoString,
  })
  .meta({ id: 'StripeEvent' });
export type StripeEventObject = z.output<typeof StripeEventRecord>;

export const StripeWebhookReceipt = z
  .object({
    event_id: z.string(),
    type: z.string(),
    status: z.enum(STRIPE_EVENT_STATUSES),
    reason: z.string().nullable(),
    message: z.string().nullable(),
    duplicate: z.boolean().meta({ description: 'True when this event id was handled before; nothing changed now' }),
  })
  .meta({ id: 'StripeWebhookReceipt' });
export type StripeWebhookReceiptObject = z.output<typeof StripeWebhookReceipt>;

/** The OpenAPI descriptions of the Stripe operations. */
export const stripeDocs = {
  connect:
    'Connects Stripe to the program with the signing secret of your Stripe webhook endpoint, or changes its options; `PUT` again with a new secret after rolling it in Stripe, or with only options. The secret is never returned; `GET` shows it redacted. Point the Stripe endpoint at `webhook_url` and select `events_to_enable`. What each event does: ingest/docs/stripe.md.',
  retrieve: 'The connection state: whether Stripe is connected, the URL to give Stripe, and the events received by outcome.',
  disconnect:
    'Forgets the signing secret: Stripe events for the program answer 404 from now on. The events received and the links made stay, so reconnecting carries on.',
  events:
    'Every Stripe event received, newest first, with what it did: why a payment did or did not produce a commission. Filters `status` and `type`.',
  webhook:
    "The URL to give Stripe. No API key: the `Stripe-Signature` header is checked with the program's signing secret (400 when it does not match; nothing is written). Each event id takes effect once. Answers 2xx once the event is recorded, also when it is ignored or can never take effect; 5xx when a fault stopped it, so that Stripe delivers it again. Limited per client address (`SVC_STRIPE_RATE_LIMIT` per second), bodies up to 1 MB. What each event does, and in which order they may come: ingest/docs/stripe.md.",
};
