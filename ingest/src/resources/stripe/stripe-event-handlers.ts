import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { CustomerRow, StripeIntegrationRow, TransactionRow } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import { proportionalShare } from '../../money.js';
import { findProgramClick } from '../clicks/clicks.repository.js';
import { findCustomer, findCustomerOfClick } from '../customers/customers.repository.js';
import { findOrCreateCustomer, updateCustomer } from '../customers/customers.service.js';
import type { FlowSource } from '../flows/flow-cache.js';
import { findPromotionCodes } from '../promotion-codes/promotion-codes.repository.js';
import { findTransactionOfCharges } from '../transactions/transactions.repository.js';
import { createTransaction, refundTransactionUpTo } from '../transactions/transactions.service.js';
import { findLinks, insertLinks, upsertPromotionCodeLink } from './stripe.repository.js';
import {
  Charge,
  CheckoutSession,
  Customer,
  currencyOf,
  Invoice,
  InvoicePayment,
  idOf,
  intervalOf,
  PromotionCode,
  paymentIdsOf,
  presentIds,
  productIdOf,
  productNameOf,
  promotionCodesOf,
  type StripeEvent,
  Subscription,
  subscriptionMetadataOf,
  subscriptionOf,
  taxOf,
} from './stripe-objects.js';

/**
 * What each Stripe event does to the program (ingest/docs/stripe.md). A handler reads the event's
 * object, finds or makes the svc records it concerns and says what happened. Every effect can
 * safely run twice: a customer is found before one is made, a payment is keyed by its Stripe id
 * (the transactions' unique charge_id), and a refund brings the transaction up to Stripe's
 * running total. An event that names a Stripe customer or payment svc has not linked yet waits
 * for it (`waitingFor`), and runs again when that link is made.
 */

export interface EventContext {
  db: Db;
  flowsOf: FlowSource;
  integration: StripeIntegrationRow;
  /** Stripe ids linked while the event ran: the events waiting for them run next. */
  linked: string[];
  /** A partner e-mail was queued (a new customer): the mailer sends it after the commit. */
  onEmailQueued?: () => void;
}

/** `error`: a fault (not the event's) stopped it; Stripe delivers it again. */
export type EventStatus = 'processed' | 'ignored' | 'failed' | 'error';

export interface Outcome {
  status: EventStatus;
  /** A stable code for programs; `message` says it for people. */
  reason: string;
  message: string;
  customerId?: string;
  transactionId?: string;
  /** Stripe ids whose link would let the event take effect; the event is kept until then. */
  waitingFor?: string[];
}

/** An event that can never take effect as sent (a malformed object, metadata naming a record that does not exist). */
export class UnusableEvent extends Error {}

type Handler = (ctx: EventContext, event: StripeEvent) => Promise<Outcome>;

/** An outcome of the given status; `more` names what it concerns. */
const outcome =
  (status: EventStatus) =>
  (reason: string, message: string, more: Partial<Outcome> = {}): Outcome => ({ status, reason, message, ...more });
const ignored = outcome('ignored');
const processed = outcome('processed');

function parse<S extends z.ZodType>(schema: S, object: unknown, type: string): z.output<S> {
  const result = schema.safeParse(object);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UnusableEvent(`The ${type} object is not in a shape svc reads: ${issue.path.join('.') || 'object'}: ${issue.message}`);
  }
  return result.data;
}

const scope = (ctx: EventContext) => ({ organizationId: ctx.integration.organization_id, programId: ctx.integration.program_id });

// ---------------------------------------------------------------------------------------------
// Customers: which svc customer a Stripe customer is

/** What an event says about who the customer is. */
interface Hints {
  stripeCustomerId: string | null;
  /** A click id from svc.js (`client_reference_id`) or `metadata.svc_click_id`. */
  clickId?: string | null;
  /** `metadata.svc_customer_id`: the merchant already knows the svc customer. */
  customerId?: string | null;
  promotionCodes?: { id: string; code?: string }[];
  email?: string | null;
  name?: string | null;
  subscriptionId?: string | null;
}

type Found = { customer: CustomerRow } | { missing: Outcome };

