import { describe, expect, it } from 'vitest';
import { RATE_WINDOW_SECONDS } from '../../src/http/rate-limit.js';
import {
  type ApiObject,
  clickOf,
  createCustomer,
  createPartner,
  createProgram,
  createPromotionCode,
  type TestOrg,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { STORAGE, type TestApp, warmPool } from '../support/harness.js';
import {
  charge,
  checkoutSession,
  invoice,
  invoicePayment,
  newWebhookSecret,
  promotionCode,
  type StripeEventFixture,
  signStripeEvent,
  stripeCustomer,
  stripeEvent,
  stripeId,
  subscription,
} from '../support/stripe-events.js';
import { sendWhileTerminated } from '../support/terminate.js';
import { inOneWindow } from '../support/time.js';

const integrationPath = (programId: string) => `/v1/programs/${programId}/integrations/stripe`;
const webhookPath = (programId: string) => `/v1/integrations/stripe/webhook/${programId}`;

/** PUT the connection with a fresh secret (expects 200); returns the secret. */
async function connect(t: TestApp, org: TestOrg, options: Record<string, unknown> = {}): Promise<string> {
  const secret = newWebhookSecret();
  const res = await t.request
    .put(integrationPath(org.program_id))
    .set(org.auth)
    .send({ webhook_secret: secret, ...options });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return secret;
}

/** What Stripe does: POST the signed event to the program's webhook URL. */
function deliver(t: TestApp, org: TestOrg, secret: string, event: StripeEventFixture) {
  const { body, signature } = signStripeEvent(event, secret);
  return t.request.post(webhookPath(org.program_id)).set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(body);
}

/** A partner, a click of theirs, and Stripe ids for the customer and subscription their referral will have. */
async function referral(t: TestApp, org: TestOrg) {
  const partner = await createPartner(t, org);
  const click = await clickOf(t, org, partner);
  return { partner, click, cus: stripeId('cus'), sub: stripeId('sub') };
}

/** Delivers the checkout.session.completed Stripe sends for this session (expects 200); returns the receipt. */
function checkedOut(t: TestApp, org: TestOrg, secret: string, session: Parameters<typeof checkoutSession>[0]) {
  return delivered(t, org, secret, stripeEvent('checkout.session.completed', checkoutSession(session)));
}

/** Delivers and expects 200; returns the receipt. */
async function delivered(t: TestApp, org: TestOrg, secret: string, event: StripeEventFixture): Promise<ApiObject> {
  const res = await deliver(t, org, secret, event);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function list(t: TestApp, org: TestOrg, path: string, query: Record<string, unknown>): Promise<ApiObject[]> {
  const res = await t.request
    .get(path)
    .set(org.auth)
    .query({ program_id: org.program_id, limit: 100, order: 'asc', ...query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // The customers list nests its page one level deeper, as the specification has it.
  return Array.isArray(res.body.data) ? res.body.data : res.body.data.data;
}

const customersOf = (t: TestApp, org: TestOrg, partnerId: string) => list(t, org, '/v1/customers', { partner_id: partnerId });
const transactionsOf = (t: TestApp, org: TestOrg, customerId: string) => list(t, org, '/v1/transactions', { customer_id: customerId });
const commissionsOfCustomer = async (t: TestApp, org: TestOrg, customerId: string) =>
  (await list(t, org, '/v1/commissions', {})).filter((c) => c.customer_id === customerId);
const stripeEvents = (t: TestApp, org: TestOrg, query: Record<string, unknown> = {}) =>
  list(t, org, `${integrationPath(org.program_id)}/events`, { program_id: undefined, ...query });

async function customer(t: TestApp, org: TestOrg, id: string): Promise<ApiObject> {
  const res = await t.request.get(`/v1/customers/${id}`).set(org.auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('connecting Stripe to a program', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });

  it('keeps the secret, shows it redacted with the URL and the events to enable, and disconnects', async () => {
    const before = await t.request.get(integrationPath(org.program_id)).set(org.auth);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ connected: false, webhook_secret: null, connected_at: null });

    const secret = newWebhookSecret();
    const put = await t.request.put(integrationPath(org.program_id)).set(org.auth).send({ webhook_secret: secret });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const state = put.body.data;
    expect(state).toMatchObject({
      program_id: org.program_id,
      connected: true,
      webhook_secret: `whsec_…${secret.slice(-4)}`,
      tax_counts_as_revenue: false,
      event_counts: { processed: 0, ignored: 0, failed: 0, error: 0 },
      last_event_at: null,
    });
    expect(JSON.stringify(put.body)).not.toContain(secret);
    expect(state.webhook_url).toBe(`${t.deps.config.publicUrl}${webhookPath(org.program_id)}`);
    expect(state.events_to_enable).toEqual(expect.arrayContaining(['checkout.session.completed', 'invoice.paid', 'charge.refunded']));

    // Options change without repeating the secret.
    const options = await t.request.put(integrationPath(org.program_id)).set(org.auth).send({ tax_counts_as_revenue: true });
    expect(options.body.data).toMatchObject({ tax_counts_as_revenue: true, webhook_secret: `whsec_…${secret.slice(-4)}` });

    const event = stripeEvent('customer.created', stripeCustomer({}));
    expect((await delivered(t, org, secret, event)).status).toBe('ignored');

    const del = await t.request.delete(integrationPath(org.program_id)).set(org.auth);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ id: org.program_id, deleted: true });
    expect((await t.request.get(integrationPath(org.program_id)).set(org.auth)).body.data.connected).toBe(false);
    const after = await deliver(t, org, secret, stripeEvent('customer.created', stripeCustomer({})));
    expect(after.status).toBe(404);
    expect((await t.request.delete(integrationPath(org.program_id)).set(org.auth)).status).toBe(404);
  });

  it('refuses what is not a signing secret, a first connection without one, and other organizations', async () => {
    const program = other.program_id;
    for (const body of [{ webhook_secret: 'sk_live_123456789' }, { webhook_secret: 'whsec_' }, { webhook_secret: 42 }, { extra: 1 }]) {
      const res = await t.request.put(integrationPath(program)).set(other.auth).send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const noSecret = await t.request.put(integrationPath(program)).set(other.auth).send({ tax_counts_as_revenue: true });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.error.param).toBe('webhook_secret');
    expect((await t.request.get(integrationPath(program)).set(other.auth)).body.data.connected).toBe(false);

    const foreign = await t.request.put(integrationPath(program)).set(org.auth).send({ webhook_secret: newWebhookSecret() });
    expect(foreign.status).toBe(404);
    expect((await t.request.get(`${integrationPath(program)}/events`).set(org.auth)).status).toBe(404);
    expect((await t.request.get(integrationPath(program)).set({})).status).toBe(401);
  });
});

