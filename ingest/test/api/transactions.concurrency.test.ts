import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createGroup,
  createPartner,
  partnerStats,
  quietProgram,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { warmPool } from '../support/harness.js';

/**
 * Simultaneous payments, sent to two app instances over one database and one shared store (as
 * two processes would be): a charge_id is recorded once and paid once, and
 * customer.transaction_count conditions stay exact.
 */

const SIMULTANEOUS = 8;

describe('simultaneous transactions on two app instances', () => {
  // Hooks run in order: b is built after a and closed before it.
  const {
    t: a,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  const { t: b } = useTestApp({ sharesStorageWith: a });

  beforeAll(async () => {
    await warmPool(a);
    await warmPool(b);
  });

  /** The i-th request goes to instance a or b in turn. */
  const instance = (i: number) => (i % 2 === 0 ? a : b);
  const post = (i: number, body: Record<string, unknown>) => instance(i).request.post('/v1/transactions').set(org.auth).send(body);
  const listTransactions = (query: Record<string, string>) =>
    b.request
      .get('/v1/transactions')
      .set(org.auth)
      .query({ limit: '100', ...query });

  /** A program of its own, its default flow switched off, with the given flows, a partner and a customer. */
  async function setup(flows: Record<string, unknown>[], customer: Record<string, unknown> = { status: 'active' }) {
    const program = await quietProgram(a, org);
    for (const f of flows) await createFlow(a, org, { program_id: program.id, approval: { type: 'immediate' }, ...f });
    const partner = await createPartner(a, org, { program_id: program.id });
    return { program, partner, customer: await createCustomer(a, org, partner, customer) };
  }

  async function customerWithStats(id: string): Promise<ApiObject> {
    const res = await b.request.get(`/v1/customers/${id}`).set(org.auth).query({ 'include[]': 'stats' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  async function programCommissions(programId: string): Promise<ApiObject[]> {
    const res = await a.request.get('/v1/commissions').set(org.auth).query({ program_id: programId, limit: '100' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.has_more).toBe(false);
    return res.body.data;
  }

  /** How many commissions of each amount. */
  const countByAmount = (cs: ApiObject[]) =>
    cs.reduce<Record<number, number>>((m, c) => {
      m[c.amount] = (m[c.amount] ?? 0) + 1;
      return m;
    }, {});

  function expectOneWinner(responses: Response[]): ApiObject {
    const statuses = responses.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      JSON.stringify(statuses),
    ).toHaveLength(responses.length - 1);
    const winner = responses.find((r) => r.status === 201)!.body.data[0];
    for (const r of responses.filter((x) => x.status === 409)) {
      expectError(r, 409, 'conflict_error', 'charge_id');
      expect(Object.keys(r.body).sort()).toEqual(['data', 'error', 'success']);
      expect(r.body.data).toEqual(winner);
    }
    return winner;
  }

  it(`records a charge_id posted ${SIMULTANEOUS} times at once exactly once, with one commission per matching flow`, async () => {
    const s = await setup([
      { reward: { type: 'percentage', value: 10 } },
      { reward: { type: 'fixed', value: 500 }, approval: { type: 'manual' } },
      // Never matches: too small a payment.
      { reward: { type: 'fixed', value: 100 }, conditions: [{ subject: 'transaction.amount', op: 'gte', value: 1_000_000 }] },
    ]);
    // Never matches either: the partner is not in this group.
    const vip = await createGroup(a, org, { program_id: s.program.id });
    await createFlow(a, org, {
      program_id: s.program.id,
      group_id: vip.id,
      reward: { type: 'fixed', value: 200 },
      approval: { type: 'immediate' },
    });
    const otherCustomer = await createCustomer(a, org, s.partner, { status: 'active' });

    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      const chargeId = `ch_${uniqueSuffix()}`;
      // The last round mixes two customers of the program: the charge is still one.
      const responses = await Promise.all(
        Array.from({ length: SIMULTANEOUS }, (_, i) =>
          post(i, {
            amount: 10_000,
            customer_id: round === rounds - 1 && i % 3 === 1 ? otherCustomer.id : s.customer.id,
            charge_id: chargeId,
            source: 'stripe',
          }),
        ),
      );
      const winner = expectOneWinner(responses);
      expect(winner).toMatchObject({ charge_id: chargeId, amount: 10_000, status: 'paid', program_id: s.program.id });

      const listed = await listTransactions({ program_id: s.program.id, charge_id: chargeId });
      expect(listed.body.total_count).toBe(1);
      expect(listed.body.data).toEqual([winner]);
      const commissions = await commissionsOf(b, org, winner);
      expect(commissions.map((c) => [c.amount, c.status, c.revenue]).sort()).toEqual([
        [1000, 'approved', 10_000],
        [500, 'pending', 10_000],
      ]);
    }

    expect((await listTransactions({ program_id: s.program.id })).body.total_count).toBe(rounds);
    const all = await programCommissions(s.program.id);
    expect(countByAmount(all)).toEqual({ 1000: rounds, 500: rounds });
    expect(await partnerStats(a, org, s.partner.id)).toMatchObject({ total_revenue: rounds * 10_000, total_commission: rounds * 1500 });
  });

  it('records two different charges of one customer sent at once, each first/second-payment flow paying exactly once', async () => {
    const s = await setup(
      [
        { reward: { type: 'fixed', value: 1000 }, conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }] },
        { reward: { type: 'fixed', value: 300 }, conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 2 }] },
        { reward: { type: 'percentage', value: 10 } },
      ],
      {},
    );
    expect(s.customer.status).toBe('lead');
    const responses = await Promise.all(
      [0, 1].map((i) => post(i, { amount: 5000, customer_id: s.customer.id, charge_id: `ch_${uniqueSuffix()}` })),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201]);
    const [t0, t1] = responses.map((r) => r.body.data[0]);
    expect(t0.id).not.toBe(t1.id);

    const per = await Promise.all([t0, t1].map((x) => commissionsOf(a, org, x)));
    const amounts = per.map((cs) => cs.map((c) => c.amount).sort((x, y) => x - y));
    // One of them was the first payment, the other the second.
    expect(amounts.sort((x, y) => y[1] - x[1])).toEqual([
      [500, 1000],
      [300, 500],
    ]);
    const customer = await customerWithStats(s.customer.id);
    expect(customer.status).toBe('active');
    expect(customer.stats).toMatchObject({ total_orders: 2, total_revenue: 10_000, total_commission: 2300 });
    expect(await partnerStats(a, org, s.partner.id)).toEqual({
      total_clicks: 0,
      total_customers: 1,
      total_revenue: 10_000,
      total_commission: 2300,
    });
  });

  it(`keeps customer.transaction_count exact for ${SIMULTANEOUS} first payments at once: a first-payment-only flow pays once`, async () => {
    for (let round = 0; round < 2; round++) {
      const s = await setup(
        [
          { reward: { type: 'fixed', value: 1000 }, conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }] },
          { reward: { type: 'fixed', value: 100 }, conditions: [{ subject: 'customer.transaction_count', op: 'lte', value: 3 }] },
          { reward: { type: 'fixed', value: 7 }, conditions: [{ subject: 'customer.transaction_count', op: 'gte', value: SIMULTANEOUS }] },
        ],
        {},
      );
      const responses = await Promise.all(
        Array.from({ length: SIMULTANEOUS }, (_, i) =>
          post(i, { amount: 2000, customer_id: s.customer.id, charge_id: `ch_${uniqueSuffix()}` }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(SIMULTANEOUS).fill(201));
      expect(new Set(responses.map((r) => r.body.data[0].id)).size).toBe(SIMULTANEOUS);

      const all = await programCommissions(s.program.id);
      expect(countByAmount(all)).toEqual({ 1000: 1, 100: 3, 7: 1 });
      // The first payment earned both the first-payment and the "first three" rewards.
      const first = all.find((c) => c.amount === 1000)!;
      expect(
        all
          .filter((c) => c.transaction_id === first.transaction_id)
          .map((c) => c.amount)
          .sort((x, y) => x - y),
      ).toEqual([100, 1000]);
      expect(new Set(all.filter((c) => c.amount === 100).map((c) => c.transaction_id)).size).toBe(3);

      const customer = await customerWithStats(s.customer.id);
      expect(customer.status).toBe('active');
      expect(customer.stats).toMatchObject({ total_orders: SIMULTANEOUS, total_revenue: SIMULTANEOUS * 2000, total_commission: 1307 });
      // The lead became a customer once, however many payments raced.
      expect(await partnerStats(a, org, s.partner.id)).toEqual({
        total_clicks: 0,
        total_customers: 1,
        total_revenue: SIMULTANEOUS * 2000,
        total_commission: 1307,
      });
    }
  });
});