/** The svc customer a Stripe customer is linked to; a link to a deleted customer is reported. */
async function linkedCustomer(ctx: EventContext, stripeCustomerId: string | null): Promise<Found | undefined> {
  if (!stripeCustomerId) return undefined;
  const { organizationId, programId } = scope(ctx);
  const target = (await findLinks(ctx.db, programId, 'customer', [stripeCustomerId])).get(stripeCustomerId);
  if (!target) return undefined;
  const customer = await findCustomer(ctx.db, organizationId, target);
  if (customer) return { customer };
  return { missing: ignored('customer_deleted', `Stripe customer ${stripeCustomerId} belongs to customer ${target}, which was deleted`) };
}

async function link(ctx: EventContext, kind: 'customer' | 'payment', stripeIds: (string | null)[], target: string): Promise<void> {
  ctx.linked.push(...(await insertLinks(ctx.db, ctx.integration.program_id, kind, presentIds(stripeIds), target)));
}

/** The text of the promotion codes used, from the payload or from the `promotion_code.*` events seen. */
async function promotionCodeTexts(
  ctx: EventContext,
  used: { id: string; code?: string }[],
): Promise<{ texts: string[]; unknown: string[] }> {
  const known = await findLinks(
    ctx.db,
    ctx.integration.program_id,
    'promotion_code',
    used.filter((p) => !p.code).map((p) => p.id),
  );
  const texts: string[] = [];
  const unknown: string[] = [];
  for (const p of used) {
    const text = p.code ?? known.get(p.id);
    if (text) texts.push(text);
    else unknown.push(p.id);
  }
  return { texts, unknown };
}

/** A partner-owned, active svc code among the texts: the attribution a checkout without a click can have. */
async function partnerCode(ctx: EventContext, texts: string[]): Promise<string | undefined> {
  const { organizationId, programId } = scope(ctx);
  for (const code of texts) {
    const [found] = await findPromotionCodes(ctx.db, { organizationId, programId, code });
    if (found?.partner_id && found.active) return found.code;
  }
  return undefined;
}

/**
 * The svc customer an event is about: the one its Stripe customer is linked to, else the one
 * its metadata names, else the lead of its click (found, or made now), else a new customer of
 * the partner whose promotion code it used. A Stripe customer is linked to what was found, so
 * its later events need no hints. Undefined when nothing attributes the customer: Stripe
 * customers nobody referred are none of svc's business.
 */
async function resolveCustomer(ctx: EventContext, hints: Hints): Promise<Found | { unknown: string[] }> {
  const linked = await linkedCustomer(ctx, hints.stripeCustomerId);
  if (linked) return linked;
  const { organizationId, programId } = scope(ctx);
  const { texts, unknown } = await promotionCodeTexts(ctx, hints.promotionCodes ?? []);

  let customer: CustomerRow | undefined;
  if (hints.customerId) {
    customer = await findCustomer(ctx.db, organizationId, hints.customerId);
    if (!customer) throw new UnusableEvent(`metadata.svc_customer_id '${hints.customerId}' is not a customer`);
    // One Stripe account may feed several programs: another program's customer is none of this one's.
    if (customer.program_id !== programId) return { unknown: [] };
  } else {
    const click = hints.clickId ? await findProgramClick(ctx.db, programId, hints.clickId) : undefined;
    const code = click ? undefined : await partnerCode(ctx, texts);
    // With a click the code still applies to the new lead, when it is the partner's (else a warning nobody sees).
    const attribution = click ? { click_id: click.id, promotion_code: texts[0] } : { program_id: programId, promotion_code: code };
    if (click || code) customer = await findOrCreateLead(ctx, hints, attribution);
  }
  if (!customer) return { unknown: [...(hints.stripeCustomerId ? [hints.stripeCustomerId] : []), ...unknown] };
  await link(ctx, 'customer', [hints.stripeCustomerId], customer.id);
  return { customer };
}

/**
 * The lead of a click or code: the customer the click already became (svc.js's signup), or the
 * customer already holding the e-mail or Stripe customer id, or a new lead
 * (findOrCreateCustomer, which also settles a lead made at the same moment by another request).
 */