describe('the Stripe webhook', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('refuses a bad, missing or stale signature with 400 and writes nothing', async () => {
    const secret = await connect(t, org);
    const event = stripeEvent('customer.created', stripeCustomer({}));
    const { body, signature } = signStripeEvent(event, newWebhookSecret());
    const post = (sig: string | undefined, payload = body) => {
      const req = t.request.post(webhookPath(org.program_id)).set('Content-Type', 'application/json');
      return (sig ? req.set('Stripe-Signature', sig) : req).send(payload);
    };
    const wrongSecret = await post(signature);
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body.error).toMatchObject({ type: 'invalid_request_error', param: 'Stripe-Signature' });
    expect((await post(undefined)).status).toBe(400);
    // A body changed after signing.
    const good = signStripeEvent(event, secret);
    expect((await post(good.signature, good.body.replace('customer.created', 'customer.updated'))).status).toBe(400);
    // Signed ten minutes ago: outside the five-minute tolerance.
    const stale = signStripeEvent(event, secret, Math.floor(Date.now() / 1000) - 600);
    expect((await post(stale.signature, stale.body)).status).toBe(400);
    expect(await stripeEvents(t, org)).toEqual([]);

    expect((await post(good.signature, good.body)).status).toBe(200);
    expect(await stripeEvents(t, org)).toHaveLength(1);
  });

  it('answers 404 for a program without Stripe, and for an unknown program', async () => {
    const event = stripeEvent('customer.created', stripeCustomer({}));
    const { body, signature } = signStripeEvent(event, newWebhookSecret());
    const res = await t.request
      .post(webhookPath('prg_nope'))
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', signature)
      .send(body);
    expect(res.status).toBe(404);
  });
});

