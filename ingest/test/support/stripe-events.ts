import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

/**
 * Stripe events as Stripe sends them, for the tests: objects shaped as Stripe's API reference
 * documents them, in the API version a webhook endpoint is pinned to ('basil' = 2025-03-31 and
 * later; 'legacy' = before), signed with the `stripe` package's own test-header helper.
 */

export type ApiShape = 'basil' | 'legacy';
const API_VERSIONS: Record<ApiShape, string> = { basil: '2026-10-28.endive', legacy: '2024-06-20' };

const rand = (n = 14) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x').slice(0, n);
export const stripeId = (prefix: string) => `${prefix}_${rand()}`;

/** A signing secret as Stripe makes them. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export interface StripeEventFixture {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  livemode: boolean;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
  data: { object: Record<string, unknown> };
}

export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  opts: { shape?: ApiShape; created?: number; id?: string } = {},
): StripeEventFixture {
  return {
    id: opts.id ?? stripeId('evt'),
    object: 'event',
    api_version: API_VERSIONS[opts.shape ?? 'basil'],
    created: opts.created ?? Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: stripeId('req'), idempotency_key: null },
    type,
    data: { object },
  };
}

/** The body and the Stripe-Signature header Stripe would send for the event. */
export function signStripeEvent(event: unknown, secret: string, timestamp?: number): { body: string; signature: string } {
  const body = JSON.stringify(event, null, 2);
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }) };
}

const now = () => Math.floor(Date.now() / 1000);

export function checkoutSession(o: {
  clickId?: string | null;
  customer?: string | null;
  email?: string | null;
  mode?: 'payment' | 'subscription';
  subscription?: string | null;
  amountTotal?: number;
  tax?: number;
  paymentIntent?: string | null;
  promotionCode?: string;
  metadata?: Record<string, string>;
  /** The invoice of a payment-mode checkout with invoice_creation. */
  invoice?: string;
}): Record<string, unknown> {
  const mode = o.mode ?? 'subscription';
  return {
    id: stripeId('cs_test'),
    object: 'checkout.session',
    mode,
    status: 'complete',
    payment_status: 'paid',
    client_reference_id: o.clickId ?? null,
    customer: o.customer ?? null,
    customer_creation: 'always',
    customer_details: { email: o.email ?? null, name: 'Carol Customer', address: { country: 'DE' }, tax_exempt: 'none', tax_ids: [] },
    customer_email: null,
    subscription: mode === 'subscription' ? (o.subscription ?? stripeId('sub')) : null,
    payment_intent: mode === 'payment' ? (o.paymentIntent ?? stripeId('pi')) : null,
    invoice: o.invoice ?? null,
    amount_subtotal: (o.amountTotal ?? 4900) - (o.tax ?? 0),
    amount_total: o.amountTotal ?? 4900,
    currency: 'usd',
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: o.tax ?? 0 },
    discounts: o.promotionCode ? [{ coupon: stripeId('co'), promotion_code: o.promotionCode }] : [],
    metadata: o.metadata ?? {},
    livemode: false,
    created: now(),
    url: null,
  };
}

/** An invoice as sent with invoice.paid: a subscription's, with one line. */
export function invoice(o: {
  customer: string;
  id?: string;
  shape?: ApiShape;
  subscription?: string | null;
  amountPaid?: number;
  tax?: number;
  productName?: string;
  interval?: 'month' | 'year';
  paymentIntent?: string;
  charge?: string;
  subscriptionMetadata?: Record<string, string>;
  email?: string;
  promotionCode?: string;
  /** Unix seconds; default now. */
  paidAt?: number;
}): Record<string, unknown> {
  const shape = o.shape ?? 'basil';
  const amountPaid = o.amountPaid ?? 4900;
  const tax = o.tax ?? 0;
  const subscription = o.subscription === undefined ? stripeId('sub') : o.subscription;
  const start = o.paidAt ?? now();
  const end = start + (o.interval === 'year' ? 365 : 30) * 86_400;
  const name = o.productName ?? 'Pro';
  const amountText = `$${(amountPaid / 100).toFixed(2)}`;
  /** The invoice's one line; `price` is how each shape names what was sold. */
  const lines = (price: Record<string, unknown>) => ({
    object: 'list',
    data: [
      {
        id: stripeId('il'),
        object: 'line_item',
        amount: amountPaid - tax,
        currency: 'usd',
        description: `1 × ${name} (at ${amountText} / ${o.interval ?? 'month'})`,
        period: { start, end },
        quantity: 1,
        ...price,
      },
    ],
    has_more: false,
  });
  const common = {
    id: o.id ?? stripeId('in'),
    object: 'invoice',
    customer: o.customer,
    customer_email: o.email ?? 'carol@example.com',
    customer_name: 'Carol Customer',
    amount_due: amountPaid,
    amount_paid: amountPaid,
    amount_remaining: 0,
    currency: 'usd',
    billing_reason: 'subscription_cycle',
    status: 'paid',
    status_transitions: { finalized_at: start, paid_at: start, marked_uncollectible_at: null, voided_at: null },
    livemode: false,
    metadata: {},
    created: start,
    subtotal: amountPaid - tax,
    total: amountPaid,
  };
  if (shape === 'basil') {
    return {
      ...common,
      parent: subscription
        ? {
            type: 'subscription_details',
            quote_details: null,
            subscription_details: { metadata: o.subscriptionMetadata ?? {}, subscription },
          }
        : null,
      total_taxes: tax
        ? [{ amount: tax, tax_behavior: 'exclusive', tax_rate_details: { tax_rate: stripeId('txr') }, taxability_reason: 'standard_rated' }]
        : [],
      discounts: [],
      lines: lines({
        pricing: {
          type: 'price_details',
          price_details: { price: stripeId('price'), product: 'prod_Pro' },
          unit_amount_decimal: String(amountPaid - tax),
        },
      }),
    };
  }
  return {
    ...common,
    subscription,
    subscription_details: subscription ? { metadata: o.subscriptionMetadata ?? {} } : null,
    charge: o.charge ?? stripeId('ch'),
    payment_intent: o.paymentIntent ?? stripeId('pi'),
    paid: true,
    tax: tax || null,
    total_tax_amounts: tax ? [{ amount: tax, inclusive: false, tax_rate: stripeId('txr') }] : [],
    discount: o.promotionCode
      ? { id: stripeId('di'), object: 'discount', coupon: { id: stripeId('co') }, promotion_code: o.promotionCode }
      : null,
    discounts: [],
    lines: lines({
      price: {
        id: stripeId('price'),
        object: 'price',
        product: 'prod_Pro',
        recurring: { interval: o.interval ?? 'month', interval_count: 1 },
        nickname: null,
      },
    }),
  };
}