async function findOrCreateLead(
  ctx: EventContext,
  hints: Hints,
  attribution: { click_id: string; promotion_code?: string } | { program_id: string; promotion_code?: string },
): Promise<CustomerRow> {
  const { organizationId, programId } = scope(ctx);
  if ('click_id' in attribution) {
    const ofClick = await findCustomerOfClick(ctx.db, attribution.click_id);
    const customer = ofClick && (await findCustomer(ctx.db, organizationId, ofClick.id));
    if (customer) return customer;
  }
  const identifier = hints.email ?? hints.stripeCustomerId;
  if (!identifier)
    throw new UnusableEvent('The checkout names neither an e-mail nor a Stripe customer, so the customer cannot be identified');
  return findOrCreateCustomer(
    ctx.db,
    organizationId,
    programId,
    {
      ...attribution,
      identifier,
      email: hints.email ?? undefined,
      name: hints.name ?? undefined,
      customer_id: hints.stripeCustomerId ?? undefined,
      subscription_id: hints.subscriptionId ?? undefined,
    },
    ctx.onEmailQueued,
  );
}

const metadataHints = (metadata: Record<string, string> | null | undefined) => ({
  clickId: metadata?.svc_click_id,
  customerId: metadata?.svc_customer_id,
});

function notReferred(found: { unknown: string[] }, what: string): Outcome {
  const waiting = found.unknown.length ? { waitingFor: found.unknown } : {};
  return ignored('unknown_customer', `${what}: no click, svc metadata or partner promotion code attributes this customer`, waiting);
}

// ---------------------------------------------------------------------------------------------
// Payments

interface Payment {
  customer: CustomerRow;
  /** The Stripe id the transaction is recorded under (its charge_id). */
  key: string;
  /** Further Stripe ids of the same payment, for refunds to find it. */
  otherIds: (string | null)[];
  amount: number;
  /** Default: the program's currency. */
  currency?: string;
  subscription: boolean;
  interval?: ReturnType<typeof intervalOf>;
  productId?: string | null;
  productName?: string | null;
  paidAt: Date;
}

/**
 * The live transaction already recorded for any of a payment's Stripe ids: linked by an earlier
 * event, or reported through the API with one of them as charge_id.
 */
async function findRecordedPayment(ctx: EventContext, stripeIds: string[]): Promise<TransactionRow | undefined> {
  const { programId } = scope(ctx);
  const linked = await findLinks(ctx.db, programId, 'payment', stripeIds);
  return findTransactionOfCharges(ctx.db, programId, { ids: [...linked.values()], chargeIds: stripeIds });
}

/** One transaction per Stripe payment; a payment recorded before (by another event or through the API) is found, not repeated. */
async function recordPayment(ctx: EventContext, p: Payment): Promise<Outcome> {
  const { organizationId } = scope(ctx);
  const ids = presentIds([p.key, ...p.otherIds]);
  const recorded = (transaction: TransactionRow, reason: string, message: string) =>
    link(ctx, 'payment', ids, transaction.id).then(() =>
      processed(reason, message, { customerId: p.customer.id, transactionId: transaction.id }),
    );
  const earlier = await findRecordedPayment(ctx, ids);
  if (earlier) return recorded(earlier, 'already_recorded', `Payment ${p.key} was already recorded as ${earlier.id}`);
  if (p.amount <= 0) return ignored('nothing_paid', `Nothing was paid on ${p.key} (after tax)`, { customerId: p.customer.id });
  try {
    const transaction = await createTransaction(ctx.db, ctx.flowsOf, organizationId, {
      customer_id: p.customer.id,
      amount: p.amount,
      currency: p.currency,
      charge_id: p.key,
      billing_type: p.subscription ? 'subscription' : 'one_time',
      interval: p.subscription ? (p.interval ?? null) : null,
      product_id: p.productId ?? null,
      product_name: p.productName ?? null,
      source: 'stripe',
      created_at: p.paidAt,
    });
    return await recorded(transaction, 'payment_recorded', `Recorded ${p.amount} ${transaction.currency} as ${transaction.id}`);
  } catch (err) {
    if (err instanceof ApiError && err.type === 'not_found_error') {
      return ignored('customer_deleted', `Customer ${p.customer.id} was deleted`, { customerId: p.customer.id });
    }
    throw err;
  }
}

