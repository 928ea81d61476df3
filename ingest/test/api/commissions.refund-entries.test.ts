import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createPartner,
  createTransaction,
  customerStats,
  fullCommission,
  partnerStats,
  quietProgram,
} from '../support/factories.js';
import { resource, useTestApp } from '../support/fixture.js';

/**
 * A reward's refund entries (`type: "refund"`, made by partial refunds) follow their reward in
 * and out of the totals: rejected, refunded or deleted, the reward takes its unpaid entries with
 * it; counted again, it brings them back as they were. Paid entries stay as they are. And
 * deleting a transaction settles its commissions like a full refund, rejecting what a refund
 * would mark refunded.
 */

describe('refund entries follow their reward', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  const { put } = resource(t, '/v1/commissions', org);
  async function setStatus(id: string, status: string): Promise<void> {
    const res = await put(id, { status });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  async function refund(transaction: ApiObject, amount?: number): Promise<void> {
    const res = await t.request
      .put(`/v1/transactions/${transaction.id}/refund`)
      .set(org.auth)
      .send(amount === undefined ? {} : { amount });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  /** A quiet program with the given flows, one partner, one active customer and a payment of 10 000. */
  async function paid(flows: Record<string, unknown>[] = [{ reward: { type: 'percentage', value: 20 }, approval: { type: 'immediate' } }]) {
    const program = await quietProgram(t, org);
    for (const f of flows) await createFlow(t, org, { program_id: program.id, ...f });
    const partner = await createPartner(t, org, { program_id: program.id });
    const customer = await createCustomer(t, org, partner, { status: 'active' });
    const transaction = await createTransaction(t, org, customer, { amount: 10_000 });
    const rewards = await commissionsOf(t, org, transaction);
    return { program, partner, customer, transaction, rewards, reward: rewards[0] };
  }

  /** [amount, status] of every live commission of the transaction, oldest first. */
  const rows = async (transaction: ApiObject) => (await commissionsOf(t, org, transaction)).map((c) => [c.amount, c.status]);

  /** The partner's and the customer's total_commission, which must agree. */
  async function expectTotal(s: { partner: ApiObject; customer: ApiObject }, total: number): Promise<void> {
    expect((await partnerStats(t, org, s.partner.id)).total_commission).toBe(total);
    expect((await customerStats(t, org, s.customer.id)).total_commission).toBe(total);
  }

  it('a rejected or refunded reward takes its unpaid entries out of the totals, and brings them back when it counts again', async () => {
    const s = await paid();
    await refund(s.transaction, 5000);
    expect(await rows(s.transaction)).toEqual([
      [2000, 'approved'],
      [-1000, 'approved'],
    ]);
    await expectTotal(s, 1000);

    await setStatus(s.reward.id, 'rejected');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'rejected'],
      [-1000, 'rejected'],
    ]);
    await expectTotal(s, 0);

    await setStatus(s.reward.id, 'approved');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'approved'],
      [-1000, 'approved'],
    ]);
    await expectTotal(s, 1000);

    await setStatus(s.reward.id, 'refunded');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'refunded'],
      [-1000, 'refunded'],
    ]);
    await expectTotal(s, 0);

    // From one void status to the other, the entries go along; back to paid, they return.
    await setStatus(s.reward.id, 'rejected');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'rejected'],
      [-1000, 'rejected'],
    ]);
    await setStatus(s.reward.id, 'paid');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'paid'],
      [-1000, 'approved'],
    ]);
    await expectTotal(s, 1000);
  });

  it('entries come back with the status they had (pending with their approval date)', async () => {
    const s = await paid([{ reward: { type: 'percentage', value: 20 }, approval: { type: 'scheduled', delay_days: 30 } }]);
    await refund(s.transaction, 2500);
    const [, entry] = await commissionsOf(t, org, s.transaction);
    const before = await fullCommission(t, org, entry.id);
    expect(before).toMatchObject({ amount: '-500', status: 'pending', type: 'refund' });
    expect(before.scheduled_approval_date).not.toBeNull();

    await setStatus(s.reward.id, 'rejected');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'rejected'],
      [-500, 'rejected'],
    ]);
    await setStatus(s.reward.id, 'approved');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'approved'],
      [-500, 'pending'],
    ]);
    expect(await fullCommission(t, org, entry.id)).toMatchObject({
      status: 'pending',
      scheduled_approval_date: before.scheduled_approval_date,
    });
    await expectTotal(s, 1500);
  });

  it('an entry rejected on its own stays rejected when its reward comes back; a status set on an entry wins', async () => {
    const s = await paid();
    await refund(s.transaction, 1000);
    await refund(s.transaction, 1000);
    const [, first, second] = await commissionsOf(t, org, s.transaction);
    expect([first.amount, second.amount]).toEqual([-200, -200]);
    await setStatus(first.id, 'rejected');
    await expectTotal(s, 1800);

    await setStatus(s.reward.id, 'rejected');
    await expectTotal(s, 0);
    await setStatus(s.reward.id, 'approved');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'approved'],
      [-200, 'rejected'],
      [-200, 'approved'],
    ]);
    await expectTotal(s, 1800);

    // An entry set by hand while its reward is out no longer follows it.
    await setStatus(s.reward.id, 'rejected');
    await setStatus(second.id, 'approved');
    await setStatus(s.reward.id, 'refunded');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'refunded'],
      [-200, 'rejected'],
      [-200, 'approved'],
    ]);
    await expectTotal(s, -200);
  });

  it('a paid entry stays as it is: that money has moved', async () => {
    const s = await paid();
    await refund(s.transaction, 5000);
    const [, entry] = await commissionsOf(t, org, s.transaction);
    await setStatus(entry.id, 'paid');
    await setStatus(s.reward.id, 'rejected');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'rejected'],
      [-1000, 'paid'],
    ]);
    await expectTotal(s, -1000);
    await setStatus(s.reward.id, 'approved');
    await expectTotal(s, 1000);
  });

  it('a deleted reward deletes its unpaid entries; paid ones stay', async () => {
    const s = await paid();
    await refund(s.transaction, 1000);
    await refund(s.transaction, 1000);
    await refund(s.transaction, 1000);
    const [, first, second, third] = await commissionsOf(t, org, s.transaction);
    await setStatus(first.id, 'paid');
    await setStatus(second.id, 'rejected');
    await expectTotal(s, 1600);

    const res = await t.request.delete(`/v1/commissions/${s.reward.id}`).set(org.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const id of [s.reward.id, second.id, third.id])
      expectError(await t.request.get(`/v1/commissions/${id}`).set(org.auth), 404, 'not_found_error');
    expect((await commissionsOf(t, org, s.transaction)).map((c) => [c.id, c.amount, c.status])).toEqual([[first.id, -200, 'paid']]);
    await expectTotal(s, -200);
  });

  it('a full refund after the reward was rejected changes nothing more', async () => {
    const s = await paid();
    await refund(s.transaction, 5000);
    await setStatus(s.reward.id, 'rejected');
    await refund(s.transaction);
    expect(await rows(s.transaction)).toEqual([
      [2000, 'rejected'],
      [-1000, 'rejected'],
    ]);
    await expectTotal(s, 0);
  });

  it('a full refund marks an unpaid reward refunded and its entries with it, and they come back with it', async () => {
    const s = await paid();
    await refund(s.transaction, 5000);
    await refund(s.transaction);
    expect(await rows(s.transaction)).toEqual([
      [2000, 'refunded'],
      [-1000, 'refunded'],
    ]);
    await setStatus(s.reward.id, 'approved');
    expect(await rows(s.transaction)).toEqual([
      [2000, 'approved'],
      [-1000, 'approved'],
    ]);
    await expectTotal(s, 1000);
  });

  describe('DELETE /v1/transactions/:id', () => {
    const twoFlows = [
      { reward: { type: 'percentage', value: 20 }, approval: { type: 'immediate' } },
      { reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } },
    ];

    it('claws a paid reward back like a full refund and keeps its entries; an unpaid reward is rejected with its entries', async () => {
      const s = await paid(twoFlows);
      const paidReward = s.rewards.find((c) => c.amount === 2000)!;
      const unpaidReward = s.rewards.find((c) => c.amount === 1000)!;
      await setStatus(paidReward.id, 'paid');
      await refund(s.transaction, 5000);
      const entries = (await commissionsOf(t, org, s.transaction)).filter((c) => c.amount < 0);
      const paidEntry = entries.find((c) => c.amount === -1000)!;
      const unpaidEntry = entries.find((c) => c.amount === -500)!;
      expect([paidEntry.status, unpaidEntry.status]).toEqual(['approved', 'approved']);
      await expectTotal(s, 1500);

      const res = await t.request.delete(`/v1/transactions/${s.transaction.id}`).set(org.auth);
      expect(res.status, JSON.stringify(res.body)).toBe(200);

      const after = await commissionsOf(t, org, s.transaction);
      const statusOf = (id: string) => after.find((c) => c.id === id)?.status;
      expect(statusOf(paidReward.id)).toBe('paid');
      expect(statusOf(paidEntry.id)).toBe('approved');
      expect(statusOf(unpaidReward.id)).toBe('rejected');
      expect(statusOf(unpaidEntry.id)).toBe('rejected');
      expect(after).toHaveLength(5);
      const clawback = await fullCommission(t, org, after[4].id);
      expect(clawback).toMatchObject({
        type: 'refund',
        amount: '-1000',
        revenue: '-5000',
        status: 'approved',
        payout_id: null,
        partner_id: s.partner.id,
      });
      expect((await fullCommission(t, org, paidReward.id)).payout_id).toMatch(/^po_/);
      await expectTotal(s, 0);
      expect(await partnerStats(t, org, s.partner.id)).toMatchObject({ total_revenue: 0 });
    });

    it('recording the charge again after a delete pays the partner once', async () => {
      const s = await paid();
      await setStatus(s.reward.id, 'paid');
      await expectTotal(s, 2000);
      expect((await t.request.delete(`/v1/transactions/${s.transaction.id}`).set(org.auth)).status).toBe(200);
      await expectTotal(s, 0);
      const again = await createTransaction(t, org, s.customer, { amount: 10_000, charge_id: s.transaction.charge_id });
      expect(await rows(again)).toEqual([[2000, 'approved']]);
      await expectTotal(s, 2000);
    });

    it('a 0-cent transaction with a paid commission can be deleted', async () => {
      const s = await paid([]);
      const free = await createTransaction(t, org, s.customer, { amount: 0 });
      const manual = await t.request
        .post('/v1/commissions')
        .set(org.auth)
        .send({ amount: 300, customer_id: s.customer.id, transaction_id: free.id, status: 'paid' });
      expect(manual.status, JSON.stringify(manual.body)).toBe(201);
      const res = await t.request.delete(`/v1/transactions/${free.id}`).set(org.auth);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await rows(free)).toEqual([
        [300, 'paid'],
        [-300, 'approved'],
      ]);
      await expectTotal(s, 0);
    });
  });
});