/** invoice_payment.paid (from 2025-03-31): which PaymentIntent and charge paid an invoice. */
export function invoicePayment(o: { invoice: string; paymentIntent: string; charge?: string; amount?: number }): Record<string, unknown> {
  return {
    id: stripeId('inpay'),
    object: 'invoice_payment',
    amount_paid: o.amount ?? 4900,
    amount_requested: o.amount ?? 4900,
    currency: 'usd',
    invoice: o.invoice,
    is_default: true,
    livemode: false,
    payment: { type: 'payment_intent', payment_intent: o.paymentIntent, ...(o.charge ? { charge: o.charge } : {}) },
    status: 'paid',
    status_transitions: { canceled_at: null, paid_at: now() },
    created: now(),
  };
}

/**
 * A charge. `invoice` exists only in the legacy shape: `undefined` leaves the key out (as a
 * basil payload does), `null` says "no invoice made this charge".
 */
export function charge(o: {
  id?: string;
  amount?: number;
  amountRefunded?: number;
  customer?: string | null;
  paymentIntent?: string | null;
  invoice?: string | null;
  metadata?: Record<string, string>;
  email?: string;
}): Record<string, unknown> {
  const amount = o.amount ?? 4900;
  const refunded = o.amountRefunded ?? 0;
  return {
    id: o.id ?? stripeId('ch'),
    object: 'charge',
    amount,
    amount_captured: amount,
    amount_refunded: refunded,
    captured: true,
    currency: 'usd',
    customer: o.customer ?? null,
    payment_intent: o.paymentIntent === undefined ? stripeId('pi') : o.paymentIntent,
    paid: true,
    refunded: refunded >= amount,
    status: 'succeeded',
    billing_details: { email: o.email ?? null, name: null, address: null, phone: null },
    description: null,
    metadata: o.metadata ?? {},
    livemode: false,
    created: now(),
    ...(o.invoice !== undefined ? { invoice: o.invoice } : {}),
  };
}

export function subscription(o: {
  id?: string;
  customer: string;
  status: string;
  metadata?: Record<string, string>;
  /** Before 2025-03-31 a subscription embeds its discount, with the promotion code's id. */
  promotionCode?: string;
}): Record<string, unknown> {
  return {
    id: o.id ?? stripeId('sub'),
    discount: o.promotionCode ? { id: stripeId('di'), object: 'discount', promotion_code: o.promotionCode } : null,
    object: 'subscription',
    customer: o.customer,
    status: o.status,
    metadata: o.metadata ?? {},
    cancel_at_period_end: false,
    canceled_at: o.status === 'canceled' ? now() : null,
    trial_end: o.status === 'trialing' ? now() + 14 * 86_400 : null,
    items: {
      object: 'list',
      data: [{ id: stripeId('si'), price: { id: stripeId('price'), recurring: { interval: 'month', interval_count: 1 } } }],
    },
    livemode: false,
    created: now(),
  };
}

export function stripeCustomer(o: { id?: string; email?: string; metadata?: Record<string, string> }): Record<string, unknown> {
  return {
    id: o.id ?? stripeId('cus'),
    object: 'customer',
    email: o.email ?? null,
    name: null,
    metadata: o.metadata ?? {},
    livemode: false,
    created: now(),
  };
}

export function promotionCode(o: { id?: string; code: string }): Record<string, unknown> {
  return {
    id: o.id ?? stripeId('promo'),
    object: 'promotion_code',
    active: true,
    code: o.code,
    coupon: { id: stripeId('co') },
    livemode: false,
    created: now(),
  };
}
