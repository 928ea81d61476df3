import type { StripeWebhookReceiptObject } from '../ingest/src/resources/stripe/stripe.schema.js';
import {
  checkoutSession,
  invoice,
  newWebhookSecret,
  signStripeEvent,
  stripeEvent,
  stripeId,
} from '../ingest/test/support/stripe-events.js';
import { customersOf, expect, partnerStats, type SvcData, test, uniqueEmail } from './support/fixtures.js';

/**
 * Stripe in (ingest/docs/stripe.md): the demo's payment link carries the click id as
 * client_reference_id, and the events Stripe then sends for that checkout turn the click into a
 * paying customer and a commission of the partner. buy.stripe.com is never reached: the navigation
 * is stopped in the browser, and the test posts the signed events Stripe would send to the
 * program's webhook URL.
 */

test('Stripe payment link → checkout.session.completed + invoice.paid → a 20% commission of $9.80 for the partner', async ({
  visitor,
  referral,
  api,
  demo,
}) => {
  // The demo program's flows decide the commission: its default flow alone, 20% of every payment.
  const flows = (await api.get(`/v1/flows?program_id=${demo.program_id}&active=true`)).data;
  expect(flows.map((f) => ({ trigger: f.trigger, conditions: f.conditions, reward: f.reward, group_id: f.group_id }))).toEqual([
    { trigger: 'payment', conditions: [], reward: { type: 'percentage', value: 20 }, group_id: null },
  ]);

  // Connect Stripe to the demo program (the only spec that does; one test, so one secret).
  const secret = newWebhookSecret();
  const connected = await api.put(`/v1/programs/${demo.program_id}/integrations/stripe`, { webhook_secret: secret });
  const webhookUrl = `${demo.ingestUrl}/v1/integrations/stripe/webhook/${demo.program_id}`;
  expect(connected.data).toMatchObject({ program_id: demo.program_id, connected: true, webhook_url: webhookUrl });
  expect(connected.data.events_to_enable).toEqual(expect.arrayContaining(['checkout.session.completed', 'invoice.paid']));

  const link = await referral();
  const v = await visitor();
  await v.arrive(link.path);
  const data = (await v.clicked()).response!.body.data as SvcData;
  expect(data).toMatchObject({ partner_id: link.partnerId, program_id: demo.program_id, customer_id: null });
  expect((await v.referralCookies()).svcData?.click_id).toBe(data.click_id);

  // On to the pricing page (the referral now comes from the cookie), and the demo's Stripe
  // payment link; the browser is held at Stripe's door.
  await v.page.getByRole('link', { name: 'See pricing' }).click();
  await v.page.waitForURL('**/pricing');
  await v.ready();
  await expect(v.page.locator('#stripe-link')).toHaveAttribute(
    'href',
    `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`,
  );
  let reachedStripe = (_url: URL) => {};
  const checkout = new Promise<URL>((resolve) => (reachedStripe = resolve));
  await v.context.route('https://buy.stripe.com/**', async (route) => {
    reachedStripe(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Stripe Checkout (stand-in)</title>' });
  });
  await v.page.getByRole('link', { name: 'Pay with Stripe' }).click();
  const url = await checkout;
  expect(`${url.origin}${url.pathname}`).toBe('https://buy.stripe.com/test_acme_pro');
  const clickId = url.searchParams.get('client_reference_id');
  // The click svc recorded for the visit (its answer, the first-party cookie) is the one Stripe is told about.
  expect(clickId).toBe(data.click_id);
  expect(await partnerStats(api, link.partnerId)).toMatchObject({ total_clicks: 1, total_customers: 0 });

  // What Stripe sends once the checkout is paid: the session, then the subscription's first invoice.
  const post = async (event: ReturnType<typeof stripeEvent>): Promise<StripeWebhookReceiptObject> => {
    const { body, signature } = signStripeEvent(event, secret);
    const res = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });
    const answer = (await res.json()) as { success: boolean; data: StripeWebhookReceiptObject };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.success).toBe(true);
    return answer.data;
  };
  const stripeCustomer = stripeId('cus');
  const subscription = stripeId('sub');
  const email = uniqueEmail('stripe');
  const completed = stripeEvent('checkout.session.completed', checkoutSession({ clickId, customer: stripeCustomer, email, subscription }));
  expect(await post(completed)).toMatchObject({
    event_id: completed.id,
    type: 'checkout.session.completed',
    status: 'processed',
    duplicate: false,
  });

  const [lead] = await customersOf(api, demo.program_id, link.partnerId);
  expect(lead).toMatchObject({ email, status: 'lead', click_id: clickId, partner_id: link.partnerId, customer_id: stripeCustomer });

  const paid = stripeEvent('invoice.paid', invoice({ customer: stripeCustomer, subscription, amountPaid: 4900, email }));
  expect(await post(paid)).toMatchObject({
    event_id: paid.id,
    type: 'invoice.paid',
    status: 'processed',
    reason: 'payment_recorded',
    duplicate: false,
  });

  // Through the API: one customer, now paying, one transaction from Stripe, one commission.
  const customers = await customersOf(api, demo.program_id, link.partnerId);
  expect(customers).toHaveLength(1);
  expect(customers[0]).toMatchObject({ id: lead.id, email, status: 'active', click_id: clickId, partner_id: link.partnerId });
  const transactions = (await api.get(`/v1/transactions?program_id=${demo.program_id}&customer_id=${lead.id}`)).data;
  expect(transactions).toHaveLength(1);
  expect(transactions[0]).toMatchObject({
    amount: 4900,
    source: 'stripe',
    charge_id: (paid.data.object as { id: string }).id,
    partner_id: link.partnerId,
    customer_id: lead.id,
  });
  const commissionsOf = async () => (await api.get(`/v1/commissions?program_id=${demo.program_id}&partner_id=${link.partnerId}`)).data;
  const commissions = await commissionsOf();
  expect(commissions).toHaveLength(1);
  expect(commissions[0]).toMatchObject({ amount: 980, revenue: 4900, customer_id: lead.id, transaction_id: transactions[0].id });
  expect(await partnerStats(api, link.partnerId)).toEqual({
    total_clicks: 1,
    total_customers: 1,
    total_revenue: 4900,
    total_commission: 980,
  });

  // Stripe delivers an event again when it is not sure it arrived: the payment counts once.
  expect(await post(paid)).toMatchObject({ event_id: paid.id, status: 'processed', duplicate: true });
  expect(await commissionsOf()).toHaveLength(1);
  expect((await api.get(`/v1/transactions?program_id=${demo.program_id}&customer_id=${lead.id}`)).data).toHaveLength(1);

  // And the program's event log says what each did.
  const events = await api.get(`/v1/programs/${demo.program_id}/integrations/stripe/events`);
  const mine = events.data.filter((e) => e.id === completed.id || e.id === paid.id);
  expect(mine).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ id: completed.id, status: 'processed', customer_id: lead.id }),
      expect.objectContaining({ id: paid.id, status: 'processed', reason: 'payment_recorded', transaction_id: transactions[0].id }),
    ]),
  );
  expect(mine).toHaveLength(2);
});
