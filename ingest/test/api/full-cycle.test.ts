import { describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../../src/resources/commissions/approval-job.js';
import { createPartner } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { DAY_MS } from '../support/time.js';

/**
 * The Partnership Program API's tracking cycle "without the script", through the API only: link →
 * click → customer (lead) → customer active → transaction → commission → stats, on the program's
 * default flow (20 % of every payment, approved after 30 days).
 */
describe('the whole tracking cycle through the API', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('credits the partner and shows it in the stats', async () => {
    const alice = await createPartner(t, org, { first_name: 'Alice' });
    const api = t.request;

    const link = await api.post('/v1/links').set(org.auth).send({ param: 'ref', value: 'alice', partner_id: alice.id });
    expect(link.status).toBe(201);

    const click = await api.post('/v1/clicks').set(org.auth).send({ param: 'ref', value: 'ALICE', page: 'https://acme.test/?ref=alice' });
    expect(click.status).toBe(201);
    const { id: clickId, partner_id: partnerId } = click.body.data[0];
    expect(partnerId).toBe(alice.id);

    // The integrator stores partner_id from the click and creates the customer with it.
    const lead = await api
      .post('/v1/customers')
      .set(org.auth)
      .send({ email: 'carol@example.com', partner_id: partnerId, click_id: clickId });
    expect(lead.status).toBe(201);
    const customer = lead.body.data[0];
    expect(customer).toMatchObject({ status: 'lead', partner_id: alice.id, click_id: clickId });

    let stats = (await api.get(`/v1/partners/${alice.id}`).query({ 'include[]': 'stats' }).set(org.auth)).body.data.stats;
    expect(stats).toEqual({ total_clicks: 1, total_customers: 0, total_revenue: 0, total_commission: 0 });

    const active = await api.put(`/v1/customers/${customer.id}`).set(org.auth).send({ status: 'active' });
    expect(active.status).toBe(200);
    expect(active.body.data[0].active_at).not.toBeNull();

    const paid = await api.post('/v1/transactions').set(org.auth).send({
      amount: 4999,
      customer_id: customer.id,
      charge_id: 'ch_cycle_1',
      billing_type: 'subscription',
      interval: 'month',
      product_name: 'Pro',
      source: 'stripe',
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const transaction = paid.body.data[0];
    expect(transaction).toMatchObject({
      status: 'paid',
      amount: 4999,
      refunded_amount: 0,
      currency: 'USD',
      customer_id: customer.id,
      partner_id: alice.id,
      click_id: clickId,
      program_id: org.program_id,
      organization_id: org.organization_id,
    });
    expect(transaction.id).toMatch(/^txn_/);

    const list = await api.get('/v1/commissions').query({ program_id: org.program_id, transaction_id: transaction.id }).set(org.auth);
    expect(list.status).toBe(200);
    expect(list.body.total_count).toBe(1);
    const commission = list.body.data[0];
    // 20 % of 49.99 is 9.998, rounded half up to the cent.
    expect(commission).toMatchObject({
      amount: 1000,
      status: 'pending',
      revenue: 4999,
      charge_id: 'ch_cycle_1',
      customer_id: customer.id,
      source: 'stripe',
    });

    stats = (await api.get('/v1/partners').query({ program_id: org.program_id, 'include[]': 'stats' }).set(org.auth)).body.data.find(
      (p: { id: string }) => p.id === alice.id,
    ).stats;
    expect(stats).toEqual({ total_clicks: 1, total_customers: 1, total_revenue: 4999, total_commission: 1000 });

    const customerStats = (await api.get(`/v1/customers/${customer.id}`).query({ 'include[]': 'stats' }).set(org.auth)).body.data.stats;
    expect(customerStats).toEqual({ total_revenue: 4999, total_commission: 1000, total_orders: 1, last_order_at: transaction.created_at });

    // The default flow approves 30 days after the payment.
    expect(await approveDueCommissions(t.storage.db, new Date(Date.now() + 29 * DAY_MS))).toBe(0);
    expect(await approveDueCommissions(t.storage.db, new Date(Date.now() + 31 * DAY_MS))).toBe(1);
    const approved = await api.get(`/v1/commissions/${commission.id}`).set(org.auth);
    expect(approved.body.data.status).toBe('approved');
  });
});