const revenue = (ctx: EventContext, paid: number, tax: number) => (ctx.integration.tax_counts_as_revenue ? paid : Math.max(0, paid - tax));
/** A Stripe time (Unix seconds), or the event's own when the object has none. */
const at = (event: StripeEvent, seconds?: number | null) => new Date((seconds ?? event.created) * 1000);

const onCheckoutCompleted: Handler = async (ctx, event) => {
  const session = parse(CheckoutSession, event.data.object, 'checkout session');
  const stripeCustomerId = idOf(session.customer);
  const found = await resolveCustomer(ctx, {
    stripeCustomerId,
    clickId: session.client_reference_id ?? session.metadata?.svc_click_id,
    customerId: session.metadata?.svc_customer_id,
    promotionCodes: promotionCodesOf(session),
    email: session.customer_details?.email ?? session.customer_email,
    name: session.customer_details?.name,
    subscriptionId: idOf(session.subscription),
  });
  if ('unknown' in found) return notReferred(found, 'Checkout');
  if ('missing' in found) return found.missing;
  const { customer } = found;
  // A subscription's payments come with its invoices (invoice.paid); a one-off checkout is the payment.
  if (session.mode !== 'payment' || session.payment_status !== 'paid' || session.amount_total == null) {
    return processed('customer_linked', `Checkout ${session.id} linked to customer ${customer.id}`, { customerId: customer.id });
  }
  const paymentIntent = idOf(session.payment_intent);
  const invoiceId = idOf(session.invoice);
  return recordPayment(ctx, {
    customer,
    // With invoice_creation the checkout's invoice is paid too: one key for both events.
    key: invoiceId ?? paymentIntent ?? session.id,
    otherIds: [paymentIntent, session.id],
    amount: revenue(ctx, session.amount_total, session.total_details?.amount_tax ?? 0),
    currency: session.currency ? currencyOf(session.currency) : undefined,
    subscription: false,
    // A session is created before it is paid (up to a day before): the event tells when it completed.
    paidAt: at(event),
  });
};

const onInvoicePaid: Handler = async (ctx, event) => {
  const invoice = parse(Invoice, event.data.object, 'invoice');
  const stripeCustomerId = idOf(invoice.customer);
  const found = await resolveCustomer(ctx, {
    stripeCustomerId,
    ...metadataHints({ ...subscriptionMetadataOf(invoice), ...(invoice.metadata ?? {}) }),
    promotionCodes: promotionCodesOf(invoice),
    email: invoice.customer_email,
    name: invoice.customer_name,
    subscriptionId: subscriptionOf(invoice),
  });
  if ('unknown' in found) return notReferred(found, `Invoice ${invoice.id}`);
  if ('missing' in found) return found.missing;
  const line = invoice.lines?.data[0];
  return recordPayment(ctx, {
    customer: found.customer,
    key: invoice.id,
    otherIds: paymentIdsOf(invoice),
    amount: revenue(ctx, invoice.amount_paid, taxOf(invoice)),
    currency: currencyOf(invoice.currency),
    subscription: subscriptionOf(invoice) !== null,
    interval: intervalOf(line),
    productId: productIdOf(line),
    productName: productNameOf(line),
    paidAt: at(event, invoice.status_transitions?.paid_at),
  });
};

/** From 2025-03-31 this is what says which PaymentIntent and charge paid an invoice; refunds name those. */
const onInvoicePaymentPaid: Handler = async (ctx, event) => {
  const payment = parse(InvoicePayment, event.data.object, 'invoice payment');
  const invoiceId = idOf(payment.invoice)!;
  const transaction = await findRecordedPayment(ctx, [invoiceId]);
  if (!transaction) {
    return ignored('unknown_payment', `Invoice ${invoiceId} has no recorded payment (yet)`, { waitingFor: [invoiceId] });
  }
  await link(ctx, 'payment', [idOf(payment.payment.payment_intent), idOf(payment.payment.charge)], transaction.id);
  return processed('payment_linked', `The payment of invoice ${invoiceId} is linked to ${transaction.id}`, {
    transactionId: transaction.id,
  });
};

