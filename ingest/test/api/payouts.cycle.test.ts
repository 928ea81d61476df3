import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { statementCounter } from '../../bench/statement-counter.js';
import { approveDueCommissions } from '../../src/resources/commissions/approval-job.js';
import { generateProgramPayouts } from '../../src/resources/payouts/payouts.service.js';
import {
  type ApiObject,
  createCustomer,
  createLink,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { type TestApp, warmPool } from '../support/harness.js';
import { expectPayoutsTrue } from '../support/payout-invariants.js';
import { DAY_MS } from '../support/time.js';

/** The whole money cycle, and payout generation at once on two processes and at scale. */

/** A partner of the program paid by PayPal. */
const paypalPartner = (t: TestApp, org: TestOrg, program: ApiObject) =>
  createPartner(t, org, {
    program_id: program.id,
    group_id: program.default_group_id,
    payout_method: 'paypal',
    payout_details: { email: uniqueEmail('paypal') },
  });

describe('the money cycle: clicks → customers → payments → approvals → payouts → a refund after payout', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('pays the partner what they earned, and takes a refund after payout out of the next payout', async () => {
    const api = t.request;
    const program = await createProgram(t, org);
    const alice = await paypalPartner(t, org, program);
    const link = await createLink(t, org, alice);
    const click = (await api.post('/v1/clicks').set(org.auth).send({ param: link.param, value: link.value })).body.data[0];
    const customer = await createCustomer(t, org, alice, { click_id: click.id });
    // Three payments on the default flow: 20 %, approved 30 days later.
    const payments = [];
    for (const amount of [5000, 5000, 5000]) payments.push(await createTransaction(t, org, customer, { amount }));
    expect(await approveDueCommissions(t.storage.db, new Date(Date.now() + 31 * DAY_MS))).toBeGreaterThanOrEqual(3);

    const first = (await api.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id })).body.data;
    expect(first.payouts).toEqual([expect.objectContaining({ partner_id: alice.id, amount: 3000, commission_count: 3 })]);
    const payoutId = first.payouts[0].id;

    const file = await api.get('/v1/payouts/export').set(org.auth).query({ program_id: program.id, format: 'paypal' });
    expect(parse(file.text)).toEqual([[alice.payout_details.email, '30.00', 'USD', payoutId, `Partner payout ${payoutId}`, 'PAYPAL']]);

    const paid = await api.put(`/v1/payouts/${payoutId}`).set(org.auth).send({ status: 'paid', reference: 'PP-BATCH-1' });
    expect(paid.body.data[0]).toMatchObject({ status: 'paid', reference: 'PP-BATCH-1' });
    const earned = (await api.get('/v1/commissions').set(org.auth).query({ program_id: program.id, partner_id: alice.id })).body.data;
    expect(earned.map((c: ApiObject) => c.status)).toEqual(['paid', 'paid', 'paid']);

    // A refund after payout: the paid commission keeps its status and gets an approved refund entry.
    expect((await api.put(`/v1/transactions/${payments[0].id}/refund`).set(org.auth).send({})).status).toBe(200);
    const balance = (await api.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: alice.id })).body.data[0];
    expect(balance.amounts).toEqual([{ currency: 'USD', pending: 0, payable: -1000, in_payouts: 0, paid: 3000, on_hold: 0 }]);

    // The next payment's commission, less the refund entry, is the next payout.
    await createTransaction(t, org, customer, { amount: 10_000 });
    await approveDueCommissions(t.storage.db, new Date(Date.now() + 31 * DAY_MS));
    const second = (await api.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id })).body.data;
    expect(second.payouts).toEqual([expect.objectContaining({ partner_id: alice.id, amount: 1000, commission_count: 2 })]);
    await api.put(`/v1/payouts/${second.payouts[0].id}`).set(org.auth).send({ status: 'paid' });

    // Every cent traced: what was paid equals the partner's net commission.
    const stats = (await api.get(`/v1/partners/${alice.id}`).set(org.auth).query({ 'include[]': 'stats' })).body.data.stats;
    const after = (await api.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: alice.id })).body.data[0];
    // Paid: 3 × 1000, then 2000 less the 1000 refund entry.
    expect(after.amounts[0]).toMatchObject({ payable: 0, in_payouts: 0, paid: 4000 });
    expect(stats.total_commission).toBe(4000);
  });
});