describe('a referred Stripe customer, from checkout to cancellation', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('makes a lead at checkout, records every paid invoice with its commission, applies refunds and cancels', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus, sub } = await referral(t, org);

    // Checkout with the click id svc.js put on the payment link.
    const checkout = await delivered(
      t,
      org,
      secret,
      stripeEvent(
        'checkout.session.completed',
        checkoutSession({ clickId: click.id, customer: cus, subscription: sub, email: 'carol@example.com' }),
      ),
    );
    expect(checkout).toMatchObject({ status: 'processed', reason: 'customer_linked', duplicate: false });
    const [lead] = await customersOf(t, org, partner.id);
    expect(lead).toMatchObject({ email: 'carol@example.com', status: 'lead', click_id: click.id, customer_id: cus, subscription_id: sub });

    // The first invoice: a transaction and the default flow's 20 %.
    const first = invoice({ customer: cus, subscription: sub, amountPaid: 4900, productName: 'Pro Plan' });
    const paid = await delivered(t, org, secret, stripeEvent('invoice.paid', first));
    expect(paid).toMatchObject({ status: 'processed', reason: 'payment_recorded' });
    let transactions = await transactionsOf(t, org, lead.id);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({
      amount: 4900,
      currency: 'USD',
      charge_id: first.id,
      billing_type: 'subscription',
      interval: 'month',
      product_name: 'Pro Plan',
      source: 'stripe',
      status: 'paid',
    });
    expect((await customer(t, org, lead.id)).status).toBe('active');
    expect((await commissionsOfCustomer(t, org, lead.id)).map((c) => c.amount)).toEqual([980]);

    // A renewal is a new payment; the flow pays again.
    const renewal = invoice({ customer: cus, subscription: sub, amountPaid: 4900, paidAt: Math.floor(Date.now() / 1000) + 60 });
    await delivered(t, org, secret, stripeEvent('invoice.paid', renewal));
    transactions = await transactionsOf(t, org, lead.id);
    expect(transactions.map((x) => x.charge_id)).toEqual([first.id, renewal.id]);
    expect((await commissionsOfCustomer(t, org, lead.id)).map((c) => c.amount)).toEqual([980, 980]);

    // The renewal's PaymentIntent and charge, then a partial and a full refund of that charge.
    const pi = stripeId('pi');
    const ch = stripeId('ch');
    expect(
      (
        await delivered(
          t,
          org,
          secret,
          stripeEvent('invoice_payment.paid', invoicePayment({ invoice: renewal.id as string, paymentIntent: pi, charge: ch })),
        )
      ).reason,
    ).toBe('payment_linked');
    const partial = await delivered(
      t,
      org,
      secret,
      stripeEvent('charge.refunded', charge({ id: ch, paymentIntent: pi, amountRefunded: 1225 })),
    );
    expect(partial).toMatchObject({ status: 'processed', reason: 'refund_applied' });
    let refunded = (await transactionsOf(t, org, lead.id))[1];
    expect(refunded).toMatchObject({ status: 'partially_refunded', refunded_amount: 1225 });
    const full = await delivered(
      t,
      org,
      secret,
      stripeEvent('charge.refunded', charge({ id: ch, paymentIntent: pi, amountRefunded: 4900 })),
    );
    expect(full.status).toBe('processed');
    refunded = (await transactionsOf(t, org, lead.id))[1];
    expect(refunded).toMatchObject({ status: 'refunded', refunded_amount: 4900 });
    const renewalCommission = (await commissionsOfCustomer(t, org, lead.id)).find((c) => c.transaction_id === refunded.id);
    expect(renewalCommission?.status).toBe('refunded');

    // Cancellation.
    const canceled = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.subscription.deleted', subscription({ id: sub, customer: cus, status: 'canceled' })),
    );
    expect(canceled).toMatchObject({ status: 'processed', reason: 'customer_canceled' });
    expect((await customer(t, org, lead.id)).status).toBe('canceled');

    const state = (await t.request.get(integrationPath(org.program_id)).set(org.auth)).body.data;
    expect(state.event_counts).toEqual({ processed: 7, ignored: 0, failed: 0, error: 0 });
    expect(state.last_event_at).not.toBeNull();
    const events = await stripeEvents(t, org);
    expect(events.map((e) => [e.type, e.status])).toEqual([
      ['checkout.session.completed', 'processed'],
      ['invoice.paid', 'processed'],
      ['invoice.paid', 'processed'],
      ['invoice_payment.paid', 'processed'],
      ['charge.refunded', 'processed'],
      ['charge.refunded', 'processed'],
      ['customer.subscription.deleted', 'processed'],
    ]);
    expect(events[1]).toMatchObject({ customer_id: lead.id, transaction_id: transactions[0].id, waiting_for: null, attempts: 1 });
  });

  it('reads payloads of endpoints pinned before 2025-03-31, and leaves tax out of revenue unless told', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus } = await referral(t, org);
    await delivered(
      t,
      org,
      secret,
      stripeEvent('checkout.session.completed', checkoutSession({ clickId: click.id, customer: cus, email: 'legacy@example.com' }), {
        shape: 'legacy',
      }),
    );
    const [lead] = await customersOf(t, org, partner.id);

    const taxed = invoice({ customer: cus, shape: 'legacy', amountPaid: 5900, tax: 1000, interval: 'year' });
    await delivered(t, org, secret, stripeEvent('invoice.paid', taxed, { shape: 'legacy' }));
    const [transaction] = await transactionsOf(t, org, lead.id);
    expect(transaction).toMatchObject({ amount: 4900, interval: 'year', billing_type: 'subscription', product_id: 'prod_Pro' });

    // The legacy invoice named its charge: its refund needs no invoice_payment.paid. Half the
    // charge (tax included) refunds half the revenue.
    const half = charge({
      id: taxed.charge as string,
      paymentIntent: taxed.payment_intent as string,
      amount: 5900,
      amountRefunded: 2950,
      invoice: taxed.id as string,
    });
    await delivered(t, org, secret, stripeEvent('charge.refunded', half, { shape: 'legacy' }));
    expect((await transactionsOf(t, org, lead.id))[0]).toMatchObject({ refunded_amount: 2450, status: 'partially_refunded' });

    await t.request.put(integrationPath(org.program_id)).set(org.auth).send({ tax_counts_as_revenue: true });
    await delivered(
      t,
      org,
      secret,
      stripeEvent('invoice.paid', invoice({ customer: cus, shape: 'legacy', amountPaid: 5900, tax: 1000 }), { shape: 'legacy' }),
    );
    expect((await transactionsOf(t, org, lead.id)).map((x) => x.amount).sort()).toEqual([4900, 5900]);
  });

  it('marks a lead on trial as trialing', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus, sub } = await referral(t, org);
    const session = checkoutSession({ clickId: click.id, customer: cus, subscription: sub, email: 'trial@example.com' });
    await delivered(t, org, secret, stripeEvent('checkout.session.completed', session));
    const trial = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.subscription.updated', subscription({ id: sub, customer: cus, status: 'trialing' })),
    );
    expect(trial).toMatchObject({ status: 'processed', reason: 'customer_trialing' });
    const [lead] = await customersOf(t, org, partner.id);
    expect(lead.status).toBe('trialing');
    // A trial's €0 invoice is no payment.
    const zero = await delivered(t, org, secret, stripeEvent('invoice.paid', invoice({ customer: cus, amountPaid: 0 })));
    expect(zero).toMatchObject({ status: 'ignored', reason: 'nothing_paid' });
    expect(await transactionsOf(t, org, lead.id)).toEqual([]);
  });
});

