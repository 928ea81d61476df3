import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../../src/resources/commissions/approval-job.js';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createOrganization,
  createPartner,
  createTransaction,
  customerStats,
  fullCommission,
  partnerStats,
  quietProgram,
  type TestOrg,
} from '../support/factories.js';
import { TRANSACTION_FIELDS } from '../support/fields.js';
import { useTestApp } from '../support/fixture.js';
import { warmPool } from '../support/harness.js';
import { ISO_MS } from '../support/time.js';

/**
 * PUT /v1/transactions/:id/refund and its effect on commissions
 * (ingest/docs/commissions.md#refunds): a full refund of an unpaid commission marks it refunded; a
 * partial refund, or any refund of a paid commission, adds a `refund` entry bringing the commission
 * to `amount − round_half_up(amount × refunded_total / transaction.amount)`.
 */

const SCHEDULED = { type: 'scheduled', delay_days: 30 } as const;
const IMMEDIATE = { type: 'immediate' } as const;
const MANUAL = { type: 'manual' } as const;

describe('PUT /v1/transactions/:id/refund', () => {
  const { t } = useTestApp();
  let org: TestOrg;

  beforeAll(async () => {
    await warmPool(t);
    org = await createOrganization(t);
  });

  const refund = (id: string, body?: Record<string, unknown>) => {
    const req = t.request.put(`/v1/transactions/${id}/refund`).set(org.auth);
    return body === undefined ? req : req.send(body);
  };
  const retrieve = async (id: string): Promise<ApiObject> => {
    const res = await t.request.get(`/v1/transactions/${id}`).set(org.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };

  /** A program of its own (default flow off) with one partner, one active customer and the given flows. */
  async function setup(flows: Record<string, unknown>[]) {
    const program = await quietProgram(t, org);
    const made: ApiObject[] = [];
    for (const f of flows) made.push(await createFlow(t, org, { program_id: program.id, ...f }));
    const partner = await createPartner(t, org, { program_id: program.id });
    const customer = await createCustomer(t, org, partner, { status: 'active' });
    return { program, partner, customer, flows: made };
  }

  /** setup() with one 20 % flow of the given approval, and a payment of `amount`. */
  async function oneFlow(approval: Record<string, unknown>, amount = 10_000, value = 20, txn: Record<string, unknown> = {}) {
    const s = await setup([{ reward: { type: 'percentage', value }, approval }]);
    const transaction = await createTransaction(t, org, s.customer, { amount, source: 'stripe', ...txn });
    const [reward, ...more] = await commissionsOf(t, org, transaction);
    expect(more).toEqual([]);
    return { ...s, flow: s.flows[0], transaction, reward };
  }

  async function markPaid(id: string): Promise<string> {
    const res = await t.request.put(`/v1/commissions/${id}`).set(org.auth).send({ status: 'paid' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data[0].payout_id).toMatch(/^po_/);
    return res.body.data[0].payout_id;
  }

  /** Net commission and revenue as the partner and the customer stats show them. */
  async function expectTotals(s: { partner: ApiObject; customer: ApiObject }, commission: number, revenue: number): Promise<void> {
    expect(await partnerStats(t, org, s.partner.id)).toMatchObject({ total_commission: commission, total_revenue: revenue });
    expect(await customerStats(t, org, s.customer.id)).toMatchObject({
      total_commission: commission,
      total_revenue: revenue,
      total_orders: 1,
    });
  }

  /** The refund entries of a transaction (negative amounts), oldest first, in the full field set. */
  async function entriesOf(transaction: ApiObject): Promise<ApiObject[]> {
    const all = await commissionsOf(t, org, transaction);
    return Promise.all(all.filter((c) => c.amount < 0).map((c) => fullCommission(t, org, c.id)));
  }

  function expectRefunded(res: Response, transaction: ApiObject, refunded: number): ApiObject {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    expect(res.body.data).toHaveLength(1);
    const after = res.body.data[0];
    expect(Object.keys(after).sort()).toEqual([...TRANSACTION_FIELDS].sort());
    expect(after).toEqual({
      ...transaction,
      refunded_amount: refunded,
      status: refunded === transaction.amount ? 'refunded' : 'partially_refunded',
      refunded_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    return after;
  }

  describe('full refunds', () => {
    it.each([
      ['pending (scheduled)', SCHEDULED, 'pending', undefined],
      ['approved (immediate)', IMMEDIATE, 'approved', {}],
      ['pending (manual)', MANUAL, 'pending', { amount: 10_000 }],
    ])('marks an unpaid %s commission refunded, with no refund entry', async (_label, approval, status, body) => {
      const s = await oneFlow(approval);
      expect(s.reward).toMatchObject({ amount: 2000, revenue: 10_000, status });
      const before = await fullCommission(t, org, s.reward.id);
      await expectTotals(s, 2000, 10_000);

      const started = Date.now();
      const after = expectRefunded(await refund(s.transaction.id, body), s.transaction, 10_000);
      expect(Date.parse(after.refunded_at)).toBeGreaterThanOrEqual(started - 5);
      expect(Date.parse(after.refunded_at)).toBeLessThanOrEqual(Date.now() + 5);
      expect(await retrieve(s.transaction.id)).toEqual(after);

      expect(await fullCommission(t, org, s.reward.id)).toEqual({
        ...before,
        status: 'refunded',
        charge_status: 'refunded',
        updated_at: expect.stringMatching(ISO_MS),
      });
      const commissions = await commissionsOf(t, org, s.transaction);
      expect(commissions.map((c) => [c.id, c.amount, c.status, c.revenue])).toEqual([[s.reward.id, 2000, 'refunded', 10_000]]);
      await expectTotals(s, 0, 0);
      expect((await customerStats(t, org, s.customer.id)).last_order_at).toBe(s.transaction.created_at);

      // Nothing is left: a second refund is refused and changes nothing.
      expectError(await refund(s.transaction.id), 400, 'invalid_request_error', 'amount');
      expectError(await refund(s.transaction.id, { amount: 1 }), 400, 'invalid_request_error', 'amount');
      expect(await retrieve(s.transaction.id)).toEqual(after);
      expect(await commissionsOf(t, org, s.transaction)).toEqual(commissions);
    });

    it('keeps a paid commission paid and adds a negative approved refund entry for all of it', async () => {
      const s = await oneFlow(IMMEDIATE);
      const payoutId = await markPaid(s.reward.id);
      await expectTotals(s, 2000, 10_000);

      expectRefunded(await refund(s.transaction.id), s.transaction, 10_000);
      const all = await commissionsOf(t, org, s.transaction);
      expect(all.map((c) => [c.amount, c.status, c.revenue])).toEqual([
        [2000, 'paid', 10_000],
        [-2000, 'approved', -10_000],
      ]);
      const reward = await fullCommission(t, org, s.reward.id);
      expect(reward).toMatchObject({ status: 'paid', payout_id: payoutId, amount: '2000', type: 'reward', charge_status: 'refunded' });
      const [entry] = await entriesOf(s.transaction);
      expect(entry).toEqual({
        id: expect.stringMatching(/^comm_/),
        amount: '-2000',
        revenue: '-10000',
        customer_id: s.customer.id,
        transaction_id: s.transaction.id,
        charge_id: s.transaction.charge_id,
        charge_status: 'refunded',
        source: 'stripe',
        status: 'approved',
        type: 'refund',
        currency: 'USD',
        partner_id: s.partner.id,
        program_id: s.program.id,
        organization_id: org.organization_id,
        payout_id: null,
        scheduled_approval_date: null,
        approval_type: 'immediate',
        flow_id: s.flow.id,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(entry.id).not.toBe(s.reward.id);
      await expectTotals(s, 0, 0);
    });

    it('refunds a transaction without commissions, and refuses a 0-cent transaction (nothing to refund)', async () => {
      const s = await setup([]);
      const transaction = await createTransaction(t, org, s.customer, { amount: 800 });
      expectRefunded(await refund(transaction.id, { amount: 800 }), transaction, 800);
      expect(await commissionsOf(t, org, transaction)).toEqual([]);
      const free = await createTransaction(t, org, s.customer, { amount: 0 });
      expectError(await refund(free.id), 400, 'invalid_request_error', 'amount');
      expectError(await refund(free.id, { amount: 1 }), 400, 'invalid_request_error', 'amount');
      expect(await retrieve(free.id)).toEqual(free);
    });
  });

  describe('partial refunds', () => {
    it('adds pending refund entries with the scheduled date of a pending commission, and approved ones for an approved commission', async () => {
      const s = await setup([
        { reward: { type: 'percentage', value: 20 }, approval: SCHEDULED },
        { reward: { type: 'fixed', value: 150 }, approval: IMMEDIATE },
      ]);
      const transaction = await createTransaction(t, org, s.customer, {
        amount: 10_000,
        created_at: '2020-01-10T00:00:00.000Z',
        source: 'paddle',
      });
      const rewards = await commissionsOf(t, org, transaction);
      expect(rewards.map((c) => [c.amount, c.status]).sort()).toEqual([
        [150, 'approved'],
        [2000, 'pending'],
      ]);
      const scheduled = rewards.find((c) => c.amount === 2000)!;
      const fixed = rewards.find((c) => c.amount === 150)!;
      const scheduledBefore = await fullCommission(t, org, scheduled.id);
      expect(scheduledBefore.scheduled_approval_date).toBe('2020-02-09T00:00:00.000Z');

      const after = expectRefunded(await refund(transaction.id, { amount: 2500 }), transaction, 2500);
      expect(after.status).toBe('partially_refunded');
      // 2000 → 2000 − 500; 150 → 150 − round(37.5) = 112.
      const entries = await entriesOf(transaction);
      const byOriginal = (flowId: string) => entries.find((e) => e.flow_id === flowId)!;
      expect(entries).toHaveLength(2);
      expect(byOriginal(s.flows[0].id)).toMatchObject({
        amount: '-500',
        revenue: '-2500',
        status: 'pending',
        type: 'refund',
        approval_type: 'scheduled',
        scheduled_approval_date: '2020-02-09T00:00:00.000Z',
        charge_status: 'partially_refunded',
        source: 'paddle',
        payout_id: null,
      });
      expect(byOriginal(s.flows[1].id)).toMatchObject({
        amount: '-38',
        revenue: '-2500',
        status: 'approved',
        type: 'refund',
        approval_type: 'immediate',
        scheduled_approval_date: null,
        charge_status: 'partially_refunded',
      });
      // The rewards themselves are untouched but for charge_status.
      expect(await fullCommission(t, org, scheduled.id)).toMatchObject({
        amount: '2000',
        status: 'pending',
        type: 'reward',
        charge_status: 'partially_refunded',
      });
      expect(await fullCommission(t, org, fixed.id)).toMatchObject({
        amount: '150',
        status: 'approved',
        type: 'reward',
        charge_status: 'partially_refunded',
      });
      await expectTotals(s, 1500 + 112, 7500);

      // The entry is approved together with its commission when the date comes.
      expect(await approveDueCommissions(t.storage.db, new Date('2020-02-08T23:59:59.000Z'))).toBe(0);
      expect(await approveDueCommissions(t.storage.db, new Date('2020-02-09T00:00:00.000Z'))).toBe(2);
      const statuses = (await commissionsOf(t, org, transaction))
        .map((c) => [c.amount, c.status])
        .sort((a, b) => (a[0] as number) - (b[0] as number));
      expect(statuses).toEqual([
        [-500, 'approved'],
        [-38, 'approved'],
        [150, 'approved'],
        [2000, 'approved'],
      ]);
      await expectTotals(s, 1612, 7500);
    });

    it('adds an approved entry for a paid commission, with the original approval_type', async () => {
      const s = await oneFlow(MANUAL);
      expect(s.reward.status).toBe('pending');
      const payoutId = await markPaid(s.reward.id);
      expectRefunded(await refund(s.transaction.id, { amount: 1000 }), s.transaction, 1000);
      const [entry, ...more] = await entriesOf(s.transaction);
      expect(more).toEqual([]);
      expect(entry).toMatchObject({
        amount: '-200',
        revenue: '-1000',
        status: 'approved',
        type: 'refund',
        approval_type: 'manual',
        scheduled_approval_date: null,
        payout_id: null,
        flow_id: s.flow.id,
        charge_status: 'partially_refunded',
      });
      expect(await fullCommission(t, org, s.reward.id)).toMatchObject({
        status: 'paid',
        payout_id: payoutId,
        amount: '2000',
        charge_status: 'partially_refunded',
      });
      await expectTotals(s, 1800, 9000);
    });

    it('brings an unpaid commission to exactly 0 through several partial refunds and then the rest (rounding never drifts)', async () => {
      // 10 % of 9.99 = 100 cents; each third of the payment is 33.33… % of it.
      const s = await oneFlow(IMMEDIATE, 999, 10);
      expect(s.reward.amount).toBe(100);

      let after = expectRefunded(await refund(s.transaction.id, { amount: 333 }), s.transaction, 333);
      await expectTotals(s, 67, 666);
      after = expectRefunded(await refund(s.transaction.id, { amount: 333 }), s.transaction, 666);
      await expectTotals(s, 33, 333);
      let entries = await entriesOf(s.transaction);
      expect(entries.map((e) => [e.amount, e.revenue, e.status, e.charge_status])).toEqual([
        ['-33', '-333', 'approved', 'partially_refunded'],
        ['-34', '-333', 'approved', 'partially_refunded'],
      ]);

      after = expectRefunded(await refund(s.transaction.id), s.transaction, 999);
      expect(after.status).toBe('refunded');
      // Full refund, nothing paid: the commission and its entries are all refunded.
      const all = await commissionsOf(t, org, s.transaction);
      expect(all.map((c) => [c.amount, c.status])).toEqual([
        [100, 'refunded'],
        [-33, 'refunded'],
        [-34, 'refunded'],
      ]);
      entries = await entriesOf(s.transaction);
      expect(entries.map((e) => e.charge_status)).toEqual(['refunded', 'refunded']);
      await expectTotals(s, 0, 0);
    });

    it('brings a paid commission to exactly 0 through several partial refunds and then the rest', async () => {
      const s = await oneFlow(SCHEDULED, 999, 10);
      await markPaid(s.reward.id);
      for (const [amount, commission, revenue] of [
        [333, 67, 666],
        [333, 33, 333],
        [1, 33, 332],
        [undefined, 0, 0],
      ] as const) {
        const res = await refund(s.transaction.id, amount === undefined ? undefined : { amount });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        await expectTotals(s, commission, revenue);
      }
      const all = await commissionsOf(t, org, s.transaction);
      // A 1-cent refund moves the target by round(0.1) = 0: no entry.
      expect(all.map((c) => [c.amount, c.status, c.revenue])).toEqual([
        [100, 'paid', 999],
        [-33, 'approved', -333],
        [-34, 'approved', -333],
        [-33, 'approved', -332],
      ]);
      expect(all.reduce((sum, c) => sum + c.amount, 0)).toBe(0);
      const entries = await entriesOf(s.transaction);
      expect(entries.map((e) => [e.type, e.approval_type, e.scheduled_approval_date, e.charge_status])).toEqual([
        ['refund', 'scheduled', null, 'refunded'],
        ['refund', 'scheduled', null, 'refunded'],
        ['refund', 'scheduled', null, 'refunded'],
      ]);
    });

    it('ends at 0 with a new entry when the commission was paid between partial refunds', async () => {
      const s = await oneFlow(IMMEDIATE, 999, 10);
      expectRefunded(await refund(s.transaction.id, { amount: 333 }), s.transaction, 333);
      await markPaid(s.reward.id);
      expectRefunded(await refund(s.transaction.id), s.transaction, 999);
      const all = await commissionsOf(t, org, s.transaction);
      expect(all.map((c) => [c.amount, c.status])).toEqual([
        [100, 'paid'],
        [-33, 'approved'],
        [-67, 'approved'],
      ]);
      await expectTotals(s, 0, 0);
    });

    it('ends at 0 with a new entry when an earlier refund entry was paid (the commission itself unpaid)', async () => {
      const s = await oneFlow(IMMEDIATE, 999, 10);
      expectRefunded(await refund(s.transaction.id, { amount: 500 }), s.transaction, 500);
      const [first] = await entriesOf(s.transaction);
      // 100 − round(50.05) = 50.
      expect(first.amount).toBe('-50');
      await markPaid(first.id);
      expectRefunded(await refund(s.transaction.id), s.transaction, 999);
      const all = await commissionsOf(t, org, s.transaction);
      expect(all.map((c) => [c.amount, c.status])).toEqual([
        [100, 'approved'],
        [-50, 'paid'],
        [-50, 'approved'],
      ]);
      await expectTotals(s, 0, 0);
    });

    it('leaves rejected commissions alone and treats a manual commission on the transaction like a flow one', async () => {
      const s = await oneFlow(IMMEDIATE);
      expect((await t.request.put(`/v1/commissions/${s.reward.id}`).set(org.auth).send({ status: 'rejected' })).status).toBe(200);
      const manual = await t.request
        .post('/v1/commissions')
        .set(org.auth)
        .send({ amount: 1000, customer_id: s.customer.id, transaction_id: s.transaction.id, revenue: 10_000 });
      expect(manual.status, JSON.stringify(manual.body)).toBe(201);
      await expectTotals(s, 1000, 10_000);

      expectRefunded(await refund(s.transaction.id, { amount: 4000 }), s.transaction, 4000);
      const entries = await entriesOf(s.transaction);
      expect(entries.map((e) => [e.amount, e.revenue, e.status, e.approval_type, e.flow_id])).toEqual([
        ['-400', '-4000', 'pending', 'manual', null],
      ]);
      expect(await fullCommission(t, org, s.reward.id)).toMatchObject({ status: 'rejected', charge_status: 'partially_refunded' });
      await expectTotals(s, 600, 6000);

      expectRefunded(await refund(s.transaction.id), s.transaction, 10_000);
      const all = await commissionsOf(t, org, s.transaction);
      expect(all.map((c) => [c.amount, c.status])).toEqual([
        [2000, 'rejected'],
        [1000, 'refunded'],
        [-400, 'refunded'],
      ]);
      await expectTotals(s, 0, 0);
    });
  });

  describe('invalid refunds', () => {
    it('refuses more than is left (400 param amount) and changes nothing', async () => {
      const s = await oneFlow(IMMEDIATE, 1000);
      expectError(await refund(s.transaction.id, { amount: 1001 }), 400, 'invalid_request_error', 'amount');
      expect(await retrieve(s.transaction.id)).toEqual(s.transaction);
      const partial = expectRefunded(await refund(s.transaction.id, { amount: 400 }), s.transaction, 400);
      const commissions = await commissionsOf(t, org, s.transaction);
      expectError(await refund(s.transaction.id, { amount: 601 }), 400, 'invalid_request_error', 'amount');
      expect(await retrieve(s.transaction.id)).toEqual(partial);
      expect(await commissionsOf(t, org, s.transaction)).toEqual(commissions);
      await expectTotals(s, 120, 600);
      expectRefunded(await refund(s.transaction.id, { amount: 600 }), s.transaction, 1000);
      expectError(await refund(s.transaction.id, { amount: 1 }), 400, 'invalid_request_error', 'amount');
      expectError(await refund(s.transaction.id, {}), 400, 'invalid_request_error', 'amount');
      await expectTotals(s, 0, 0);
    });

    it('refuses a zero, negative, fractional or non-number amount and unknown keys', async () => {
      const s = await oneFlow(IMMEDIATE, 1000);
      for (const amount of [0, -1, -1000, 1.5, '500', null, true, [500], 1_000_000_000_001]) {
        expectError(await refund(s.transaction.id, { amount }), 400, 'invalid_request_error', 'amount');
      }
      expectError(await refund(s.transaction.id, { amount: 100, reason: 'x' }), 400, 'invalid_request_error', 'reason');
      expectError(await refund(s.transaction.id, { refunded_amount: 100 }), 400, 'invalid_request_error', 'refunded_amount');
      expect(await retrieve(s.transaction.id)).toEqual(s.transaction);
      expect(await commissionsOf(t, org, s.transaction)).toEqual([s.reward]);
      expectError(await refund('txn_nope'), 404, 'not_found_error');
    });
  });

  describe('simultaneous refunds of one transaction', () => {
    /** Sends the refunds at once and returns the statuses, sorted. */
    async function together(id: string, bodies: (Record<string, unknown> | undefined)[]): Promise<Response[]> {
      return Promise.all(bodies.map((b) => refund(id, b)));
    }
    const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();
    const net = (cs: ApiObject[]) =>
      cs.filter((c) => c.status !== 'rejected' && c.status !== 'refunded').reduce((sum, c) => sum + c.amount, 0);

    it('never refunds more than the amount: two refunds of 60 % → one 200, one 400', async () => {
      for (let round = 0; round < 3; round++) {
        const s = await oneFlow(IMMEDIATE);
        const responses = await together(s.transaction.id, [{ amount: 6000 }, { amount: 6000 }]);
        expect(statuses(responses)).toEqual([200, 400]);
        expectError(responses.find((r) => r.status === 400)!, 400, 'invalid_request_error', 'amount');
        expect(await retrieve(s.transaction.id)).toMatchObject({ refunded_amount: 6000, status: 'partially_refunded' });
        const all = await commissionsOf(t, org, s.transaction);
        expect(all.map((c) => [c.amount, c.status])).toEqual([
          [2000, 'approved'],
          [-1200, 'approved'],
        ]);
        expect(net(all)).toBe(800);
        await expectTotals(s, 800, 4000);
      }
    });

    it('applies both of two refunds that fit, the commission net matching the refunded total', async () => {
      for (let round = 0; round < 3; round++) {
        const s = await oneFlow(SCHEDULED);
        const responses = await together(s.transaction.id, [{ amount: 3000 }, { amount: 3000 }]);
        expect(statuses(responses)).toEqual([200, 200]);
        expect(responses.map((r) => r.body.data[0].refunded_amount).sort()).toEqual([3000, 6000]);
        expect(await retrieve(s.transaction.id)).toMatchObject({ refunded_amount: 6000, status: 'partially_refunded' });
        const all = await commissionsOf(t, org, s.transaction);
        expect(all.map((c) => [c.amount, c.status])).toEqual([
          [2000, 'pending'],
          [-600, 'pending'],
          [-600, 'pending'],
        ]);
        await expectTotals(s, 800, 4000);
      }
    });

    it('refunds everything exactly once when full refunds race (unpaid → refunded; paid → one entry)', async () => {
      const unpaid = await oneFlow(IMMEDIATE);
      const r1 = await together(unpaid.transaction.id, [undefined, {}, { amount: 10_000 }]);
      expect(statuses(r1)).toEqual([200, 400, 400]);
      const unpaidAll = await commissionsOf(t, org, unpaid.transaction);
      expect(unpaidAll.map((c) => [c.amount, c.status])).toEqual([[2000, 'refunded']]);
      await expectTotals(unpaid, 0, 0);

      const paid = await oneFlow(IMMEDIATE);
      await markPaid(paid.reward.id);
      const r2 = await together(paid.transaction.id, [undefined, undefined, {}]);
      expect(statuses(r2)).toEqual([200, 400, 400]);
      const paidAll = await commissionsOf(t, org, paid.transaction);
      expect(paidAll.map((c) => [c.amount, c.status])).toEqual([
        [2000, 'paid'],
        [-2000, 'approved'],
      ]);
      await expectTotals(paid, 0, 0);
    });

    it('four simultaneous quarter refunds of a paid commission end at exactly 0', async () => {
      const s = await oneFlow(IMMEDIATE, 999, 10);
      await markPaid(s.reward.id);
      const responses = await together(s.transaction.id, [{ amount: 250 }, { amount: 250 }, { amount: 250 }, { amount: 249 }]);
      expect(statuses(responses)).toEqual([200, 200, 200, 200]);
      expect(await retrieve(s.transaction.id)).toMatchObject({ refunded_amount: 999, status: 'refunded' });
      const all = await commissionsOf(t, org, s.transaction);
      expect(all).toHaveLength(5);
      expect(all.filter((c) => c.amount < 0).every((c) => c.status === 'approved')).toBe(true);
      expect(all.filter((c) => c.amount < 0).reduce((sum, c) => sum - c.revenue, 0)).toBe(999);
      expect(net(all)).toBe(0);
      await expectTotals(s, 0, 0);
    });
  });
});