describe('payout generation at once on two processes', () => {
  const first = useTestApp({ orgs: 1 });
  const second = useTestApp({ sharesStorageWith: first.t });

  it('never puts a commission in two payouts', async () => {
    const { t } = first;
    const [org] = first.orgs;
    const program = await createProgram(t, org);
    const partners: ApiObject[] = [];
    for (let i = 0; i < 12; i++) {
      partners.push(await paypalPartner(t, org, program));
    }
    let total = 0;
    for (const [i, partner] of partners.entries()) {
      for (let k = 0; k < 5; k++) {
        const amount = 100 * (i + 1) + k;
        total += amount;
        const res = await t.request
          .post('/v1/commissions')
          .set(org.auth)
          .send({ program_id: program.id, partner_id: partner.id, amount, status: 'approved' });
        expect(res.status).toBe(201);
      }
    }
    const generate = (app: typeof t) => app.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id });
    const answers = await Promise.all([generate(first.t), generate(second.t), generate(first.t), generate(second.t)]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    const made = answers.flatMap((a) => a.body.data.payouts as ApiObject[]);
    expect(made).toHaveLength(partners.length);
    expect(made.reduce((sum, p) => sum + p.amount, 0)).toBe(total);
    const seen = new Set<string>();
    for (const payout of made) {
      const commissions = (await t.request.get(`/v1/payouts/${payout.id}/commissions`).set(org.auth).query({ limit: 100 })).body.data;
      expect(commissions).toHaveLength(5);
      for (const c of commissions) {
        expect(seen.has(c.id)).toBe(false);
        seen.add(c.id);
      }
    }
  });

  it('two refunds at once each take their own commission out of a pending payout', async () => {
    const { t } = first;
    const [org] = first.orgs;
    const program = await createProgram(t, org);
    const alice = await paypalPartner(t, org, program);
    const customer = await createCustomer(t, org, alice);
    const payments = [];
    for (const amount of [1000, 2000, 4000]) payments.push(await createTransaction(t, org, customer, { amount }));
    for (const c of (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id })).body.data) {
      await t.request.put(`/v1/commissions/${c.id}`).set(org.auth).send({ status: 'approved' });
    }
    const [payout] = (await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id })).body.data.payouts;
    expect(payout).toMatchObject({ amount: 1400, commission_count: 3 });
    const refunds = await Promise.all([
      first.t.request.put(`/v1/transactions/${payments[0].id}/refund`).set(org.auth).send({}),
      second.t.request.put(`/v1/transactions/${payments[1].id}/refund`).set(org.auth).send({}),
    ]);
    expect(refunds.map((r) => r.status)).toEqual([200, 200]);
    const after = (await t.request.get(`/v1/payouts/${payout.id}`).set(org.auth)).body.data;
    expect(after).toMatchObject({ status: 'pending', amount: 800, commission_count: 1 });
    const left = (await t.request.get(`/v1/payouts/${payout.id}/commissions`).set(org.auth)).body.data;
    expect(left.map((c: ApiObject) => [c.amount, c.transaction_id])).toEqual([[800, payments[2].id]]);
  });

  /** Payments of the partner's customer on the default flow (20 %), their rewards approved by hand. */
  async function approvedPayments(org: TestOrg, partner: ApiObject, amounts: number[]) {
    const { t } = first;
    const customer = await createCustomer(t, org, partner);
    const payments: ApiObject[] = [];
    for (const amount of amounts) payments.push(await createTransaction(t, org, customer, { amount }));
    const rewards = (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: partner.program_id, partner_id: partner.id }))
      .body.data as ApiObject[];
    for (const r of rewards.filter((c) => c.status === 'pending')) {
      await t.request.put(`/v1/commissions/${r.id}`).set(org.auth).send({ status: 'approved' });
    }
    return payments;
  }
  const refundAt = (app: TestApp, org: TestOrg, txn: ApiObject, amount: number) =>
    app.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({ amount });

  it('partial refunds of several transactions at once, a generation meanwhile: every payout its rows, net of every refund', async () => {
    const { t } = first;
    const [org] = first.orgs;
    await warmPool(t);
    for (let round = 0; round < 2; round++) {
      const program = await createProgram(t, org);
      const partners = [await paypalPartner(t, org, program), await paypalPartner(t, org, program)];
      // Two payments each in a pending payout, two more approved since: what the generation takes.
      const inPayout: ApiObject[] = [];
      for (const p of partners) inPayout.push(...(await approvedPayments(org, p, [10_000, 20_000])));
      const made = (await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id })).body.data.payouts;
      expect(made.map((p: ApiObject) => p.amount)).toEqual([6000, 6000]);
      const later: ApiObject[] = [];
      for (const p of partners) later.push(...(await approvedPayments(org, p, [30_000, 40_000])));

      const apps = [first.t, second.t];
      const answers = await Promise.all([
        ...[...inPayout, ...later].map((txn, i) => refundAt(apps[i % 2], org, txn, txn.amount / 4)),
        second.t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([...Array(8).fill(200), 201]);
      const byStatus = await expectPayoutsTrue(t.storage.db, program.id);
      expect(byStatus).toEqual({ pending: 4 });
      // A quarter of every reward refunded: 3 / 4 of 2000 + 4000 + 6000 + 8000 per partner is left in payouts.
      const pending = (await t.request.get('/v1/payouts').set(org.auth).query({ program_id: program.id, status: 'pending' })).body.data;
      expect(pending.reduce((sum: number, p: ApiObject) => sum + p.amount, 0)).toBe(2 * 15_000);
      for (const p of partners) {
        const balance = (await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: p.id })).body.data[0];
        expect(balance.amounts[0]).toMatchObject({ payable: 0, in_payouts: 15_000 });
      }
    }
  });

  it('two partial refunds of one transaction at once both come out of its pending payout', async () => {
    const { t } = first;
    const [org] = first.orgs;
    await warmPool(t);
    const program = await createProgram(t, org);
    const alice = await paypalPartner(t, org, program);
    const [txn] = await approvedPayments(org, alice, [10_000]);
    const [payout] = (await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id })).body.data.payouts;
    const answers = await Promise.all([refundAt(first.t, org, txn, 3000), refundAt(second.t, org, txn, 3000)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect((await t.request.get(`/v1/payouts/${payout.id}`).set(org.auth)).body.data).toMatchObject({
      status: 'pending',
      amount: 800,
      commission_count: 3,
    });
    await expectPayoutsTrue(t.storage.db, program.id);
    // Paying it pays the reward net of both refunds.
    await t.request.put(`/v1/payouts/${payout.id}`).set(org.auth).send({ status: 'paid' });
    expect(await expectPayoutsTrue(t.storage.db, program.id)).toEqual({ paid: 1 });
    const balance = (await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: alice.id })).body.data[0];
    expect(balance.amounts[0]).toMatchObject({ payable: 0, in_payouts: 0, paid: 800 });
  });

  it('a refund while its payout is marked paid or processing: either order leaves every cent traced', async () => {
    const { t } = first;
    const [org] = first.orgs;
    await warmPool(t);
    const program = await createProgram(t, org);
    const [alice, bob] = [await paypalPartner(t, org, program), await paypalPartner(t, org, program)];
    const [a] = await approvedPayments(org, alice, [10_000]);
    const [b] = await approvedPayments(org, bob, [10_000]);
    const made = (await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id })).body.data.payouts;
    const payoutOf = (partner: ApiObject) => made.find((p: ApiObject) => p.partner_id === partner.id).id;
    const answers = await Promise.all([
      refundAt(first.t, org, a, 2500),
      second.t.request
        .put(`/v1/payouts/${payoutOf(alice)}`)
        .set(org.auth)
        .send({ status: 'paid' }),
      second.t.request.put(`/v1/transactions/${b.id}/refund`).set(org.auth).send({}),
      first.t.request
        .put(`/v1/payouts/${payoutOf(bob)}`)
        .set(org.auth)
        .send({ status: 'processing' }),
    ]);
    expect(answers.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
    // Bob's payout, its only commission refunded first, was canceled: nothing to process.
    if (answers[3].status !== 200) expect(answers[3].body.error.message).toBe('A canceled payout cannot change');
    await expectPayoutsTrue(t.storage.db, program.id);
    // Whichever came first, what is paid, in payouts and payable adds up to each reward net of its refund.
    for (const [partner, net] of [
      [alice, 1500],
      [bob, 0],
    ] as const) {
      const balance = (await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: partner.id })).body
        .data[0];
      const [amounts] = balance.amounts;
      expect(amounts.paid + amounts.in_payouts + amounts.payable).toBe(net);
    }
  });

  it('issues as many SQL statements for 30 partners as for 2', async () => {
    const { t } = first;
    const [org] = first.orgs;
    const counter = statementCounter();
    const counted = t.storage.db.withPlugin(counter.plugin);
    const run = async (partnerCount: number) => {
      const program = await createProgram(t, org);
      for (let i = 0; i < partnerCount; i++) {
        const partner = await paypalPartner(t, org, program);
        await t.request
          .post('/v1/commissions')
          .set(org.auth)
          .send({ program_id: program.id, partner_id: partner.id, amount: 500, status: 'approved' });
      }
      counter.reset();
      const result = await generateProgramPayouts(counted, org.organization_id, { program_id: program.id });
      expect(result.payouts).toHaveLength(partnerCount);
      return counter.count;
    };
    const few = await run(2);
    const many = await run(30);
    expect(many).toBe(few);
    expect(few).toBeLessThanOrEqual(6);
  });
});