describe('attribution without a click', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it("attributes a checkout that used a partner's promotion code, also when Stripe tells the code's text later", async () => {
    const secret = await connect(t, org);
    const partner = await createPartner(t, org);
    const code = await createPromotionCode(t, org, { partner_id: partner.id });
    const promo = stripeId('promo');

    // The checkout arrives before promotion_code.created: it waits for the code's text.
    const cus = stripeId('cus');
    const early = await delivered(
      t,
      org,
      secret,
      stripeEvent('checkout.session.completed', checkoutSession({ customer: cus, email: 'dana@example.com', promotionCode: promo })),
    );
    expect(early).toMatchObject({ status: 'ignored', reason: 'unknown_customer' });
    expect(await customersOf(t, org, partner.id)).toEqual([]);
    const [waiting] = await stripeEvents(t, org, { status: 'ignored' });
    expect(waiting.waiting_for).toEqual([cus, promo]);

    const learned = await delivered(
      t,
      org,
      secret,
      stripeEvent('promotion_code.created', promotionCode({ id: promo, code: code.code.toLowerCase() })),
    );
    expect(learned.reason).toBe('promotion_code_learned');
    const [dana] = await customersOf(t, org, partner.id);
    expect(dana).toMatchObject({ email: 'dana@example.com', click_id: null, promotion_code_id: code.id, customer_id: cus });
    expect((await stripeEvents(t, org, { type: 'checkout.session.completed' }))[0]).toMatchObject({
      status: 'processed',
      waiting_for: null,
      customer_id: dana.id,
    });

    // Its invoices pay the partner.
    await delivered(t, org, secret, stripeEvent('invoice.paid', invoice({ customer: cus, amountPaid: 10_000 })));
    expect((await commissionsOfCustomer(t, org, dana.id)).map((c) => c.amount)).toEqual([2000]);
  });

  it('maps a Stripe customer made server-side with svc metadata', async () => {
    const secret = await connect(t, org);
    const partner = await createPartner(t, org);
    const known = await createCustomer(t, org, partner);
    const cus = stripeId('cus');
    const linked = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.created', stripeCustomer({ id: cus, metadata: { svc_customer_id: known.id } })),
    );
    expect(linked).toMatchObject({ status: 'processed', reason: 'customer_linked' });
    await delivered(t, org, secret, stripeEvent('invoice.paid', invoice({ customer: cus })));
    expect(await transactionsOf(t, org, known.id)).toHaveLength(1);

    // A click id on the subscription's metadata, copied onto its invoice by Stripe.
    const click = await clickOf(t, org, partner);
    const cus2 = stripeId('cus');
    await delivered(
      t,
      org,
      secret,
      stripeEvent('invoice.paid', invoice({ customer: cus2, email: 'erin@example.com', subscriptionMetadata: { svc_click_id: click.id } })),
    );
    const erin = (await customersOf(t, org, partner.id)).find((c) => c.email === 'erin@example.com');
    expect(erin).toMatchObject({ click_id: click.id, customer_id: cus2, status: 'active' });
    expect(await transactionsOf(t, org, erin!.id)).toHaveLength(1);

    // Metadata naming a customer that does not exist can never take effect: failed, answered 2xx.
    const bad = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.updated', stripeCustomer({ metadata: { svc_customer_id: 'cust_nope' } })),
    );
    expect(bad).toMatchObject({ status: 'failed', reason: 'unusable_event' });
  });

  it('finds the lead svc.js made at signup instead of making a second one', async () => {
    const secret = await connect(t, org);
    const { partner, click } = await referral(t, org);
    const lead = await createCustomer(t, org, partner, { click_id: click.id, email: 'frank@example.com' });
    const cus = stripeId('cus');
    await checkedOut(t, org, secret, { clickId: click.id, customer: cus, email: 'frank+stripe@example.com' });
    expect((await customersOf(t, org, partner.id)).filter((c) => c.click_id === click.id).map((c) => c.id)).toEqual([lead.id]);
    await delivered(t, org, secret, stripeEvent('invoice.paid', invoice({ customer: cus })));
    expect(await transactionsOf(t, org, lead.id)).toHaveLength(1);
  });
});

