import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../../src/resources/commissions/approval-job.js';
import { NOTHING_TO_PAY } from '../../src/resources/payouts/payouts.repository.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createGroup,
  createPartner,
  createProgram,
  createTransaction,
  type TestOrg,
  uniqueEmail,
} from '../support/factories.js';
import { resource, useTestApp } from '../support/fixture.js';
import { queuedTo, sentEmails } from '../support/outbox.js';
import { expectPayoutsTrue } from '../support/payout-invariants.js';
import { DAY_MS, ISO_MS } from '../support/time.js';

/**
 * Payouts (ingest/docs/payouts.md): balances, generation with minimums and skipped partners, the
 * status transitions and what they do to commissions, refunds around payouts, the batch files.
 */

const PAYOUT_FIELDS = [
  'id',
  'status',
  'amount',
  'currency',
  'partner_id',
  'program_id',
  'organization_id',
  'payout_method',
  'payout_details',
  'commission_count',
  'period_start',
  'period_end',
  'reference',
  'reason',
  'paid_at',
  'created_at',
  'updated_at',
].sort();

describe('payouts', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });
  const payouts = () => resource(t, '/v1/payouts', org);

  /** A program of its own for each test, so that generations do not see each other's commissions. */
  async function programOf(who: TestOrg = org, fields: Record<string, unknown> = {}) {
    return createProgram(t, who, { currency_code: 'USD', ...fields });
  }
  /** A partner paid by PayPal (unless told otherwise) in the program. */
  const partnerIn = (program: ApiObject, fields: Record<string, unknown> = {}, who: TestOrg = org) =>
    createPartner(t, who, {
      program_id: program.id,
      group_id: program.default_group_id,
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
      ...fields,
    });
  /** A commission made by hand for the partner, approved unless told otherwise. */
  async function commission(partner: ApiObject, amount: number, fields: Record<string, unknown> = {}, who: TestOrg = org) {
    const res = await t.request
      .post('/v1/commissions')
      .set(who.auth)
      .send({ program_id: partner.program_id, partner_id: partner.id, amount, status: 'approved', ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0];
  }
  /** A payment of the partner's customer on the program's default flow (20 %), its reward approved by hand. */
  async function approvedPayment(partner: ApiObject, amount: number, fields: Record<string, unknown> = {}) {
    const customer = await createCustomer(t, org, partner);
    const txn = await createTransaction(t, org, customer, { amount, ...fields });
    const rewards = (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: partner.program_id, transaction_id: txn.id }))
      .body.data as ApiObject[];
    for (const r of rewards) await t.request.put(`/v1/commissions/${r.id}`).set(org.auth).send({ status: 'approved' });
    return { txn, reward: rewards[0] };
  }
  async function generate(program: ApiObject, body: Record<string, unknown> = {}, who: TestOrg = org) {
    const res = await t.request
      .post('/v1/payouts/generate')
      .set(who.auth)
      .send({ program_id: program.id, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { payouts: ApiObject[]; skipped: ApiObject[] };
  }
  async function balanceOf(partner: ApiObject) {
    const res = await t.request.get(`/v1/programs/${partner.program_id}/balances`).set(org.auth).query({ partner_id: partner.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data[0];
  }
  const setStatus = (id: string, body: Record<string, unknown>) => payouts().put(id, body);
  async function commissionsOfPayout(id: string) {
    const res = await t.request.get(`/v1/payouts/${id}/commissions`).set(org.auth).query({ limit: 100 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as ApiObject[];
  }
  const getCommission = async (id: string) =>
    (await t.request.put(`/v1/commissions/${id}`).set(org.auth).send({})).body.data[0] as ApiObject;
  /** Refunds `amount` of the transaction (default: what is left). */
  async function refund(txn: ApiObject, amount?: number) {
    const res = await t.request
      .put(`/v1/transactions/${txn.id}/refund`)
      .set(org.auth)
      .send(amount === undefined ? {} : { amount });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  /** The transaction's refund entries (negative amounts), oldest first. */
  const entriesOf = async (txn: ApiObject) => (await commissionsOf(t, org, txn)).filter((c) => c.amount < 0);
  /** [amount, status] of a payout's commissions, by amount. */
  const rowsOf = async (id: string) =>
    (await commissionsOfPayout(id)).map((c) => [c.amount, c.status]).sort((x, y) => (x[0] as number) - (y[0] as number));
  /** The events of a payout, oldest first. */
  async function payoutEvents(program: ApiObject, id: string) {
    const res = await t.request.get('/v1/events').set(org.auth).query({ program_id: program.id, limit: 100, order: 'asc' });
    return (res.body.data as ApiObject[]).filter((e) => e.data.id === id);
  }

  it('shows what each partner is owed: pending, payable (net of refund entries), in payouts, paid', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const idle = await partnerIn(program);
    await commission(alice, 700, { status: 'pending' });
    await commission(alice, 1000);
    await commission(alice, 300, { status: 'rejected' });
    await commission(alice, 400, { status: 'refunded' });
    const paid = await commission(alice, 2000, { status: 'paid' });
    expect(paid.payout_id).toMatch(/^po_/);
    expect(await balanceOf(alice)).toEqual({
      partner_id: alice.id,
      payout_method: 'paypal',
      minimum_payout: 0,
      amounts: [{ currency: 'USD', pending: 700, payable: 1000, in_payouts: 0, paid: 2000, on_hold: 0 }],
    });
    expect((await balanceOf(idle)).amounts).toEqual([]);

    const [payout] = (await generate(program)).payouts;
    expect(payout).toMatchObject({ partner_id: alice.id, amount: 1000, commission_count: 1 });
    expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: 0, in_payouts: 1000, paid: 2000 });

    const list = await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ expand: 'partner', order: 'asc' });
    expect(list.body.total_count).toBe(2);
    expect(list.body.data.map((b: ApiObject) => [b.partner_id, b.partner.email])).toEqual([
      [alice.id, alice.email],
      [idle.id, idle.email],
    ]);
    expect((await t.request.get(`/v1/programs/${program.id}/balances`).set(other.auth)).status).toBe(404);
  });

  it('makes one payout per partner of their approved commissions, with a snapshot of their payout details', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const bob = await partnerIn(program, { payout_method: 'wise', payout_details: { email: uniqueEmail('wise') } });
    const a1 = await commission(alice, 1200, { created_at: '2026-01-05T00:00:00.000Z' });
    const a2 = await commission(alice, 800, { created_at: '2026-02-05T00:00:00.000Z' });
    await commission(alice, 999, { status: 'pending' });
    await commission(bob, 5000);

    const result = await generate(program);
    expect(result.skipped).toEqual([]);
    expect(result.payouts.map((p) => [p.partner_id, p.amount, p.commission_count]).sort()).toEqual(
      [
        [alice.id, 2000, 2],
        [bob.id, 5000, 1],
      ].sort(),
    );
    const aliceId = result.payouts.find((p) => p.partner_id === alice.id)!.id;
    const payout = (await payouts().get(aliceId)).body.data;
    expect(Object.keys(payout).sort()).toEqual(PAYOUT_FIELDS);
    expect(payout).toMatchObject({
      id: expect.stringMatching(/^po_\w{24}$/),
      status: 'pending',
      amount: 2000,
      currency: 'USD',
      program_id: program.id,
      organization_id: org.organization_id,
      payout_method: 'paypal',
      payout_details: alice.payout_details,
      commission_count: 2,
      period_start: '2026-01-05T00:00:00.000Z',
      period_end: '2026-02-05T00:00:00.000Z',
      reference: null,
      reason: null,
      paid_at: null,
      created_at: expect.stringMatching(ISO_MS),
    });
    expect((await commissionsOfPayout(aliceId)).map((c) => c.id).sort()).toEqual([a1.id, a2.id].sort());
    // The Partnership Program API's rule holds: unpaid commissions carry no payout_id while in a
    // payout.
    expect((await getCommission(a1.id)).payout_id).toBeNull();

    // New details do not change the payout; a second generation finds nothing new.
    await t.request
      .put(`/v1/partners/${alice.id}`)
      .set(org.auth)
      .send({ payout_details: { email: 'new@example.com' } });
    expect((await payouts().get(aliceId)).body.data.payout_details).toEqual(alice.payout_details);
    expect(await generate(program)).toMatchObject({ payouts: [], skipped: [] });
  });

  it('applies the minimum (the group may set its own), and skips partners without a payout method, with nothing owed, or owing', async () => {
    const program = await programOf(org, { minimum_payout: 5000 });
    const lowGroup = await createGroup(t, org, { program_id: program.id, minimum_payout: 100 });
    const small = await partnerIn(program);
    const smallInGroup = await partnerIn(program, { group_id: lowGroup.id });
    const noMethod = await partnerIn(program, { payout_method: 'none', payout_details: {} });
    const owing = await partnerIn(program);
    const big = await partnerIn(program);
    await commission(small, 900);
    await commission(smallInGroup, 900);
    await commission(noMethod, 9000);
    await commission(big, 6000);
    // Owing: a paid reward and a refund entry of it (a refund after payout), nothing else.
    const customer = await createCustomer(t, org, owing, { program_id: program.id });
    const txn = await createTransaction(t, org, customer, { amount: 10_000 });
    const flowCommissions = (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, transaction_id: txn.id }))
      .body.data;
    for (const c of flowCommissions) await t.request.put(`/v1/commissions/${c.id}`).set(org.auth).send({ status: 'paid' });
    expect((await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({})).status).toBe(200);
    expect((await balanceOf(owing)).amounts[0]).toMatchObject({ payable: -2000, paid: 2000 });

    const result = await generate(program);
    expect(result.payouts.map((p) => p.partner_id).sort()).toEqual([big.id, smallInGroup.id].sort());
    expect(result.skipped.sort((x, y) => x.partner_id.localeCompare(y.partner_id))).toEqual(
      [
        { partner_id: small.id, currency: 'USD', amount: 900, minimum_payout: 5000, reason: 'below_minimum' },
        { partner_id: noMethod.id, currency: 'USD', amount: 9000, minimum_payout: 5000, reason: 'no_payout_method' },
        { partner_id: owing.id, currency: 'USD', amount: -2000, minimum_payout: 5000, reason: 'negative_balance' },
      ].sort((x, y) => x.partner_id.localeCompare(y.partner_id)),
    );

    // The negative balance is carried forward: the next payout is smaller by it.
    await commission(owing, 9000);
    const next = await generate(program, { partner_ids: [owing.id] });
    expect(next.payouts).toEqual([expect.objectContaining({ partner_id: owing.id, amount: 7000, commission_count: 2 })]);
  });

  it('takes only commissions up to up_to and only the partners named', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const bob = await partnerIn(program);
    await commission(alice, 100, { created_at: '2026-03-01T00:00:00.000Z' });
    await commission(alice, 200, { created_at: '2026-04-01T00:00:00.000Z' });
    await commission(bob, 300, { created_at: '2026-03-01T00:00:00.000Z' });
    const first = await generate(program, { up_to: '2026-03-31T23:59:59.999Z', partner_ids: [alice.id] });
    expect(first.payouts).toEqual([expect.objectContaining({ partner_id: alice.id, amount: 100 })]);
    const rest = await generate(program);
    expect(rest.payouts.map((p) => [p.partner_id, p.amount]).sort()).toEqual(
      [
        [alice.id, 200],
        [bob.id, 300],
      ].sort(),
    );

    const strange = await t.request
      .post('/v1/payouts/generate')
      .set(org.auth)
      .send({ program_id: program.id, partner_ids: [other.program_id] });
    expect(strange.status).toBe(404);
    expect(strange.body.error.param).toBe('partner_ids');
    const foreign = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: other.program_id });
    expect(foreign.status).toBe(404);
  });

  it('pays: pending → processing → paid marks every commission paid with the payout as payout_id; a paid payout is final', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const c1 = await commission(alice, 1500);
    const c2 = await commission(alice, 2500);
    const [{ id }] = (await generate(program)).payouts;

    const processing = await setStatus(id, { status: 'processing', reference: 'PAYPAL-BATCH-7' });
    expect(processing.status, JSON.stringify(processing.body)).toBe(200);
    expect(processing.body.data[0]).toMatchObject({ status: 'processing', reference: 'PAYPAL-BATCH-7', paid_at: null });
    expect((await getCommission(c1.id)).status).toBe('approved');

    const paid = await setStatus(id, { status: 'paid' });
    expect(paid.body.data[0]).toMatchObject({ status: 'paid', paid_at: expect.stringMatching(ISO_MS) });
    for (const c of [c1, c2]) expect(await getCommission(c.id)).toMatchObject({ status: 'paid', payout_id: id });
    expect((await commissionsOfPayout(id)).map((c) => c.status)).toEqual(['paid', 'paid']);
    expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: 0, in_payouts: 0, paid: 4000 });

    for (const body of [{ status: 'canceled' }, { reference: 'changed' }, { status: 'paid' }]) {
      const res = await setStatus(id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('A paid payout cannot change');
    }
  });

  it('cancel and fail make the commissions payable again; transitions that go back are refused', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    await commission(alice, 1000);
    const [first] = (await generate(program)).payouts;
    expect((await setStatus(first.id, { status: 'canceled', reason: 'Wrong month' })).body.data[0]).toMatchObject({
      status: 'canceled',
      reason: 'Wrong month',
    });
    expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: 1000, in_payouts: 0 });

    const [second] = (await generate(program)).payouts;
    expect(second).toMatchObject({ amount: 1000 });
    expect((await setStatus(second.id, { status: 'processing' })).status).toBe(200);
    const back = await setStatus(second.id, { status: 'pending' });
    expect(back.status).toBe(400);
    expect(back.body.error).toMatchObject({ param: 'status', message: 'A processing payout cannot become pending' });
    expect((await setStatus(second.id, { reason: 'no status' })).body.error.param).toBe('reason');
    const failed = await setStatus(second.id, { status: 'failed', reason: 'PayPal: receiver unconfirmed' });
    expect(failed.body.data[0]).toMatchObject({ status: 'failed', reason: 'PayPal: receiver unconfirmed' });
    expect((await setStatus(second.id, { status: 'paid' })).status).toBe(400);
    expect((await generate(program)).payouts).toEqual([expect.objectContaining({ amount: 1000 })]);
  });

  it('keeps a commission in an unpaid payout as it is: no status or amount change, no delete; a refund takes it out', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const { txn, reward } = await approvedPayment(alice, 10_000);
    const extra = await commission(alice, 500);
    const [payout] = (await generate(program)).payouts;
    expect(payout).toMatchObject({ amount: 2500, commission_count: 2 });

    for (const [body, param] of [
      [{ status: 'rejected' }, 'status'],
      [{ amount: 1 }, 'amount'],
    ] as const) {
      const res = await t.request.put(`/v1/commissions/${extra.id}`).set(org.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
      expect(res.body.error.message).toContain(`is in payout '${payout.id}'`);
    }
    expect((await t.request.delete(`/v1/commissions/${extra.id}`).set(org.auth)).status).toBe(400);
    // Describing it is fine.
    expect((await t.request.put(`/v1/commissions/${extra.id}`).set(org.auth).send({ source: 'bonus' })).status).toBe(200);

    // A full refund of the transaction refunds the reward: it leaves the payout, which is summed again.
    expect((await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({})).status).toBe(200);
    expect((await getCommission(reward.id)).status).toBe('refunded');
    expect((await payouts().get(payout.id)).body.data).toMatchObject({ status: 'pending', amount: 500, commission_count: 1 });
    expect((await commissionsOfPayout(payout.id)).map((c) => c.id)).toEqual([extra.id]);
  });

  it('cancels a payout left with nothing to pay after a refund, saying why', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const { txn } = await approvedPayment(alice, 5000);
    const [payout] = (await generate(program)).payouts;
    expect((await t.request.delete(`/v1/transactions/${txn.id}`).set(org.auth)).status).toBe(200);
    expect((await payouts().get(payout.id)).body.data).toMatchObject({
      status: 'canceled',
      amount: 0,
      commission_count: 0,
      reason: 'Nothing left to pay: its commissions were refunded, rejected or deleted',
    });
  });

  describe('refunds of commissions in payouts', () => {
    it('a partial refund takes its share out of a pending payout at once: its entry goes in, and paying pays the rest', async () => {
      const program = await programOf();
      const alice = await partnerIn(program);
      const { txn } = await approvedPayment(alice, 10_000);
      await commission(alice, 500);
      const [payout] = (await generate(program)).payouts;
      expect(payout).toMatchObject({ amount: 2500, commission_count: 2 });

      await refund(txn, 2500);
      const [entry] = await entriesOf(txn);
      expect(entry).toMatchObject({ amount: -500, status: 'approved' });
      expect((await payouts().get(payout.id)).body.data).toMatchObject({ status: 'pending', amount: 2000, commission_count: 3 });
      expect(await rowsOf(payout.id)).toEqual([
        [-500, 'approved'],
        [500, 'approved'],
        [2000, 'approved'],
      ]);
      expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: 0, in_payouts: 2000 });
      // The entry is in the payout: it cannot change by itself.
      const change = await t.request.put(`/v1/commissions/${entry.id}`).set(org.auth).send({ status: 'rejected' });
      expect(change.status).toBe(400);
      expect(change.body.error.message).toContain(`is in payout '${payout.id}'`);
      await expectPayoutsTrue(t.storage.db, program.id);

      const file = await t.request.get('/v1/payouts/export').set(org.auth).query({ program_id: program.id, format: 'paypal' });
      expect(parse(file.text)).toEqual([[alice.payout_details.email, '20.00', 'USD', payout.id, expect.any(String), 'PAYPAL']]);
      await setStatus(payout.id, { status: 'paid' });
      expect(await getCommission(entry.id)).toMatchObject({ status: 'paid', payout_id: payout.id });
      expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: 0, in_payouts: 0, paid: 2000 });
      // Nothing is carried forward: the next generation finds nothing.
      expect(await generate(program)).toMatchObject({ payouts: [], skipped: [] });
      await expectPayoutsTrue(t.storage.db, program.id);

      const events = await payoutEvents(program, payout.id);
      expect(events.map((e) => e.type)).toEqual(['payout.created', 'payout.updated', 'payout.paid']);
      expect(events[1].data).toMatchObject({ amount: 2000, commission_count: 3 });
      expect(events[1].previous_attributes).toMatchObject({ amount: 2500, commission_count: 2 });
    });

    it('a full refund or a delete after a partial refund takes the reward and its entry out', async () => {
      const program = await programOf();
      const alice = await partnerIn(program);
      const refunded = await approvedPayment(alice, 10_000);
      const deleted = await approvedPayment(alice, 5000);
      await commission(alice, 700);
      const [payout] = (await generate(program)).payouts;
      expect(payout).toMatchObject({ amount: 3700, commission_count: 3 });
      await refund(refunded.txn, 5000);
      await refund(deleted.txn, 1000);
      expect((await payouts().get(payout.id)).body.data).toMatchObject({ amount: 2500, commission_count: 5 });

      await refund(refunded.txn);
      expect((await t.request.delete(`/v1/transactions/${deleted.txn.id}`).set(org.auth)).status).toBe(200);
      expect((await payouts().get(payout.id)).body.data).toMatchObject({ status: 'pending', amount: 700, commission_count: 1 });
      expect(await rowsOf(payout.id)).toEqual([[700, 'approved']]);
      expect((await entriesOf(refunded.txn)).map((e) => e.status)).toEqual(['refunded']);
      await expectPayoutsTrue(t.storage.db, program.id);
    });

    it('a refund that leaves a pending payout nothing positive to pay cancels it, saying why; the partner owes the rest', async () => {
      const program = await programOf();
      const alice = await partnerIn(program);
      // A refund after an earlier payment: -2000 the next payout takes back.
      const earlier = await approvedPayment(alice, 10_000);
      await t.request.put(`/v1/commissions/${earlier.reward.id}`).set(org.auth).send({ status: 'paid' });
      await refund(earlier.txn);
      const { txn } = await approvedPayment(alice, 15_000);
      const [payout] = (await generate(program)).payouts;
      expect(payout).toMatchObject({ amount: 1000, commission_count: 2 });

      // Two thirds refunded: the 3000 reward is worth 1000, the payout -1000.
      await refund(txn, 10_000);
      expect((await payouts().get(payout.id)).body.data).toMatchObject({
        status: 'canceled',
        amount: -1000,
        commission_count: 3,
        reason: NOTHING_TO_PAY,
      });
      expect(await commissionsOfPayout(payout.id)).toEqual([]);
      expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: -1000, in_payouts: 0 });
      expect((await payoutEvents(program, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.canceled']);
      expect((await generate(program)).skipped).toEqual([
        { partner_id: alice.id, currency: 'USD', amount: -1000, minimum_payout: 0, reason: 'negative_balance' },
      ]);
      await expectPayoutsTrue(t.storage.db, program.id);
    });

    it('keeps the amount of a payout being processed or paid: the entry of a partial refund goes to the next payout', async () => {
      const program = await programOf();
      const alice = await partnerIn(program);
      const { txn } = await approvedPayment(alice, 10_000);
      const [payout] = (await generate(program)).payouts;
      await setStatus(payout.id, { status: 'processing' });
      await refund(txn, 2500);
      expect((await payouts().get(payout.id)).body.data).toMatchObject({ status: 'processing', amount: 2000, commission_count: 1 });
      await setStatus(payout.id, { status: 'paid' });
      await refund(txn, 2500);
      expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: -1000, paid: 2000 });
      await commission(alice, 3000);
      expect((await generate(program)).payouts).toEqual([expect.objectContaining({ amount: 2000, commission_count: 3 })]);
      await expectPayoutsTrue(t.storage.db, program.id);
    });

    it("changes only the payout of the refunded commission's currency", async () => {
      const program = await programOf(org, { currency_code: 'EUR' });
      const alice = await partnerIn(program);
      const usd = await approvedPayment(alice, 10_000, { currency: 'USD' });
      await approvedPayment(alice, 5000);
      const made = (await generate(program)).payouts;
      const by = (currency: string) => made.find((p) => p.currency === currency)!;
      expect([by('USD').amount, by('EUR').amount]).toEqual([2000, 1000]);
      await refund(usd.txn, 5000);
      expect((await entriesOf(usd.txn))[0]).toMatchObject({ amount: -1000 });
      expect((await payouts().get(by('USD').id)).body.data).toMatchObject({ amount: 1000, commission_count: 2 });
      expect((await payouts().get(by('EUR').id)).body.data).toMatchObject({ amount: 1000, commission_count: 1 });
      await expectPayoutsTrue(t.storage.db, program.id);
    });

    it('a generation up to a date takes a refund entry made after it with its reward', async () => {
      const program = await programOf();
      const alice = await partnerIn(program);
      const { txn } = await approvedPayment(alice, 10_000, { created_at: '2026-01-10T00:00:00.000Z' });
      await refund(txn, 5000);
      const [payout] = (await generate(program, { up_to: '2026-01-31T23:59:59.999Z' })).payouts;
      expect(payout).toMatchObject({ amount: 1000, commission_count: 2 });
      expect((await payouts().get(payout.id)).body.data.period_start).toBe('2026-01-10T00:00:00.000Z');
      await expectPayoutsTrue(t.storage.db, program.id);
    });

    it('a refund entry approved after its reward went into a pending payout (by hand, or when due) joins it', async () => {
      const program = await programOf();
      const alice = await partnerIn(program);
      // The default flow approves 30 days later: refunded in part before, a reward's entry waits with it.
      const customer = await createCustomer(t, org, alice);
      const byHand = await createTransaction(t, org, customer, { amount: 10_000 });
      const whenDue = await createTransaction(t, org, customer, { amount: 10_000 });
      await refund(byHand, 5000);
      await refund(whenDue, 2500);
      // The merchant approves the rewards early; their entries stay pending.
      for (const txn of [byHand, whenDue]) {
        const [reward] = await commissionsOf(t, org, txn);
        await t.request.put(`/v1/commissions/${reward.id}`).set(org.auth).send({ status: 'approved' });
      }
      const [payout] = (await generate(program)).payouts;
      expect(payout).toMatchObject({ amount: 4000, commission_count: 2 });

      const [entry] = await entriesOf(byHand);
      expect((await t.request.put(`/v1/commissions/${entry.id}`).set(org.auth).send({ status: 'approved' })).status).toBe(200);
      expect((await payouts().get(payout.id)).body.data).toMatchObject({ amount: 3000, commission_count: 3 });
      await approveDueCommissions(t.storage.db, new Date(Date.now() + 31 * DAY_MS));
      expect((await payouts().get(payout.id)).body.data).toMatchObject({ amount: 2500, commission_count: 4 });
      await expectPayoutsTrue(t.storage.db, program.id);
    });
  });

  it('tells the partner when a payout is paid, while their switch is on', async () => {
    const program = await programOf(org, { name: 'Payout Program' });
    const on = await partnerIn(program, { email: uniqueEmail('payee') });
    const off = await partnerIn(program, { email: uniqueEmail('quiet'), payout_paid_email_active: false });
    await commission(on, 4200);
    await commission(on, 800);
    await commission(off, 5000);
    for (const p of (await generate(program)).payouts) {
      expect((await setStatus(p.id, { status: 'paid', reference: 'WISE-123' })).status).toBe(200);
    }
    const mails = await sentEmails(t);
    expect(mails.filter((m) => m.to === off.email)).toEqual([]);
    const [mail] = mails.filter((m) => m.to === on.email);
    expect(mail.subject).toBe('Payout Program paid you $50.00');
    expect(mail.text).toContain('for 2 commissions, by paypal');
    expect(mail.text).toContain('payment reference WISE-123');
  });

  it('emits payout events: created, then paid carrying the previous status', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    await commission(alice, 1000);
    const [{ id }] = (await generate(program)).payouts;
    await setStatus(id, { status: 'paid' });
    const events = (await t.request.get('/v1/events').set(org.auth).query({ program_id: program.id, limit: 100, order: 'asc' })).body
      .data as ApiObject[];
    const ofPayout = events.filter((e) => e.data.id === id);
    expect(ofPayout.map((e) => e.type)).toEqual(['payout.created', 'payout.paid']);
    expect(ofPayout[1].data).toEqual((await payouts().get(id)).body.data);
    expect(ofPayout[1].previous_attributes).toMatchObject({ status: 'pending', paid_at: null });
    // Attaching commissions to the payout is no commission event; paying them is.
    const commissionEvents = events.filter((e) => e.type === 'commission.updated');
    expect(commissionEvents.map((e) => e.previous_attributes)).toEqual([expect.objectContaining({ status: 'approved', payout_id: null })]);
  });

  it('lists payouts with filters and expansions; another organization sees none', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const bob = await partnerIn(program);
    await commission(alice, 100);
    await commission(bob, 200);
    const generated = (await generate(program)).payouts;
    const bobs = generated.find((p) => p.partner_id === bob.id)!;
    await setStatus(bobs.id, { status: 'processing' });
    const list = await payouts().list({ program_id: program.id, status: 'processing', expand: 'partner' });
    expect(list.body.data.map((p: ApiObject) => [p.id, p.partner.id])).toEqual([[bobs.id, bob.id]]);
    expect((await payouts().list({ program_id: program.id, partner_id: alice.id })).body.total_count).toBe(1);
    expect((await payouts().get(bobs.id, undefined, other)).status).toBe(404);
    expect((await payouts().put(bobs.id, { status: 'paid' }, other)).status).toBe(404);
    expect((await t.request.get(`/v1/payouts/${bobs.id}/commissions`).set(other.auth)).status).toBe(404);
    expect((await payouts().list({ program_id: program.id }, other)).status).toBe(404);
  });

  it('leaves a payout being processed alone on a refund: the refund becomes an entry the next payout takes back', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const { txn, reward } = await approvedPayment(alice, 10_000);
    const [payout] = (await generate(program)).payouts;
    // The file went to the bank.
    await setStatus(payout.id, { status: 'processing' });
    expect((await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({})).status).toBe(200);
    expect((await payouts().get(payout.id)).body.data).toMatchObject({ status: 'processing', amount: 2000, commission_count: 1 });
    expect((await getCommission(reward.id)).status).toBe('approved');
    expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: -2000, in_payouts: 2000 });
    await setStatus(payout.id, { status: 'paid' });
    expect(await getCommission(reward.id)).toMatchObject({ status: 'paid', payout_id: payout.id });
    expect((await balanceOf(alice)).amounts[0]).toMatchObject({ payable: -2000, paid: 2000 });
  });

  it('keeps a commission a payout paid as it was: corrections go through refunds', async () => {
    const program = await programOf();
    const alice = await partnerIn(program);
    const paidByPayout = await commission(alice, 1000);
    const [payout] = (await generate(program)).payouts;
    await setStatus(payout.id, { status: 'paid' });
    for (const body of [{ status: 'approved' }, { amount: 1 }]) {
      const res = await t.request.put(`/v1/commissions/${paidByPayout.id}`).set(org.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(`was paid by payout '${payout.id}'`);
    }
    expect((await t.request.delete(`/v1/commissions/${paidByPayout.id}`).set(org.auth)).status).toBe(400);
    // One marked paid by itself is the caller's to change, as before.
    const byHand = await commission(alice, 300, { status: 'paid' });
    expect((await t.request.put(`/v1/commissions/${byHand.id}`).set(org.auth).send({ status: 'approved' })).status).toBe(200);
  });

  it("names amounts in the currency's own unit: a yen payout e-mail and file", async () => {
    const program = await programOf(org, { currency_code: 'JPY', name: 'Yen Program' });
    const alice = await partnerIn(program, { email: uniqueEmail('yen') });
    await commission(alice, 5000);
    const [payout] = (await generate(program)).payouts;
    expect(payout).toMatchObject({ amount: 5000, currency: 'JPY' });
    const file = await t.request.get('/v1/payouts/export').set(org.auth).query({ program_id: program.id, format: 'paypal' });
    expect(file.text.split(',').slice(1, 3)).toEqual(['5000', 'JPY']);
    await setStatus(payout.id, { status: 'paid' });
    // Subjects as written (the .eml headers carry them MIME-encoded).
    const [mail] = await queuedTo(t, alice.email);
    expect(mail.subject).toBe('Yen Program paid you ¥5,000');
  });

  describe('batch files', () => {
    /** Downloads an export; answers the response and its rows (parsed back). */
    async function download(query: Record<string, string>, header = true) {
      const res = await t.request
        .get('/v1/payouts/export')
        .set(org.auth)
        .query(query)
        .buffer(true)
        .parse((r, done) => {
          let text = '';
          r.on('data', (c: Buffer) => {
            text += c.toString('utf8');
          });
          r.on('end', () => done(null, text));
        });
      const text = res.body as string;
      const rows = res.status === 200 ? (parse(text, { columns: header ? true : undefined }) as any[]) : [];
      return { res, rows, error: res.status === 200 ? undefined : JSON.parse(text).error };
    }

    it('writes the PayPal Payouts file (no header, one currency) and the Wise and CSV files, line by line from the payouts', async () => {
      const program = await programOf(org, { subdomain: `files-${Date.now()}` });
      const paypal = [await partnerIn(program), await partnerIn(program)];
      const wise = await partnerIn(program, {
        payout_method: 'wise',
        payout_details: { email: uniqueEmail('wise') },
        company_name: 'Wise Co',
      });
      await commission(paypal[0], 123_456);
      await commission(paypal[1], 5);
      await commission(wise, 2000);
      const formula = await partnerIn(program, { first_name: '=HYPERLINK("http://x")', last_name: 'Evil' });
      await commission(formula, 100);
      const generated = (await generate(program)).payouts;
      const byPartner = new Map(generated.map((p) => [p.partner_id, p]));

      const pp = await download({ program_id: program.id, format: 'paypal' }, false);
      expect(pp.res.status).toBe(200);
      expect(pp.res.headers['content-type']).toMatch(/^text\/csv/);
      expect(pp.res.headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="?payouts-${program.subdomain}-pending-\\d{4}-\\d{2}-\\d{2}-paypal\\.csv"?$`),
      );
      expect(pp.rows.filter((r) => r[0] !== formula.payout_details.email).sort()).toEqual(
        [
          [
            paypal[0].payout_details.email,
            '1234.56',
            'USD',
            byPartner.get(paypal[0].id)!.id,
            `Partner payout ${byPartner.get(paypal[0].id)!.id}`,
            'PAYPAL',
          ],
          [
            paypal[1].payout_details.email,
            '0.05',
            'USD',
            byPartner.get(paypal[1].id)!.id,
            `Partner payout ${byPartner.get(paypal[1].id)!.id}`,
            'PAYPAL',
          ],
        ].sort(),
      );

      const ws = await download({ program_id: program.id, format: 'wise' });
      expect(ws.rows).toEqual([
        {
          name: 'Wise Co',
          recipientEmail: wise.payout_details.email,
          paymentReference: byPartner.get(wise.id)!.id.slice(-10),
          receiverType: 'BUSINESS',
          amountCurrency: 'target',
          amount: '20.00',
          sourceCurrency: 'USD',
          targetCurrency: 'USD',
        },
      ]);

      const all = await download({ program_id: program.id, format: 'csv' });
      expect(all.rows).toHaveLength(4);
      // A spreadsheet shows the name as text, not a formula.
      expect(all.rows.find((r) => r.partner_id === formula.id).partner_name).toBe(`'=HYPERLINK("http://x") Evil`);
      for (const row of all.rows) {
        const payout = (await payouts().get(row.payout_id)).body.data;
        expect(row).toMatchObject({
          partner_id: payout.partner_id,
          payout_method: payout.payout_method,
          amount: (payout.amount / 100).toFixed(2),
          currency: 'USD',
          commission_count: String(payout.commission_count),
          status: 'pending',
          period_start: payout.period_start,
        });
        expect(JSON.parse(row.payout_details)).toEqual(payout.payout_details);
      }
      // Paid ones are in the paid file, not the pending one.
      await setStatus(generated[0].id, { status: 'paid' });
      expect((await download({ program_id: program.id, format: 'csv' })).rows).toHaveLength(3);
      expect((await download({ program_id: program.id, format: 'csv', status: 'paid' })).rows.map((r) => r.payout_id)).toEqual([
        generated[0].id,
      ]);
    });

    it('refuses a PayPal file of several currencies, saying which; a partner without their PayPal e-mail gets no payout', async () => {
      const program = await programOf(org, { currency_code: 'EUR' });
      const alice = await partnerIn(program);
      const noEmail = await partnerIn(program, { payout_details: {} });
      await commission(alice, 1000);
      await commission(alice, 700);
      await approvedPayment(alice, 10_000, { currency: 'USD' });
      const generated = (await generate(program, { partner_ids: [alice.id] })).payouts;
      expect(generated.map((p) => p.currency).sort()).toEqual(['EUR', 'USD']);

      const mixed = await download({ program_id: program.id, format: 'paypal' }, false);
      expect(mixed.res.status).toBe(400);
      expect(mixed.error).toMatchObject({ param: 'currency', message: expect.stringContaining('EUR, USD') });
      const eur = await download({ program_id: program.id, format: 'paypal', currency: 'eur' }, false);
      expect(eur.rows).toEqual([[alice.payout_details.email, '17.00', 'EUR', expect.any(String), expect.any(String), 'PAYPAL']]);

      // A PayPal partner without their PayPal e-mail gets no payout, rather than one no file can hold.
      await commission(noEmail, 900);
      expect((await generate(program, { partner_ids: [noEmail.id] })).skipped).toEqual([
        { partner_id: noEmail.id, currency: 'EUR', amount: 900, minimum_payout: 0, reason: 'missing_payout_details' },
      ]);
      expect((await download({ program_id: program.id, format: 'pdf' })).res.status).toBe(400);
      expect((await download({ program_id: other.program_id, format: 'csv' })).res.status).toBe(404);
    });
  });
});