/**
 * A charge outside any invoice and outside Checkout (a PaymentIntent made by the merchant's
 * code). Only payloads of API versions before 2025-03-31 say whether an invoice made the
 * charge (`invoice`); a newer charge cannot be told apart from an invoice's, and recording it
 * could count a subscription payment twice, so it is left to invoice.paid and checkout.
 */
const onChargeSucceeded: Handler = async (ctx, event) => {
  const object = event.data.object as Record<string, unknown>;
  const charge = parse(Charge, object, 'charge');
  if (!('invoice' in object)) {
    return ignored(
      'charge_origin_unknown',
      'From API version 2025-03-31 a charge does not say whether an invoice made it; payments are read from invoice.paid and checkout.session.completed',
    );
  }
  if (object.invoice) return ignored('invoice_charge', `Charge ${charge.id} pays an invoice: it is recorded from invoice.paid`);
  if (charge.status !== 'succeeded' || charge.captured === false) {
    return ignored('not_paid', `Charge ${charge.id} did not succeed or is not captured`);
  }
  const found = await resolveCustomer(ctx, {
    stripeCustomerId: idOf(charge.customer),
    ...metadataHints(charge.metadata),
    email: charge.billing_details?.email,
    name: charge.billing_details?.name,
  });
  if ('unknown' in found) return notReferred(found, `Charge ${charge.id}`);
  if ('missing' in found) return found.missing;
  const paymentIntent = idOf(charge.payment_intent);
  return recordPayment(ctx, {
    customer: found.customer,
    key: paymentIntent ?? charge.id,
    otherIds: [charge.id],
    amount: charge.amount,
    currency: currencyOf(charge.currency),
    subscription: false,
    paidAt: at(event, charge.created),
  });
};

/**
 * Stripe sends charge.refunded for every refund, full or partial, with the running total
 * (`amount_refunded`): the transaction is brought up to the same share of its amount, so the
 * event seen twice, or two refunds seen in any order, refund exactly what Stripe refunded.
 */
const onChargeRefunded: Handler = async (ctx, event) => {
  const object = event.data.object as Record<string, unknown>;
  const charge = parse(Charge, object, 'charge');
  const keys = presentIds([charge.id, idOf(charge.payment_intent), typeof object.invoice === 'string' ? object.invoice : null]);
  const before = await findRecordedPayment(ctx, keys);
  if (!before) return ignored('unknown_payment', `No recorded payment for charge ${charge.id} (yet)`, { waitingFor: keys });
  const transactionId = before.id;
  const share = (t: TransactionRow) =>
    charge.amount_refunded >= charge.amount ? t.amount : proportionalShare(charge.amount_refunded, t.amount, charge.amount);
  const after = await refundTransactionUpTo(ctx.db, ctx.integration.organization_id, transactionId, share);
  const more = { transactionId, customerId: after.customer_id };
  if (after.refunded_amount === before.refunded_amount) {
    return ignored('already_refunded', `Transaction ${transactionId} already has ${after.refunded_amount} refunded`, more);
  }
  return processed('refund_applied', `Transaction ${transactionId} now has ${after.refunded_amount} of ${after.amount} refunded`, more);
};

// ---------------------------------------------------------------------------------------------
// Customers and subscriptions told by the merchant's code

/** A Stripe customer made server-side with `metadata.svc_customer_id` or `metadata.svc_click_id`. */
const onCustomer: Handler = async (ctx, event) => {
  const customer = parse(Customer, event.data.object, 'customer');
  const hints = metadataHints(customer.metadata);
  if (!hints.clickId && !hints.customerId) {
    return ignored('no_svc_metadata', `Customer ${customer.id} has no svc_customer_id or svc_click_id metadata`);
  }
  const found = await resolveCustomer(ctx, { stripeCustomerId: customer.id, ...hints, email: customer.email, name: customer.name });
  if ('unknown' in found) return notReferred({ unknown: [] }, `Customer ${customer.id}`);
  if ('missing' in found) return found.missing;
  return processed('customer_linked', `Stripe customer ${customer.id} is customer ${found.customer.id}`, { customerId: found.customer.id });
};