describe('one-off payments', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('records a paid checkout once, also when the charge arrives too', async () => {
    const secret = await connect(t, org);
    const { partner, click } = await referral(t, org);
    const pi = stripeId('pi');
    const session = checkoutSession({
      clickId: click.id,
      mode: 'payment',
      paymentIntent: pi,
      email: 'gus@example.com',
      amountTotal: 2500,
      tax: 500,
    });
    expect((await delivered(t, org, secret, stripeEvent('checkout.session.completed', session))).reason).toBe('payment_recorded');
    const [gus] = await customersOf(t, org, partner.id);
    const one = charge({ paymentIntent: pi, amount: 2500, invoice: null, email: 'gus@example.com', metadata: { svc_customer_id: gus.id } });
    expect((await delivered(t, org, secret, stripeEvent('charge.succeeded', one, { shape: 'legacy' }))).reason).toBe('already_recorded');
    const transactions = await transactionsOf(t, org, gus.id);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ amount: 2000, billing_type: 'one_time', interval: null, charge_id: pi });
  });

  it('records a charge made outside checkout and invoices, but not one whose payload cannot say', async () => {
    const secret = await connect(t, org);
    const partner = await createPartner(t, org);
    const known = await createCustomer(t, org, partner);
    const legacy = charge({ amount: 1500, invoice: null, metadata: { svc_customer_id: known.id } });
    expect((await delivered(t, org, secret, stripeEvent('charge.succeeded', legacy, { shape: 'legacy' }))).reason).toBe('payment_recorded');
    const ofInvoice = charge({ amount: 1500, invoice: stripeId('in'), metadata: { svc_customer_id: known.id } });
    expect((await delivered(t, org, secret, stripeEvent('charge.succeeded', ofInvoice, { shape: 'legacy' }))).reason).toBe(
      'invoice_charge',
    );
    const basil = charge({ amount: 1500, metadata: { svc_customer_id: known.id } });
    expect((await delivered(t, org, secret, stripeEvent('charge.succeeded', basil))).reason).toBe('charge_origin_unknown');
    expect((await transactionsOf(t, org, known.id)).map((x) => x.amount)).toEqual([1500]);
  });
});

