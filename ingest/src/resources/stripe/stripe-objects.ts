import { z } from 'zod';

/**
 * The parts of Stripe's event objects that svc reads, in the shapes of every API version a
 * webhook endpoint may be pinned to (ingest/docs/stripe.md). Since 2025-03-31 ("basil") an invoice
 * no longer names its charge, PaymentIntent or subscription at the top level: the subscription
 * is under `parent.subscription_details`, tax under `total_taxes`, and the payments are linked
 * by `invoice_payment.paid`. Objects are parsed loosely: Stripe adds fields in every version,
 * and only what is read here must be present. A reference Stripe can expand is either an id
 * or the object; `idOf` reads both.
 */

const ref = z.union([z.string(), z.looseObject({ id: z.string() })]);
const optionalRef = ref.nullish();
const metadata = z.record(z.string(), z.string()).nullish();

/** The ids that are there. */
export const presentIds = (ids: (string | null | undefined)[]): string[] => ids.filter((id): id is string => typeof id === 'string');

export const idOf = (value: z.infer<typeof optionalRef>): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

export const StripeEvent = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().int(),
  livemode: z.boolean(),
  api_version: z.string().nullish(),
  data: z.looseObject({ object: z.looseObject({}) }),
});
export type StripeEvent = z.infer<typeof StripeEvent>;

/** A discount as embedded (`discount`, or an expanded entry of `discounts`). */
const discount = z.union([
  z.string(),
  z.looseObject({ promotion_code: z.union([z.string(), z.looseObject({ id: z.string(), code: z.string().optional() })]).nullish() }),
]);
const discounts = { discount: discount.nullish(), discounts: z.array(discount).nullish() };

export const CheckoutSession = z.looseObject({
  id: z.string(),
  mode: z.string(),
  payment_status: z.string(),
  client_reference_id: z.string().nullish(),
  customer: optionalRef,
  subscription: optionalRef,
  payment_intent: optionalRef,
  /** The invoice a payment-mode checkout made (`invoice_creation`): the same payment as its invoice.paid. */
  invoice: optionalRef,
  customer_details: z.looseObject({ email: z.string().nullish(), name: z.string().nullish() }).nullish(),
  customer_email: z.string().nullish(),
  metadata,
  amount_total: z.number().int().nullish(),
  total_details: z.looseObject({ amount_tax: z.number().int().nullish() }).nullish(),
  currency: z.string().nullish(),
  created: z.number().int().optional(),
  ...discounts,
});
export type CheckoutSession = z.infer<typeof CheckoutSession>;

const invoiceLine = z.looseObject({
  description: z.string().nullish(),
  price: z
    .looseObject({ product: optionalRef, recurring: z.looseObject({ interval: z.string() }).nullish(), nickname: z.string().nullish() })
    .nullish(),
  plan: z.looseObject({ interval: z.string().nullish(), nickname: z.string().nullish(), product: optionalRef }).nullish(),
  pricing: z.looseObject({ price_details: z.looseObject({ product: optionalRef }).nullish() }).nullish(),
  period: z.looseObject({ start: z.number(), end: z.number() }).nullish(),
});

const subscriptionDetails = z.looseObject({ subscription: optionalRef, metadata }).nullish();

export const Invoice = z.looseObject({
  id: z.string(),
  customer: optionalRef,
  customer_email: z.string().nullish(),
  customer_name: z.string().nullish(),
  amount_paid: z.number().int(),
  currency: z.string(),
  // Before 2025-03-31:
  subscription: optionalRef,
  subscription_details: subscriptionDetails,
  charge: optionalRef,
  payment_intent: optionalRef,
  tax: z.number().int().nullish(),
  // From 2025-03-31:
  parent: z.looseObject({ subscription_details: subscriptionDetails }).nullish(),
  total_taxes: z.array(z.looseObject({ amount: z.number().int() })).nullish(),
  payments: z
    .looseObject({
      data: z.array(z.looseObject({ payment: z.looseObject({ payment_intent: optionalRef, charge: optionalRef }).nullish() })),
    })
    .nullish(),
  status_transitions: z.looseObject({ paid_at: z.number().int().nullish() }).nullish(),
  lines: z.looseObject({ data: z.array(invoiceLine) }).nullish(),
  metadata,
  ...discounts,
});
export type Invoice = z.infer<typeof Invoice>;

export const InvoicePayment = z.looseObject({
  id: z.string(),
  invoice: ref,
  payment: z.looseObject({ payment_intent: optionalRef, charge: optionalRef }),
});

