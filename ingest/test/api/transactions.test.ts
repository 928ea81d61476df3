import { sql } from 'kysely';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  clickOf,
  commissionsOf,
  createCustomer,
  createFlow,
  createPartner,
  createTransaction,
  customerStats,
  fullCommission,
  partnerStats,
  quietProgram,
  type TestOrg,
  uniqueSuffix,
} from '../support/factories.js';
import { TRANSACTION_FIELDS } from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';
import { DAY_MS, ISO_MS } from '../support/time.js';

/**
 * /v1/transactions: create (shape, defaults, validation, customer activation), list (filters,
 * expansions, cursors), retrieve, update, delete, and tenant isolation.
 */

const SORTED_FIELDS: string[] = [...TRANSACTION_FIELDS].sort();
const EXPANDED_CUSTOMER = ['created_at', 'email', 'id', 'name', 'status'];
const EXPANDED_PARTNER = ['company_name', 'created_at', 'email', 'first_name', 'id', 'last_name', 'status'];
const EXPANDED_PROGRAM = ['created_at', 'currency_code', 'id', 'name', 'product_name', 'status', 'subdomain', 'type'];

const charge = () => `ch_${uniqueSuffix()}`;

describe('/v1/transactions', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  /** A partner of the org's first program (default flow on: 20 %, scheduled 30 days). */
  let alice: ApiObject;

  beforeAll(async () => {
    alice = await createPartner(t, org, { first_name: 'Alice' });
  });

  const post = (body: Record<string, unknown>, who: TestOrg = org) => t.request.post('/v1/transactions').set(who.auth).send(body);
  const retrieve = (id: string, who: TestOrg = org, query = '') =>
    t.request.get(`/v1/transactions/${id}${query ? `?${query}` : ''}`).set(who.auth);
  const update = (id: string, body: Record<string, unknown>, who: TestOrg = org) =>
    t.request.put(`/v1/transactions/${id}`).set(who.auth).send(body);
  const remove = (id: string, who: TestOrg = org) => t.request.delete(`/v1/transactions/${id}`).set(who.auth);
  const refund = (id: string, body: Record<string, unknown>, who: TestOrg = org) =>
    t.request.put(`/v1/transactions/${id}/refund`).set(who.auth).send(body);
  const list = (query: string, who: TestOrg = org) => t.request.get(`/v1/transactions?${query}`).set(who.auth);

  /** A quiet program with one active partner and an active customer of it. */
  async function quietSetup(programOverrides: Record<string, unknown> = {}) {
    const program = await quietProgram(t, org, programOverrides);
    const partner = await createPartner(t, org, { program_id: program.id });
    const customer = await createCustomer(t, org, partner, { status: 'active' });
    return { program, partner, customer };
  }

  async function getCustomer(id: string): Promise<ApiObject> {
    const res = await t.request.get(`/v1/customers/${id}`).set(org.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  function expect409(res: Response, winner: ApiObject): void {
    expectError(res, 409, 'conflict_error', 'charge_id');
    expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'success']);
    expect(res.body.data).toEqual(winner);
  }

  describe('POST /v1/transactions', () => {
    it('records the payment with exactly the transaction fields, shows it on retrieve, and pays the default flow', async () => {
      const customer = await createCustomer(t, org, alice, { click_id: (await clickOf(t, org, alice)).id, status: 'active' });
      const chargeId = charge();
      const before = Date.now();
      const res = await post({
        amount: 4999,
        customer_id: customer.id,
        charge_id: chargeId,
        billing_type: 'subscription',
        interval: 'month',
        product_id: 'prod_pro',
        product_name: 'Pro plan',
        source: 'stripe',
        currency: 'eur',
      });
      const after = Date.now();
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const txn = res.body.data[0];
      expect(Object.keys(txn).sort()).toEqual(SORTED_FIELDS);
      expect(txn.id).toMatch(/^txn_/);
      expect(txn).toEqual({
        id: txn.id,
        status: 'paid',
        amount: 4999,
        refunded_amount: 0,
        currency: 'EUR',
        customer_id: customer.id,
        partner_id: alice.id,
        program_id: org.program_id,
        organization_id: org.organization_id,
        click_id: customer.click_id,
        charge_id: chargeId,
        billing_type: 'subscription',
        interval: 'month',
        product_id: 'prod_pro',
        product_name: 'Pro plan',
        source: 'stripe',
        refunded_at: null,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(customer.click_id).toMatch(/^clk_/);
      const created = Date.parse(txn.created_at);
      expect(created).toBeGreaterThanOrEqual(before - 5);
      expect(created).toBeLessThanOrEqual(after + 5);

      const got = await retrieve(txn.id);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ success: true, data: txn });

      // The default flow: 20 % (999.8 → 1000), pending until 30 days after the payment.
      const [commission, ...more] = await commissionsOf(t, org, txn);
      expect(more).toEqual([]);
      expect(commission).toMatchObject({
        amount: 1000,
        revenue: 4999,
        status: 'pending',
        charge_id: chargeId,
        source: 'stripe',
        customer_id: customer.id,
      });
      const full = await fullCommission(t, org, commission.id);
      expect(full).toMatchObject({
        amount: '1000',
        revenue: '4999',
        type: 'reward',
        currency: 'EUR',
        charge_status: 'paid',
        partner_id: alice.id,
        approval_type: 'scheduled',
        payout_id: null,
        created_at: txn.created_at,
        scheduled_approval_date: new Date(created + 30 * DAY_MS).toISOString(),
      });
      expect(full.flow_id).toMatch(/^flw_/);
    });

    it('applies the documented defaults (one_time, no interval, no charge, program currency, now)', async () => {
      const { program, partner, customer } = await quietSetup({ currency_code: 'GBP' });
      const before = Date.now();
      const res = await post({ amount: 700, customer_id: customer.id });
      const after = Date.now();
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const txn = res.body.data[0];
      expect(txn).toMatchObject({
        status: 'paid',
        amount: 700,
        refunded_amount: 0,
        currency: 'GBP',
        customer_id: customer.id,
        partner_id: partner.id,
        program_id: program.id,
        click_id: null,
        charge_id: null,
        billing_type: 'one_time',
        interval: null,
        product_id: null,
        product_name: null,
        source: null,
        refunded_at: null,
      });
      expect(Date.parse(txn.created_at)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(txn.created_at)).toBeLessThanOrEqual(after + 5);
      // No flow is active in this program: nothing earned.
      expect(await commissionsOf(t, org, txn)).toEqual([]);

      // Charges without a charge_id never collide.
      const second = await post({ amount: 700, customer_id: customer.id });
      expect(second.status, JSON.stringify(second.body)).toBe(201);
      expect(second.body.data[0].id).not.toBe(txn.id);
      expect(second.body.data[0].charge_id).toBeNull();
      // A subscription may come without an interval.
      const sub = await post({ amount: 700, customer_id: customer.id, billing_type: 'subscription' });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);
      expect(sub.body.data[0]).toMatchObject({ billing_type: 'subscription', interval: null });
    });

    it('takes an ISO 4217 currency (any case) and refuses anything else', async () => {
      const { customer } = await quietSetup();
      const yen = await createTransaction(t, org, customer, { currency: 'jpy' });
      expect(yen.currency).toBe('JPY');
      expect((await createTransaction(t, org, customer)).currency).toBe('USD');
      for (const currency of ['ZZZ', 'US', 'EURO', '', 840, null]) {
        expectError(await post({ amount: 100, customer_id: customer.id, currency }), 400, 'invalid_request_error', 'currency');
      }
    });

    it('allows an interval only on a subscription', async () => {
      const { customer } = await quietSetup();
      expectError(await post({ amount: 100, customer_id: customer.id, interval: 'month' }), 400, 'invalid_request_error', 'interval');
      expectError(
        await post({ amount: 100, customer_id: customer.id, billing_type: 'one_time', interval: 'year' }),
        400,
        'invalid_request_error',
        'interval',
      );
      expectError(
        await post({ amount: 100, customer_id: customer.id, billing_type: 'subscription', interval: 'hour' }),
        400,
        'invalid_request_error',
        'interval',
      );
      expectError(
        await post({ amount: 100, customer_id: customer.id, billing_type: 'monthly' }),
        400,
        'invalid_request_error',
        'billing_type',
      );
      for (const interval of ['day', 'week', 'month', 'year']) {
        const txn = await createTransaction(t, org, customer, { billing_type: 'subscription', interval });
        expect(txn).toMatchObject({ billing_type: 'subscription', interval });
      }
      const count = await list(`program_id=${customer.program_id}&customer_id=${customer.id}`);
      expect(count.body.total_count).toBe(4);
    });

    it('turns a paying lead or trialing customer active (active_at = the payment time, unless already set)', async () => {
      const { partner } = await quietSetup();
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_customers: 1 });

      const lead = await createCustomer(t, org, partner);
      expect(lead).toMatchObject({ status: 'lead', active_at: null });
      await createTransaction(t, org, lead, { amount: 500, created_at: '2025-05-05T05:05:05.000Z' });
      expect(await getCustomer(lead.id)).toMatchObject({ status: 'active', active_at: '2025-05-05T05:05:05.000Z' });
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_customers: 2 });

      const trialing = await createCustomer(t, org, partner, { status: 'trialing' });
      expect(trialing).toMatchObject({ status: 'trialing', active_at: null });
      const before = Date.now();
      await createTransaction(t, org, trialing, { amount: 1 });
      const activated = await getCustomer(trialing.id);
      expect(activated.status).toBe('active');
      expect(Date.parse(activated.active_at)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(activated.active_at)).toBeLessThanOrEqual(Date.now() + 5);

      const trialingBefore = await createCustomer(t, org, partner, { status: 'trialing', active_at: '2020-01-01T00:00:00.000Z' });
      await createTransaction(t, org, trialingBefore, { amount: 100 });
      expect(await getCustomer(trialingBefore.id)).toMatchObject({ status: 'active', active_at: '2020-01-01T00:00:00.000Z' });

      // A payment of 0 cents activates nobody.
      const free = await createCustomer(t, org, partner);
      await createTransaction(t, org, free, { amount: 0 });
      expect(await getCustomer(free.id)).toMatchObject({ status: 'lead', active_at: null });

      // A canceled customer stays canceled; an active one keeps its active_at.
      const canceled = await createCustomer(t, org, partner, { status: 'canceled' });
      await createTransaction(t, org, canceled, { amount: 100 });
      expect((await getCustomer(canceled.id)).status).toBe('canceled');
      const active = await createCustomer(t, org, partner, { status: 'active' });
      await createTransaction(t, org, active, { amount: 100, created_at: '2030-01-01T00:00:00.000Z' });
      expect(await getCustomer(active.id)).toMatchObject({ status: 'active', active_at: active.active_at });
      expect(active.active_at).toMatch(ISO_MS);

      // Non-lead customers: quietSetup's, the former lead, 2 trialing (counted from creation), canceled, active.
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_customers: 6 });
    });

    it('answers 404 param customer_id for an unknown, deleted or foreign customer, and records nothing', async () => {
      const { program, partner } = await quietSetup();
      expectError(await post({ amount: 100, customer_id: 'cust_doesnotexist' }), 404, 'not_found_error', 'customer_id');

      const gone = await createCustomer(t, org, partner, { status: 'active' });
      expect((await t.request.delete(`/v1/customers/${gone.id}`).set(org.auth)).status).toBe(200);
      expectError(await post({ amount: 100, customer_id: gone.id, charge_id: charge() }), 404, 'not_found_error', 'customer_id');

      const foreignPartner = await createPartner(t, otherOrg, { program_id: otherOrg.program_id });
      const foreign = await createCustomer(t, otherOrg, foreignPartner, { status: 'active' });
      const res = await post({ amount: 100, customer_id: foreign.id, charge_id: charge() });
      expectError(res, 404, 'not_found_error', 'customer_id');
      expect(JSON.stringify(res.body)).not.toContain(foreignPartner.id);

      expect((await list(`program_id=${program.id}`)).body.total_count).toBe(0);
      expect((await list(`program_id=${otherOrg.program_id}`, otherOrg)).body.total_count).toBe(0);
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_revenue: 0 });
    });

    it('refuses unknown keys and missing or malformed fields with 400 naming the field', async () => {
      const { program, customer } = await quietSetup();
      const ok = { amount: 100, customer_id: customer.id };
      expectError(await post({ ...ok, foo: 1 }), 400, 'invalid_request_error', 'foo');
      expectError(await post({ ...ok, status: 'refunded' }), 400, 'invalid_request_error', 'status');
      expectError(await post({ ...ok, refunded_amount: 0 }), 400, 'invalid_request_error', 'refunded_amount');
      expectError(await post({ ...ok, partner_id: customer.partner_id }), 400, 'invalid_request_error', 'partner_id');
      expectError(await post({ customer_id: customer.id }), 400, 'invalid_request_error', 'amount');
      expectError(await post({ amount: 100 }), 400, 'invalid_request_error', 'customer_id');
      expectError(await post({ ...ok, customer_id: '' }), 400, 'invalid_request_error', 'customer_id');
      for (const amount of [
        10.5,
        0.01,
        -1,
        -100,
        1_000_000_000_001,
        Number.MAX_SAFE_INTEGER + 2,
        '100',
        '1e3',
        null,
        true,
        [100],
        { v: 1 },
      ]) {
        expectError(await post({ ...ok, amount }), 400, 'invalid_request_error', 'amount');
      }
      for (const created_at of ['yesterday', '2025-01-01', '2025-01-01T00:00:00', 1735689600000, '2025-13-01T00:00:00Z']) {
        expectError(await post({ ...ok, created_at }), 400, 'invalid_request_error', 'created_at');
      }
      for (const charge_id of ['', '   ', 'x'.repeat(256), 12]) {
        expectError(await post({ ...ok, charge_id }), 400, 'invalid_request_error', 'charge_id');
      }
      expectError(await post({ ...ok, product_name: 'p'.repeat(256) }), 400, 'invalid_request_error', 'product_name');
      expectError(await post({ ...ok, source: '' }), 400, 'invalid_request_error', 'source');
      expect((await list(`program_id=${program.id}`)).body.total_count).toBe(0);

      // The limits themselves are accepted: 0 and 10^12 cents.
      expect((await createTransaction(t, org, customer, { amount: 0 })).amount).toBe(0);
      expect((await createTransaction(t, org, customer, { amount: 1_000_000_000_000 })).amount).toBe(1_000_000_000_000);
      expect(await partnerStats(t, org, customer.partner_id)).toMatchObject({ total_revenue: 1_000_000_000_000 });
    });

    it('takes created_at as the payment time (normalised to UTC) and counts scheduled approval from it', async () => {
      const customer = await createCustomer(t, org, alice, { status: 'active' });
      const before = Date.now();
      const txn = await createTransaction(t, org, customer, { amount: 2500, created_at: '2024-03-01T10:00:00.123+02:00' });
      expect(txn.created_at).toBe('2024-03-01T08:00:00.123Z');
      expect(Date.parse(txn.updated_at)).toBeGreaterThanOrEqual(before - 5);
      const [commission] = await commissionsOf(t, org, txn);
      expect(commission).toMatchObject({ amount: 500, status: 'pending', created_at: '2024-03-01T08:00:00.123Z' });
      expect((await fullCommission(t, org, commission.id)).scheduled_approval_date).toBe('2024-03-31T08:00:00.123Z');
      expect(await customerStats(t, org, customer.id)).toEqual({
        total_revenue: 2500,
        total_commission: 500,
        total_orders: 1,
        last_order_at: '2024-03-01T08:00:00.123Z',
      });
    });

    it('answers 409 with the existing transaction for a repeated charge_id in the program, and pays only once', async () => {
      const { program, customer } = await quietSetup();
      await createFlow(t, org, { program_id: program.id, reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } });
      const chargeId = charge();
      const first = await createTransaction(t, org, customer, { amount: 3000, charge_id: chargeId });
      // Another customer of the same program, another amount: still the same charge.
      const other = await createCustomer(t, org, { id: customer.partner_id }, { status: 'active' });
      for (const body of [
        { amount: 3000, customer_id: customer.id, charge_id: chargeId },
        { amount: 1, customer_id: other.id, charge_id: chargeId },
      ]) {
        expect409(await post(body), first);
      }
      expect((await list(`program_id=${program.id}&charge_id=${chargeId}`)).body.total_count).toBe(1);
      expect((await commissionsOf(t, org, first)).map((c) => c.amount)).toEqual([300]);
      expect(await partnerStats(t, org, customer.partner_id)).toMatchObject({ total_revenue: 3000, total_commission: 300 });

      // The same charge_id in another program is another charge.
      const elsewhere = await createCustomer(t, org, alice, { status: 'active' });
      expect((await createTransaction(t, org, elsewhere, { charge_id: chargeId })).charge_id).toBe(chargeId);
    });
  });

  describe('GET /v1/transactions', () => {
    let program: ApiObject;
    let p1: ApiObject;
    let p2: ApiObject;
    let c1: ApiObject;
    let c2: ApiObject;
    let c3: ApiObject;
    /** Oldest first: t[0] 2024-01-01 … t[5] 2024-01-06. */
    let txns: ApiObject[];

    beforeAll(async () => {
      program = await quietProgram(t, org);
      p1 = await createPartner(t, org, { program_id: program.id, first_name: 'Paula', company_name: 'Paula Co' });
      p2 = await createPartner(t, org, { program_id: program.id });
      c1 = await createCustomer(t, org, p1, { status: 'active', name: 'Carl' });
      c2 = await createCustomer(t, org, p1, { status: 'active' });
      c3 = await createCustomer(t, org, p2, { status: 'active' });
      const owners = [c1, c2, c3, c1, c3, c2];
      txns = [];
      for (const [i, c] of owners.entries())
        txns.push(await createTransaction(t, org, c, { amount: 100 * (i + 1), created_at: `2024-01-0${i + 1}T00:00:00.000Z` }));
    });

    const ids = (res: Response) => res.body.data.map((x: ApiObject) => x.id);
    const idsOf = (...i: number[]) => i.map((n) => txns[n].id);

    it('requires program_id, and answers 404 for an unknown or foreign program', async () => {
      expectError(await list(''), 400, 'invalid_request_error', 'program_id');
      expectError(await list('program_id=prg_nope'), 404, 'not_found_error', 'program_id');
      const foreign = await list(`program_id=${otherOrg.program_id}`);
      expectError(foreign, 404, 'not_found_error', 'program_id');
      expectError(await list(`program_id=${program.id}&foo=1`), 400, 'invalid_request_error', 'foo');
      expectError(await list(`program_id=${program.id}&expand=group`), 400, 'invalid_request_error', 'expand');
    });

    it('lists newest first with the exact fields, and filters by partner_id, customer_id and charge_id', async () => {
      const all = await list(`program_id=${program.id}&limit=100`);
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['data', 'has_more', 'success', 'total_count']);
      expect(all.body).toMatchObject({ success: true, has_more: false, total_count: 6 });
      expect(ids(all)).toEqual(idsOf(5, 4, 3, 2, 1, 0));
      expect(all.body.data[5]).toEqual(txns[0]);
      for (const item of all.body.data) expect(Object.keys(item).sort()).toEqual(SORTED_FIELDS);

      const byPartner = await list(`program_id=${program.id}&partner_id=${p2.id}`);
      expect(byPartner.body.total_count).toBe(2);
      expect(ids(byPartner)).toEqual(idsOf(4, 2));
      const byCustomer = await list(`program_id=${program.id}&customer_id=${c2.id}`);
      expect(ids(byCustomer)).toEqual(idsOf(5, 1));
      const both = await list(`program_id=${program.id}&partner_id=${p1.id}&customer_id=${c1.id}`);
      expect(ids(both)).toEqual(idsOf(3, 0));
      const mismatch = await list(`program_id=${program.id}&partner_id=${p2.id}&customer_id=${c1.id}`);
      expect(mismatch.body).toMatchObject({ data: [], total_count: 0 });
      const byCharge = await list(`program_id=${program.id}&charge_id=${encodeURIComponent(txns[3].charge_id)}`);
      expect(ids(byCharge)).toEqual(idsOf(3));
      expect((await list(`program_id=${program.id}&charge_id=ch_none`)).body.total_count).toBe(0);
      // Another program of the same org does not show these.
      expect((await list(`program_id=${org.program_id}&customer_id=${c1.id}`)).body.total_count).toBe(0);

      const range = await list(`program_id=${program.id}&created_gte=2024-01-02T00:00:00Z&created_lte=2024-01-04T00:00:00Z&order=asc`);
      expect(ids(range)).toEqual(idsOf(1, 2, 3));
    });

    it('expands customer, partner and program with exactly the expanded field sets', async () => {
      const res = await list(`program_id=${program.id}&customer_id=${c1.id}&expand[]=customer&expand[]=partner&expand[]=program`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toHaveLength(2);
      for (const item of res.body.data) {
        expect(Object.keys(item).sort()).toEqual([...SORTED_FIELDS, 'customer', 'partner', 'program'].sort());
        expect(Object.keys(item.customer).sort()).toEqual(EXPANDED_CUSTOMER);
        expect(Object.keys(item.partner).sort()).toEqual(EXPANDED_PARTNER);
        expect(Object.keys(item.program).sort()).toEqual(EXPANDED_PROGRAM);
        expect(item.customer).toEqual({ id: c1.id, email: c1.email, name: 'Carl', status: 'active', created_at: c1.created_at });
        expect(item.partner).toEqual({
          id: p1.id,
          first_name: 'Paula',
          last_name: p1.last_name,
          email: p1.email,
          company_name: 'Paula Co',
          status: 'active',
          created_at: p1.created_at,
        });
        expect(item.program).toEqual({
          id: program.id,
          status: program.status,
          name: program.name,
          product_name: program.product_name,
          subdomain: program.subdomain,
          type: program.type,
          currency_code: 'USD',
          created_at: program.created_at,
        });
      }
      const one = await list(`program_id=${program.id}&customer_id=${c3.id}&expand=customer`);
      expect(one.body.data.map((x: ApiObject) => Object.keys(x).filter((k) => !SORTED_FIELDS.includes(k)))).toEqual([
        ['customer'],
        ['customer'],
      ]);
      expect(one.body.data[0].customer.id).toBe(c3.id);

      const got = await retrieve(txns[4].id, org, 'expand[]=partner&expand[]=program');
      expect(got.status).toBe(200);
      expect(Object.keys(got.body.data).sort()).toEqual([...SORTED_FIELDS, 'partner', 'program'].sort());
      expect(got.body.data.partner.id).toBe(p2.id);
      expect(got.body.data.program.id).toBe(program.id);
      expectError(await retrieve(txns[4].id, org, 'expand=click'), 400, 'invalid_request_error', 'expand');
    });

    it('pages with limit, starting_after and ending_before in both orders', async () => {
      const page1 = await list(`program_id=${program.id}&limit=2`);
      expect(page1.body).toMatchObject({ has_more: true, total_count: 6 });
      expect(ids(page1)).toEqual(idsOf(5, 4));
      const page2 = await list(`program_id=${program.id}&limit=2&starting_after=${txns[4].id}`);
      expect(page2.body).toMatchObject({ has_more: true, total_count: 6 });
      expect(ids(page2)).toEqual(idsOf(3, 2));
      const page3 = await list(`program_id=${program.id}&limit=2&starting_after=${txns[2].id}`);
      expect(page3.body).toMatchObject({ has_more: false });
      expect(ids(page3)).toEqual(idsOf(1, 0));
      const back = await list(`program_id=${program.id}&limit=2&ending_before=${txns[1].id}`);
      expect(ids(back)).toEqual(idsOf(3, 2));

      const asc = await list(`program_id=${program.id}&limit=4&order=asc&starting_after=${txns[0].id}`);
      expect(ids(asc)).toEqual(idsOf(1, 2, 3, 4));
      expect(asc.body.has_more).toBe(true);
      const filtered = await list(`program_id=${program.id}&partner_id=${p1.id}&limit=1&order=asc&starting_after=${txns[1].id}`);
      expect(ids(filtered)).toEqual(idsOf(3));
      expect(filtered.body).toMatchObject({ has_more: true, total_count: 4 });

      expectError(await list(`program_id=${program.id}&starting_after=txn_nope`), 400, 'invalid_request_error', 'starting_after');
      // A transaction of another program is not a cursor of this list.
      const elsewhere = await createTransaction(t, org, await createCustomer(t, org, alice, { status: 'active' }));
      expectError(await list(`program_id=${program.id}&ending_before=${elsewhere.id}`), 400, 'invalid_request_error', 'ending_before');
      expectError(await list(`program_id=${program.id}&limit=0`), 400, 'invalid_request_error', 'limit');
      expectError(await list(`program_id=${program.id}&limit=101`), 400, 'invalid_request_error', 'limit');
    });
  });

  describe('GET /v1/transactions/:id', () => {
    it('returns the object itself in data, and 404 for an unknown id', async () => {
      const customer = await createCustomer(t, org, alice, { status: 'active' });
      const txn = await createTransaction(t, org, customer, { product_name: 'Seat' });
      const res = await retrieve(txn.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: txn });
      const expanded = await retrieve(txn.id, org, 'expand=customer');
      expect(expanded.body.data).toEqual({
        ...txn,
        customer: { id: customer.id, email: customer.email, name: null, status: 'active', created_at: customer.created_at },
      });
      expectError(await retrieve('txn_nope'), 404, 'not_found_error');
      expectError(await retrieve(txn.id, org, 'foo=1'), 400, 'invalid_request_error', 'foo');
    });
  });

  describe('PUT /v1/transactions/:id', () => {
    it('updates only the descriptive fields and leaves the rest (and the commissions) as they were', async () => {
      const customer = await createCustomer(t, org, alice, { status: 'active' });
      const txn = await createTransaction(t, org, customer, { amount: 1000, product_name: 'Old', source: 'paddle' });
      const [commission] = await commissionsOf(t, org, txn);
      const chargeId = charge();
      const res = await update(txn.id, {
        charge_id: chargeId,
        billing_type: 'subscription',
        interval: 'year',
        product_id: 'prod_x',
        product_name: 'New',
        source: 'stripe',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(Object.keys(updated).sort()).toEqual(SORTED_FIELDS);
      expect(updated).toEqual({
        ...txn,
        charge_id: chargeId,
        billing_type: 'subscription',
        interval: 'year',
        product_id: 'prod_x',
        product_name: 'New',
        source: 'stripe',
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(txn.updated_at));
      expect((await retrieve(txn.id)).body.data).toEqual(updated);
      // The new charge_id is the one that counts now; the old one is free.
      expect409(await post({ amount: 5, customer_id: customer.id, charge_id: chargeId }), updated);
      expect((await createTransaction(t, org, customer, { charge_id: txn.charge_id })).charge_id).toBe(txn.charge_id);

      const cleared = await update(txn.id, { product_name: null, source: null, charge_id: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data[0]).toMatchObject({ product_name: null, source: null, charge_id: null, product_id: 'prod_x', amount: 1000 });
      expect((await update(txn.id, {})).status).toBe(200);

      // Commissions already created are not recomputed.
      expect(await commissionsOf(t, org, txn)).toEqual([expect.objectContaining({ id: commission.id, amount: 200, revenue: 1000 })]);
    });

    it('a new charge_id replaces the old one on the commissions that carried it (refund entries too), in the same SQL transaction', async () => {
      const { program, customer } = await quietSetup();
      await createFlow(t, org, { program_id: program.id });
      const txn = await createTransaction(t, org, customer, { amount: 10_000 });
      expect((await refund(txn.id, { amount: 1000 })).status).toBe(200);
      const own = await t.request
        .post('/v1/commissions')
        .set(org.auth)
        .send({ amount: 5, customer_id: customer.id, transaction_id: txn.id, charge_id: 'ch_own' });
      expect(own.status, JSON.stringify(own.body)).toBe(201);
      const before = await commissionsOf(t, org, txn);
      expect(before.map((c) => c.charge_id)).toEqual([txn.charge_id, txn.charge_id, 'ch_own']);

      const chargeId = charge();
      expect((await update(txn.id, { charge_id: chargeId })).status).toBe(200);
      const after = await commissionsOf(t, org, txn);
      expect(after.map((c) => [c.id, c.charge_id])).toEqual([
        [before[0].id, chargeId],
        [before[1].id, chargeId],
        [own.body.data[0].id, 'ch_own'],
      ]);
      expect((await update(txn.id, { charge_id: null })).status).toBe(200);
      expect((await commissionsOf(t, org, txn)).map((c) => c.charge_id)).toEqual([null, null, 'ch_own']);

      // A refused update (the charge is another transaction's) changes no commission either.
      const holder = await createTransaction(t, org, customer, { amount: 1 });
      expect((await update(txn.id, { charge_id: chargeId })).status).toBe(200);
      expect409(await update(txn.id, { charge_id: holder.charge_id }), holder);
      expect((await commissionsOf(t, org, txn)).map((c) => c.charge_id)).toEqual([chargeId, chargeId, 'ch_own']);
    });

    it('refuses amount and every other non-editable key as unknown, changing nothing', async () => {
      const customer = await createCustomer(t, org, alice, { status: 'active' });
      const txn = await createTransaction(t, org, customer, { amount: 1000 });
      for (const key of [
        'amount',
        'refunded_amount',
        'status',
        'currency',
        'customer_id',
        'partner_id',
        'program_id',
        'created_at',
        'id',
        'foo',
      ]) {
        const value = key === 'amount' || key === 'refunded_amount' ? 1 : key === 'created_at' ? '2024-01-01T00:00:00Z' : 'x';
        expectError(await update(txn.id, { [key]: value }), 400, 'invalid_request_error', key);
      }
      expectError(await update(txn.id, { product_name: 'ok', amount: 5 }), 400, 'invalid_request_error', 'amount');
      expect((await retrieve(txn.id)).body.data).toEqual(txn);
    });

    it('checks the interval rule on the merged result', async () => {
      const customer = await createCustomer(t, org, alice, { status: 'active' });
      const txn = await createTransaction(t, org, customer);
      expectError(await update(txn.id, { interval: 'month' }), 400, 'invalid_request_error', 'interval');
      expectError(await update(txn.id, { interval: 'decade' }), 400, 'invalid_request_error', 'interval');
      expectError(await update(txn.id, { billing_type: 'sometimes' }), 400, 'invalid_request_error', 'billing_type');
      const sub = await update(txn.id, { billing_type: 'subscription', interval: 'month' });
      expect(sub.status).toBe(200);
      expectError(await update(txn.id, { billing_type: 'one_time' }), 400, 'invalid_request_error', 'interval');
      expect((await retrieve(txn.id)).body.data).toMatchObject({ billing_type: 'subscription', interval: 'month' });
      const back = await update(txn.id, { billing_type: 'one_time', interval: null });
      expect(back.status).toBe(200);
      expect(back.body.data[0]).toMatchObject({ billing_type: 'one_time', interval: null });
    });

    it('answers 409 with the holder of a charge_id already used in the program', async () => {
      const customer = await createCustomer(t, org, alice, { status: 'active' });
      const holder = await createTransaction(t, org, customer);
      const txn = await createTransaction(t, org, customer);
      expect409(await update(txn.id, { charge_id: holder.charge_id }), holder);
      expect((await retrieve(txn.id)).body.data).toEqual(txn);
      // Its own charge_id is no conflict.
      expect((await update(txn.id, { charge_id: txn.charge_id })).status).toBe(200);
      expectError(await update('txn_nope', { source: 'x' }), 404, 'not_found_error');
    });
  });

  describe('DELETE /v1/transactions/:id', () => {
    it('hides the transaction, frees its charge_id, rejects its unpaid commissions and claws back paid ones', async () => {
      const { program, partner, customer } = await quietSetup();
      await createFlow(t, org, { program_id: program.id, reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } });
      await createFlow(t, org, { program_id: program.id, reward: { type: 'fixed', value: 300 }, approval: { type: 'manual' } });
      await createFlow(t, org, {
        program_id: program.id,
        reward: { type: 'percentage', value: 5 },
        approval: { type: 'scheduled', delay_days: 10 },
      });
      await createFlow(t, org, { program_id: program.id, reward: { type: 'fixed', value: 250 }, approval: { type: 'immediate' } });
      const txn = await createTransaction(t, org, customer, { amount: 10_000 });
      const before = await commissionsOf(t, org, txn);
      const byAmount = (cs: ApiObject[]) => Object.fromEntries(cs.map((c) => [c.amount, c.status]));
      expect(byAmount(before)).toEqual({ 1000: 'approved', 300: 'pending', 500: 'pending', 250: 'approved' });
      const paidId = before.find((c) => c.amount === 1000)!.id;
      const paid = await t.request.put(`/v1/commissions/${paidId}`).set(org.auth).send({ status: 'paid' });
      expect(paid.status).toBe(200);
      const payoutId = paid.body.data[0].payout_id;
      expect(payoutId).toMatch(/^po_/);
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_revenue: 10_000, total_commission: 2050 });

      const res = await remove(txn.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: txn.id, deleted: true } });

      expectError(await retrieve(txn.id), 404, 'not_found_error');
      expectError(await update(txn.id, { source: 'x' }), 404, 'not_found_error');
      expectError(await refund(txn.id, {}), 404, 'not_found_error');
      expectError(await remove(txn.id), 404, 'not_found_error');
      expect((await list(`program_id=${program.id}`)).body.total_count).toBe(0);
      expect((await list(`program_id=${program.id}&charge_id=${txn.charge_id}`)).body.total_count).toBe(0);

      // The paid one stays paid, offset by an approved refund entry, as a full refund would do.
      const after = await commissionsOf(t, org, txn);
      expect(byAmount(after)).toEqual({ 1000: 'paid', 300: 'rejected', 500: 'rejected', 250: 'rejected', '-1000': 'approved' });
      expect(await fullCommission(t, org, paidId)).toMatchObject({ status: 'paid', payout_id: payoutId, amount: '1000' });
      const clawback = await fullCommission(t, org, after.find((c) => c.amount === -1000)!.id);
      expect(clawback).toMatchObject({ type: 'refund', status: 'approved', revenue: '-10000', transaction_id: txn.id, payout_id: null });
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_revenue: 0, total_commission: 0 });
      expect(await customerStats(t, org, customer.id)).toEqual({
        total_revenue: 0,
        total_commission: 0,
        total_orders: 0,
        last_order_at: null,
      });

      // The charge can be recorded again, and pays again.
      const again = await createTransaction(t, org, customer, { amount: 10_000, charge_id: txn.charge_id });
      expect(again.id).not.toBe(txn.id);
      expect(byAmount(await commissionsOf(t, org, again))).toEqual({ 1000: 'approved', 300: 'pending', 500: 'pending', 250: 'approved' });
      expect(await partnerStats(t, org, partner.id)).toMatchObject({ total_revenue: 10_000, total_commission: 2050 });
      const listed = await list(`program_id=${program.id}&charge_id=${txn.charge_id}`);
      expect(listed.body.data.map((x: ApiObject) => x.id)).toEqual([again.id]);
    });
  });

  describe('expansions of deleted records', () => {
    it('a deleted customer or partner is not expanded on transactions or commissions (as a deleted transaction is not on commissions)', async () => {
      const { program, partner, customer } = await quietSetup();
      await createFlow(t, org, { program_id: program.id });
      const txn = await createTransaction(t, org, customer, { amount: 1000 });
      const [commission] = await commissionsOf(t, org, txn);
      const expanded = async () => ({
        txn: (await retrieve(txn.id, org, 'expand[]=customer&expand[]=partner&expand[]=program')).body.data,
        listed: (await list(`program_id=${program.id}&expand[]=customer&expand[]=partner`)).body.data[0],
        commission: (
          await t.request.get(`/v1/commissions/${commission.id}?expand[]=customer&expand[]=partner&expand[]=program`).set(org.auth)
        ).body.data,
        listedCommission: (
          await t.request
            .get(`/v1/commissions?program_id=${program.id}&expand[]=customer&expand[]=partner&expand[]=transaction`)
            .set(org.auth)
        ).body.data[0],
      });
      const before = await expanded();
      for (const o of Object.values(before)) expect(o.customer?.id).toBe(customer.id);
      expect(before.listedCommission.transaction.id).toBe(txn.id);

      expect((await t.request.delete(`/v1/customers/${customer.id}`).set(org.auth)).status).toBe(200);
      const noCustomer = await expanded();
      for (const o of Object.values(noCustomer)) {
        expect(o).not.toHaveProperty('customer');
        expect(o.partner.id).toBe(partner.id);
      }

      expect((await t.request.delete(`/v1/partners/${partner.id}`).set(org.auth)).status).toBe(200);
      const neither = await expanded();
      for (const o of Object.values(neither)) {
        expect(o).not.toHaveProperty('customer');
        expect(o).not.toHaveProperty('partner');
      }
      expect(neither.txn.program.id).toBe(program.id);
      expect(neither.commission.program.id).toBe(program.id);

      expect((await remove(txn.id)).status).toBe(200);
      const listed = await t.request.get(`/v1/commissions?program_id=${program.id}&expand[]=transaction`).set(org.auth);
      expect(listed.body.data[0].id).toBe(commission.id);
      expect(listed.body.data[0]).not.toHaveProperty('transaction');
    });
  });

  describe('atomicity', () => {
    it('a failure while writing its commissions records nothing: no transaction, no customer activation, no stats', async () => {
      const { program, partner } = await quietSetup();
      const flow = await createFlow(t, org, { program_id: program.id });
      const lead = await createCustomer(t, org, partner);
      const statsBefore = await partnerStats(t, org, partner.id);
      // A real constraint of the database refuses this flow's commissions (no mock).
      const constraint = `refuse_${uniqueSuffix()}`;
      await sql
        .raw(`alter table commissions add constraint ${constraint} check (flow_id is distinct from '${flow.id}') not valid`)
        .execute(t.storage.db);
      try {
        const chargeId = charge();
        const res = await post({ amount: 10_000, customer_id: lead.id, charge_id: chargeId });
        expectError(res, 500, 'api_error');
        expect((await list(`program_id=${program.id}`)).body.total_count).toBe(0);
        expect(await getCustomer(lead.id)).toMatchObject({ status: 'lead', active_at: null });
        expect(await partnerStats(t, org, partner.id)).toEqual(statsBefore);
        expect(await customerStats(t, org, lead.id)).toEqual({
          total_revenue: 0,
          total_commission: 0,
          total_orders: 0,
          last_order_at: null,
        });
        expect((await t.request.get(`/v1/commissions?program_id=${program.id}`).set(org.auth)).body.total_count).toBe(0);

        // The charge was never recorded: once the flow can pay, it is accepted and paid once.
        await sql.raw(`alter table commissions drop constraint ${constraint}`).execute(t.storage.db);
        const txn = await createTransaction(t, org, lead, { amount: 10_000, charge_id: chargeId });
        expect((await commissionsOf(t, org, txn)).map((c) => c.amount)).toEqual([1000]);
        expect(await getCustomer(lead.id)).toMatchObject({ status: 'active' });
        expect((await partnerStats(t, org, partner.id)).total_customers).toBe(statsBefore.total_customers + 1);
      } finally {
        await sql.raw(`alter table commissions drop constraint if exists ${constraint}`).execute(t.storage.db);
      }
    });
  });

  describe('tenant isolation', () => {
    let foreignTxn: ApiObject;
    let foreignCustomer: ApiObject;
    let foreignPartner: ApiObject;

    beforeAll(async () => {
      foreignPartner = await createPartner(t, otherOrg, { program_id: otherOrg.program_id });
      foreignCustomer = await createCustomer(t, otherOrg, foreignPartner, { status: 'active' });
      foreignTxn = await createTransaction(t, otherOrg, foreignCustomer, { amount: 5000, product_name: 'Theirs' });
    });

    /** The 404 for another org's id reads exactly like the 404 for an id that never existed. */
    function expectSame404(foreign: Response, unknown: Response, id: string, unknownId: string, param?: string): void {
      expectError(foreign, 404, 'not_found_error', param);
      expectError(unknown, 404, 'not_found_error', param);
      expect(JSON.stringify(foreign.body).replaceAll(id, '<id>')).toBe(JSON.stringify(unknown.body).replaceAll(unknownId, '<id>'));
      expect(JSON.stringify(foreign.body)).not.toContain('Theirs');
    }

    it("answers 404 for another organization's transaction on retrieve, update, refund and delete, and changes nothing", async () => {
      const missing = 'txn_0000000000000000000000';
      expectSame404(await retrieve(foreignTxn.id), await retrieve(missing), foreignTxn.id, missing);
      expectSame404(
        await retrieve(foreignTxn.id, org, 'expand=customer'),
        await retrieve(missing, org, 'expand=customer'),
        foreignTxn.id,
        missing,
      );
      expectSame404(
        await update(foreignTxn.id, { product_name: 'Mine' }),
        await update(missing, { product_name: 'Mine' }),
        foreignTxn.id,
        missing,
      );
      expectSame404(
        await update(foreignTxn.id, { charge_id: 'ch_x' }),
        await update(missing, { charge_id: 'ch_x' }),
        foreignTxn.id,
        missing,
      );
      expectSame404(await refund(foreignTxn.id, {}), await refund(missing, {}), foreignTxn.id, missing);
      expectSame404(await refund(foreignTxn.id, { amount: 1 }), await refund(missing, { amount: 1 }), foreignTxn.id, missing);
      expectSame404(await remove(foreignTxn.id), await remove(missing), foreignTxn.id, missing);

      const still = await retrieve(foreignTxn.id, otherOrg);
      expect(still.status).toBe(200);
      expect(still.body.data).toEqual(foreignTxn);
      const theirCommissions = await commissionsOf(t, otherOrg, foreignTxn);
      expect(theirCommissions.map((c) => [c.amount, c.status])).toEqual([[1000, 'pending']]);
    });

    it("answers 404 param customer_id / program_id / transaction_id for another organization's ids, and never lists its data", async () => {
      const missingCustomer = 'cust_0000000000000000000000';
      expectSame404(
        await post({ amount: 100, customer_id: foreignCustomer.id }),
        await post({ amount: 100, customer_id: missingCustomer }),
        foreignCustomer.id,
        missingCustomer,
        'customer_id',
      );
      const missingProgram = 'prg_0000000000000000000000';
      expectSame404(
        await list(`program_id=${otherOrg.program_id}`),
        await list(`program_id=${missingProgram}`),
        otherOrg.program_id,
        missingProgram,
        'program_id',
      );
      expectSame404(
        await list(`program_id=${otherOrg.program_id}&customer_id=${foreignCustomer.id}&expand=customer`),
        await list(`program_id=${missingProgram}&customer_id=${foreignCustomer.id}&expand=customer`),
        otherOrg.program_id,
        missingProgram,
        'program_id',
      );

      // Their ids as filters of our own list find nothing of theirs.
      for (const filter of [`customer_id=${foreignCustomer.id}`, `partner_id=${foreignPartner.id}`, `charge_id=${foreignTxn.charge_id}`]) {
        const res = await list(`program_id=${org.program_id}&${filter}`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ data: [], total_count: 0 });
      }
      expectError(
        await list(`program_id=${org.program_id}&starting_after=${foreignTxn.id}`),
        400,
        'invalid_request_error',
        'starting_after',
      );

      // A commission cannot point at their transaction.
      const mine = await createCustomer(t, org, alice, { status: 'active' });
      const missingTxn = 'txn_0000000000000000000000';
      expectSame404(
        await t.request.post('/v1/commissions').set(org.auth).send({ amount: 100, customer_id: mine.id, transaction_id: foreignTxn.id }),
        await t.request.post('/v1/commissions').set(org.auth).send({ amount: 100, customer_id: mine.id, transaction_id: missingTxn }),
        foreignTxn.id,
        missingTxn,
        'transaction_id',
      );
      const theirCommissions = await t.request
        .get('/v1/commissions')
        .set(org.auth)
        .query({ program_id: org.program_id, transaction_id: foreignTxn.id });
      expect(theirCommissions.body).toMatchObject({ data: [], total_count: 0 });

      // Their charge_id is free in our program: no 409 carrying their transaction.
      const ours = await createTransaction(t, org, mine, { charge_id: foreignTxn.charge_id });
      expect(ours.charge_id).toBe(foreignTxn.charge_id);
      expect(ours.id).not.toBe(foreignTxn.id);
      expect((await retrieve(foreignTxn.id, otherOrg)).body.data).toEqual(foreignTxn);
    });
  });
});