describe('one payment, several events', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('records a checkout that made an invoice, and that invoice, as one payment', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus } = await referral(t, org);
    const inv = stripeId('in');
    const session = checkoutSession({
      clickId: click.id,
      customer: cus,
      mode: 'payment',
      invoice: inv,
      email: 'lee@example.com',
      amountTotal: 3000,
    });
    expect((await delivered(t, org, secret, stripeEvent('checkout.session.completed', session))).reason).toBe('payment_recorded');
    const paid = await delivered(
      t,
      org,
      secret,
      stripeEvent('invoice.paid', invoice({ id: inv, customer: cus, subscription: null, amountPaid: 3000 })),
    );
    expect(paid.reason).toBe('already_recorded');
    const [lee] = await customersOf(t, org, partner.id);
    const transactions = await transactionsOf(t, org, lee.id);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ charge_id: inv, amount: 3000 });
  });

  it('finds a payment reported through the API under its PaymentIntent id', async () => {
    const secret = await connect(t, org);
    const { partner, click } = await referral(t, org);
    const mia = await createCustomer(t, org, partner, { click_id: click.id, email: 'mia@example.com' });
    const pi = stripeId('pi');
    const reported = await t.request.post('/v1/transactions').set(org.auth).send({ customer_id: mia.id, amount: 2000, charge_id: pi });
    expect(reported.status).toBe(201);
    const session = checkoutSession({
      clickId: click.id,
      customer: stripeId('cus'),
      mode: 'payment',
      paymentIntent: pi,
      email: 'mia@example.com',
      amountTotal: 2000,
    });
    const checkout = await delivered(t, org, secret, stripeEvent('checkout.session.completed', session));
    expect(checkout, JSON.stringify(checkout)).toMatchObject({ reason: 'already_recorded' });
    expect(await transactionsOf(t, org, mia.id)).toHaveLength(1);
    // Its refund in Stripe reaches it.
    await delivered(t, org, secret, stripeEvent('charge.refunded', charge({ paymentIntent: pi, amount: 2000, amountRefunded: 500 })));
    expect((await transactionsOf(t, org, mia.id))[0]).toMatchObject({ refunded_amount: 500 });
  });
});

describe('subscriptions and other programs', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it("lets a subscription that arrives before its checkout wait, so that the checkout's click attributes", async () => {
    const secret = await connect(t, org);
    const [clicked, coded] = [await createPartner(t, org), await createPartner(t, org)];
    const click = await clickOf(t, org, clicked);
    const code = await createPromotionCode(t, org, { partner_id: coded.id });
    const promo = stripeId('promo');
    await delivered(t, org, secret, stripeEvent('promotion_code.created', promotionCode({ id: promo, code: code.code })));
    const cus = stripeId('cus');
    const sub = stripeId('sub');
    const early = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.subscription.created', subscription({ id: sub, customer: cus, status: 'trialing', promotionCode: promo }), {
        shape: 'legacy',
      }),
    );
    expect(early).toMatchObject({ status: 'ignored', reason: 'unknown_customer' });
    await delivered(
      t,
      org,
      secret,
      stripeEvent(
        'checkout.session.completed',
        checkoutSession({ clickId: click.id, customer: cus, subscription: sub, email: 'ned@example.com', promotionCode: promo }),
      ),
    );
    expect(await customersOf(t, org, coded.id)).toEqual([]);
    const [ned] = await customersOf(t, org, clicked.id);
    // The click attributed; the code still applies to the customer's payments; the waiting
    // subscription then made the lead trialing.
    expect(ned).toMatchObject({
      email: 'ned@example.com',
      click_id: click.id,
      status: 'trialing',
      subscription_id: sub,
      promotion_code_id: null,
    });
  });

  it('cancels a customer only with the subscription svc knows', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus, sub } = await referral(t, org);
    await delivered(
      t,
      org,
      secret,
      stripeEvent(
        'checkout.session.completed',
        checkoutSession({ clickId: click.id, customer: cus, subscription: sub, email: 'olga@example.com' }),
      ),
    );
    const other = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.subscription.deleted', subscription({ customer: cus, status: 'canceled' })),
    );
    expect(other).toMatchObject({ status: 'ignored', reason: 'other_subscription' });
    const [olga] = await customersOf(t, org, partner.id);
    expect(olga.status).toBe('lead');
  });

  it("leaves alone a Stripe customer whose metadata names another program's customer", async () => {
    const secret = await connect(t, org);
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id });
    const elsewhere = await createCustomer(t, org, partner);
    const res = await delivered(
      t,
      org,
      secret,
      stripeEvent('customer.created', stripeCustomer({ metadata: { svc_customer_id: elsewhere.id } })),
    );
    expect(res).toMatchObject({ status: 'ignored', reason: 'unknown_customer' });
  });
});