export const Charge = z.looseObject({
  id: z.string(),
  amount: z.number().int(),
  amount_refunded: z.number().int(),
  currency: z.string(),
  paid: z.boolean().nullish(),
  captured: z.boolean().nullish(),
  status: z.string().nullish(),
  customer: optionalRef,
  payment_intent: optionalRef,
  billing_details: z.looseObject({ email: z.string().nullish(), name: z.string().nullish() }).nullish(),
  description: z.string().nullish(),
  metadata,
  created: z.number().int().optional(),
});
export type Charge = z.infer<typeof Charge>;

export const Customer = z.looseObject({
  id: z.string(),
  email: z.string().nullish(),
  name: z.string().nullish(),
  metadata,
  deleted: z.boolean().optional(),
});

export const Subscription = z.looseObject({
  id: z.string(),
  customer: ref,
  status: z.string(),
  metadata,
  items: z
    .looseObject({
      data: z.array(z.looseObject({ price: z.looseObject({ recurring: z.looseObject({ interval: z.string() }).nullish() }).nullish() })),
    })
    .nullish(),
  ...discounts,
});
export type Subscription = z.infer<typeof Subscription>;

export const PromotionCode = z.looseObject({ id: z.string(), code: z.string() });

/** The subscription an invoice bills, in either shape. */
export function subscriptionOf(invoice: Invoice): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
}

/** The metadata of the subscription an invoice bills (copied onto the invoice by Stripe), in either shape. */
export function subscriptionMetadataOf(invoice: Invoice): Record<string, string> {
  return { ...(invoice.subscription_details?.metadata ?? {}), ...(invoice.parent?.subscription_details?.metadata ?? {}) };
}

/** Tax included in what was paid: `total_taxes` from 2025-03-31, `tax` before. */
export function taxOf(invoice: Invoice): number {
  if (invoice.total_taxes) return invoice.total_taxes.reduce((sum, t) => sum + t.amount, 0);
  return invoice.tax ?? 0;
}

/** The PaymentIntent and charge that paid an invoice, when the payload names them (before 2025-03-31, or with `payments` expanded). */
export function paymentIdsOf(invoice: Invoice): string[] {
  const ids = [idOf(invoice.charge), idOf(invoice.payment_intent)];
  for (const p of invoice.payments?.data ?? []) ids.push(idOf(p.payment?.payment_intent), idOf(p.payment?.charge));
  return presentIds(ids);
}

type Interval = 'day' | 'week' | 'month' | 'year';
const INTERVALS = new Set(['day', 'week', 'month', 'year']);
const DAY = 86_400;

/**
 * The billing interval of a subscription line: the price's (or plan's) when the payload has it,
 * else told from the length of the billed period (newer versions name the price by id only).
 */
export function intervalOf(line: z.infer<typeof invoiceLine> | undefined): Interval | null {
  if (!line) return null;
  const named = line.price?.recurring?.interval ?? line.plan?.interval;
  if (named && INTERVALS.has(named)) return named as Interval;
  if (!line.period || line.period.end <= line.period.start) return null;
  const days = (line.period.end - line.period.start) / DAY;
  return days < 2 ? 'day' : days < 10 ? 'week' : days < 200 ? 'month' : 'year';
}

/** "1 × Pro (at $49.00 / month)" → "Pro": the product's name as Stripe writes it on a subscription line. */
export function productNameOf(line: z.infer<typeof invoiceLine> | undefined): string | null {
  const described = line?.description?.trim();
  if (!described) return line?.price?.nickname ?? line?.plan?.nickname ?? null;
  const match = /^\d+\s*×\s*(.+?)(?:\s+\(at .+\))?$/.exec(described);
  return (match ? match[1] : described).slice(0, 255);
}

export function productIdOf(line: z.infer<typeof invoiceLine> | undefined): string | null {
  return idOf(line?.pricing?.price_details?.product) ?? idOf(line?.price?.product) ?? idOf(line?.plan?.product);
}

/**
 * The promotion codes a checkout session, invoice or subscription used, as Stripe ids and,
 * where the payload expands them, their text. Entries of `discounts` that are bare ids are
 * discount ids (`di_…`), which do not name their code.
 */
export function promotionCodesOf(object: { discount?: z.infer<typeof discount> | null; discounts?: z.infer<typeof discount>[] | null }): {
  id: string;
  code?: string;
}[] {
  const found: { id: string; code?: string }[] = [];
  for (const d of [object.discount, ...(object.discounts ?? [])]) {
    if (!d || typeof d === 'string' || !d.promotion_code) continue;
    const p = d.promotion_code;
    found.push(typeof p === 'string' ? { id: p } : { id: p.id, code: p.code });
  }
  return found;
}

/** Stripe writes currencies in lower case; the API uses ISO 4217 upper case. */
export const currencyOf = (currency: string) => currency.toUpperCase();