/**
 * A subscription's state on the customer: canceled when it is deleted, trialing while a lead
 * is on trial (a paying customer stays active); its id fills `subscription_id`.
 */
const onSubscription: Handler = async (ctx, event) => {
  const subscription = parse(Subscription, event.data.object, 'subscription');
  // Only the merchant's metadata makes a customer here. A subscription names no e-mail, and a
  // Checkout's subscription arrives before its checkout.session.completed, whose click (or
  // code) then attributes the customer: until that links the Stripe customer, this waits.
  const found = await resolveCustomer(ctx, {
    stripeCustomerId: idOf(subscription.customer),
    ...metadataHints(subscription.metadata),
    subscriptionId: subscription.id,
  });
  if ('unknown' in found) return notReferred(found, `Subscription ${subscription.id}`);
  if ('missing' in found) return found.missing;
  const { customer } = found;
  const deleted = event.type === 'customer.subscription.deleted';
  if (customer.subscription_id !== null && customer.subscription_id !== subscription.id) {
    // A customer with two subscriptions is canceled by neither alone.
    return ignored('other_subscription', `Customer ${customer.id} is on subscription ${customer.subscription_id}, not ${subscription.id}`, {
      customerId: customer.id,
    });
  }
  const status: 'canceled' | 'trialing' | undefined = deleted
    ? 'canceled'
    : subscription.status === 'trialing' && customer.status === 'lead'
      ? 'trialing'
      : undefined;
  const changes: { status?: 'canceled' | 'trialing'; subscription_id?: string } = {
    ...(status && status !== customer.status ? { status } : {}),
    ...(customer.subscription_id === null ? { subscription_id: subscription.id } : {}),
  };
  if (Object.keys(changes).length === 0) {
    return ignored('no_change', `Customer ${customer.id} already reflects subscription ${subscription.id}`, { customerId: customer.id });
  }
  await updateCustomer(ctx.db, ctx.integration.organization_id, customer.id, changes);
  const told = changes.status ? `is now ${changes.status}` : `has subscription ${subscription.id}`;
  return processed(changes.status ? `customer_${changes.status}` : 'customer_updated', `Customer ${customer.id} ${told}`, {
    customerId: customer.id,
  });
};

/** Webhook payloads name promotion codes by id only; these events teach svc their text. */
const onPromotionCode: Handler = async (ctx, event) => {
  const code = parse(PromotionCode, event.data.object, 'promotion code');
  await upsertPromotionCodeLink(ctx.db, ctx.integration.program_id, code.id, code.code);
  ctx.linked.push(code.id);
  return processed('promotion_code_learned', `Promotion code ${code.id} is '${code.code}'`);
};

const HANDLERS: Record<string, Handler> = {
  'checkout.session.completed': onCheckoutCompleted,
  'checkout.session.async_payment_succeeded': onCheckoutCompleted,
  'customer.created': onCustomer,
  'customer.updated': onCustomer,
  'customer.subscription.created': onSubscription,
  'customer.subscription.updated': onSubscription,
  'customer.subscription.deleted': onSubscription,
  'invoice.paid': onInvoicePaid,
  'invoice_payment.paid': onInvoicePaymentPaid,
  'charge.succeeded': onChargeSucceeded,
  'charge.refunded': onChargeRefunded,
  'promotion_code.created': onPromotionCode,
  'promotion_code.updated': onPromotionCode,
};

/**
 * Handled, but not to enable by default: a Checkout payment arrives as checkout.session.completed
 * too, with its tax known, while a charge does not tell its tax; it is for one-off payments
 * made by the merchant's own code (ingest/docs/stripe.md).
 */
export const OPTIONAL_EVENT_TYPES = ['charge.succeeded'];

/** The event types to enable on the merchant's Stripe webhook endpoint. */
export const EVENTS_TO_ENABLE = Object.keys(HANDLERS).filter((type) => !OPTIONAL_EVENT_TYPES.includes(type));

export function handleEvent(ctx: EventContext, event: StripeEvent): Promise<Outcome> {
  const handler = HANDLERS[event.type];
  if (!handler) return Promise.resolve(ignored('unhandled_type', `svc does not act on ${event.type} events`));
  return handler(ctx, event);
}