describe('events out of order, twice, unknown or unusable', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('records an invoice paid before its checkout, and a refund before its payment, once they can be', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus } = await referral(t, org);
    const inv = invoice({ customer: cus, amountPaid: 3000 });
    const pi = stripeId('pi');
    const base = Math.floor(Date.now() / 1000);

    const refundFirst = await delivered(
      t,
      org,
      secret,
      stripeEvent('charge.refunded', charge({ paymentIntent: pi, amount: 3000, amountRefunded: 3000 }), { created: base + 3 }),
    );
    expect(refundFirst).toMatchObject({ status: 'ignored', reason: 'unknown_payment' });
    const paymentLink = await delivered(
      t,
      org,
      secret,
      stripeEvent('invoice_payment.paid', invoicePayment({ invoice: inv.id as string, paymentIntent: pi }), { created: base + 2 }),
    );
    expect(paymentLink.reason).toBe('unknown_payment');
    const paidFirst = await delivered(t, org, secret, stripeEvent('invoice.paid', inv, { created: base + 1 }));
    expect(paidFirst).toMatchObject({ status: 'ignored', reason: 'unknown_customer' });
    expect(await customersOf(t, org, partner.id)).toEqual([]);

    const checkout = await delivered(
      t,
      org,
      secret,
      stripeEvent('checkout.session.completed', checkoutSession({ clickId: click.id, customer: cus, email: 'hal@example.com' }), {
        created: base,
      }),
    );
    expect(checkout.status).toBe('processed');
    const [hal] = await customersOf(t, org, partner.id);
    const [transaction] = await transactionsOf(t, org, hal.id);
    expect(transaction).toMatchObject({ amount: 3000, status: 'refunded', refunded_amount: 3000, charge_id: inv.id });
    const events = await stripeEvents(t, org);
    expect(events.map((e) => [e.type, e.status, e.reason, e.attempts])).toEqual([
      // Each ran twice: when delivered, and when what it waited for arrived.
      ['charge.refunded', 'processed', 'refund_applied', 2],
      ['invoice_payment.paid', 'processed', 'payment_linked', 2],
      ['invoice.paid', 'processed', 'payment_recorded', 2],
      ['checkout.session.completed', 'processed', 'customer_linked', 1],
    ]);
  });

  it('does an event once however often it is delivered', async () => {
    const secret = await connect(t, org);
    const { partner, click, cus } = await referral(t, org);
    await checkedOut(t, org, secret, { clickId: click.id, customer: cus, email: 'ivy@example.com' });
    const paid = stripeEvent('invoice.paid', invoice({ customer: cus }));
    expect((await delivered(t, org, secret, paid)).duplicate).toBe(false);
    const again = await delivered(t, org, secret, paid);
    expect(again).toMatchObject({ duplicate: true, status: 'processed', reason: 'payment_recorded' });
    // The same payment in another event (Stripe's event ids differ per event, not per object).
    const resent = await delivered(t, org, secret, stripeEvent('invoice.paid', paid.data.object));
    expect(resent).toMatchObject({ duplicate: false, reason: 'already_recorded' });
    const [ivy] = await customersOf(t, org, partner.id);
    expect(await transactionsOf(t, org, ivy.id)).toHaveLength(1);
    expect((await stripeEvents(t, org, { type: 'invoice.paid' })).filter((e) => e.id === paid.id)).toHaveLength(1);
  });

  it('acknowledges events of customers nobody referred, and of types it does not act on, creating nothing', async () => {
    const secret = await connect(t, org);
    const before = await list(t, org, '/v1/transactions', {});
    const stranger = await delivered(t, org, secret, stripeEvent('invoice.paid', invoice({ customer: stripeId('cus') })));
    expect(stranger).toMatchObject({ status: 'ignored', reason: 'unknown_customer' });
    const walkIn = await delivered(
      t,
      org,
      secret,
      stripeEvent('checkout.session.completed', checkoutSession({ customer: stripeId('cus'), email: 'walkin@example.com' })),
    );
    expect(walkIn.reason).toBe('unknown_customer');
    const other = await delivered(t, org, secret, stripeEvent('payout.paid', { id: stripeId('po'), object: 'payout', amount: 100 }));
    expect(other).toMatchObject({ status: 'ignored', reason: 'unhandled_type' });
    expect(await list(t, org, '/v1/transactions', {})).toEqual(before);
    // A checkout with a click id svc never made is a checkout nobody referred.
    const foreign = await delivered(
      t,
      org,
      secret,
      stripeEvent('checkout.session.completed', checkoutSession({ clickId: 'user_42', customer: stripeId('cus') })),
    );
    expect(foreign.reason).toBe('unknown_customer');
  });

  it('records an event it cannot read as failed and answers 2xx, so Stripe stops sending it', async () => {
    const secret = await connect(t, org);
    const malformed = stripeEvent('invoice.paid', { id: stripeId('in'), object: 'invoice', customer: stripeId('cus'), currency: 'usd' });
    const res = await delivered(t, org, secret, malformed);
    expect(res).toMatchObject({ status: 'failed', reason: 'unusable_event' });
    expect(res.message).toContain('amount_paid');
    const notAnEvent = signStripeEvent({ hello: 'world' }, secret);
    const bad = await t.request
      .post(webhookPath(org.program_id))
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', notAnEvent.signature)
      .send(notAnEvent.body);
    expect(bad.status).toBe(400);
  });
});

describe('one event delivered to two processes at once', () => {
  const first = useTestApp({ orgs: 1 });
  const second = useTestApp({ sharesStorageWith: first.t });

  it('takes effect once', async () => {
    const { t } = first;
    const [org] = first.orgs;
    const secret = await connect(t, org);
    const { partner, click, cus } = await referral(t, org);
    const checkout = stripeEvent(
      'checkout.session.completed',
      checkoutSession({ clickId: click.id, customer: cus, email: 'jo@example.com' }),
    );
    const paid = stripeEvent('invoice.paid', invoice({ customer: cus, amountPaid: 5000 }));
    for (const event of [checkout, paid]) {
      const answers = await Promise.all([deliver(first.t, org, secret, event), deliver(second.t, org, secret, event)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.map((a) => a.body.data.duplicate).sort()).toEqual([false, true]);
    }
    const [jo] = await customersOf(t, org, partner.id);
    expect(await customersOf(t, org, partner.id)).toHaveLength(1);
    expect(await transactionsOf(t, org, jo.id)).toHaveLength(1);
    expect((await commissionsOfCustomer(t, org, jo.id)).map((c) => c.amount)).toEqual([1000]);
  });
});

describe.skipIf(STORAGE === 'embedded')('an event whose SQL connection is terminated mid-delivery', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('answers 503, records no payment, and the next delivery records it once', async () => {
    await warmPool(t);
    const secret = await connect(t, org);
    const { partner, click, cus } = await referral(t, org);
    await checkedOut(t, org, secret, { clickId: click.id, customer: cus, email: 'kim@example.com' });
    const [kim] = await customersOf(t, org, partner.id);
    const paid = stripeEvent('invoice.paid', invoice({ customer: cus }));

    const cut = await sendWhileTerminated(t, 'transactions', () => deliver(t, org, secret, paid));
    expect(cut.status).toBe(503);
    expect(await transactionsOf(t, org, kim.id)).toEqual([]);
    expect((await stripeEvents(t, org, { type: 'invoice.paid' }))[0]).toMatchObject({ status: 'error', reason: 'processing_error' });

    // Stripe delivers it again.
    expect(await delivered(t, org, secret, paid)).toMatchObject({ status: 'processed', duplicate: false });
    expect(await transactionsOf(t, org, kim.id)).toHaveLength(1);
    expect((await stripeEvents(t, org, { type: 'invoice.paid' }))[0]).toMatchObject({ status: 'processed', attempts: 2 });
  });
});

describe('the Stripe webhook under a flood', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1, env: { SVC_STRIPE_RATE_LIMIT: '2', SVC_TRUST_PROXY: 'true' } });

  it('limits deliveries per address before anything else, with Retry-After', async () => {
    // The limit counts a real second: each run that outlasts it is made again from another address.
    await inOneWindow(RATE_WINDOW_SECONDS * 1000, async (attempt) => {
      const post = () =>
        t.request
          .post(webhookPath(org.program_id))
          .set({ 'Content-Type': 'application/json', 'X-Forwarded-For': `198.51.100.${attempt}` })
          .send('{}');
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await post()).status);
      expect(statuses).toEqual([400, 400, 429]);
      const limited = await post();
      expect(limited.headers['retry-after']).toBe('1');
    });
  });
});
