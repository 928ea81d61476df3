import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createFlow,
  createPartner,
  createTransaction,
  partnerStats,
  quietProgram,
  type TestOrg,
} from '../support/factories.js';
import {
  COMMISSION_FULL_FIELDS,
  COMMISSION_INCLUDED_FIELDS,
  COMMISSION_SHORT_FIELDS,
  EXPANDED_CUSTOMER_FIELDS,
  EXPANDED_PARTNER_FIELDS,
  EXPANDED_PROGRAM_FIELDS,
  EXPANDED_TRANSACTION_FIELDS,
} from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

/**
 * /v1/commissions by hand: who a commission is for, the transaction rule, statuses and payout ids,
 * the two field sets (full on create/update with string cents, short on list/retrieve with
 * numbers), expansions, list filters and cursors, soft delete and the partner's total, bad input
 * and other organizations' ids.
 */

const FULL = [...COMMISSION_FULL_FIELDS].sort();
const SHORT = [...COMMISSION_SHORT_FIELDS].sort();
const STATUSES = ['pending', 'approved', 'paid', 'rejected', 'refunded'] as const;

const pick = (o: ApiObject, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const sortedKeys = (o: ApiObject) => Object.keys(o).sort();
const ids = (rows: ApiObject[]) => rows.map((r) => r.id);

describe('/v1/commissions', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });
  /** A program of our own whose default flow is off: only hand-made commissions live in it. */
  let program: ApiObject;
  let alice: ApiObject;
  let bob: ApiObject;
  let aliceCustomer: ApiObject;
  let bobCustomer: ApiObject;
  /** A second program of the organization (EUR), default flow off. */
  let program2: ApiObject;
  let carol: ApiObject;
  let carolCustomer: ApiObject;
  // The other organization's records.
  let theirPartner: ApiObject;
  let theirCustomer: ApiObject;
  let theirTransaction: ApiObject;
  let theirCommission: ApiObject;

  const { post, put, get: retrieve, list, del } = resource(t, '/v1/commissions', org);

  async function create(body: Record<string, unknown>, who: TestOrg = org): Promise<ApiObject> {
    const res = await post(body, who);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0];
  }

  async function update(id: string, body: Record<string, unknown>, who: TestOrg = org): Promise<ApiObject> {
    const res = await put(id, body, who);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0];
  }

  const partnerIn = (p: ApiObject, who: TestOrg = org, overrides: Record<string, unknown> = {}) =>
    createPartner(t, who, { program_id: p.id, ...overrides });

  beforeAll(async () => {
    program = await quietProgram(t, org);
    alice = await partnerIn(program, org, { first_name: 'Alice', company_name: 'Alice Co' });
    bob = await partnerIn(program, org, { first_name: 'Bob' });
    aliceCustomer = await createCustomer(t, org, alice, { name: 'Ann Customer' });
    bobCustomer = await createCustomer(t, org, bob);
    program2 = await quietProgram(t, org, { currency_code: 'EUR' });
    carol = await partnerIn(program2, org, { first_name: 'Carol' });
    carolCustomer = await createCustomer(t, org, carol);

    theirPartner = await createPartner(t, other);
    theirCustomer = await createCustomer(t, other, theirPartner);
    theirTransaction = await createTransaction(t, other, theirCustomer);
    theirCommission = await create({ amount: 777, customer_id: theirCustomer.id }, other);
  });

  describe('POST /v1/commissions', () => {
    it('creates a commission for a customer: its partner and program, the full field set with amount as a string', async () => {
      const before = Date.now();
      const c = await create({ amount: 1000, customer_id: aliceCustomer.id });
      const after = Date.now();
      expect(sortedKeys(c)).toEqual(FULL);
      expect(c.id).toMatch(/^comm_[0-9A-Za-z]{24}$/);
      expect(c).toEqual({
        id: c.id,
        amount: '1000',
        revenue: null,
        customer_id: aliceCustomer.id,
        transaction_id: null,
        charge_id: null,
        charge_status: null,
        source: null,
        status: 'pending',
        type: 'reward',
        currency: 'USD',
        partner_id: alice.id,
        program_id: program.id,
        organization_id: org.organization_id,
        payout_id: null,
        scheduled_approval_date: null,
        approval_type: 'manual',
        flow_id: null,
        created_at: c.created_at,
        updated_at: c.updated_at,
      });
      expect(c.created_at).toMatch(ISO_MS);
      expect(c.updated_at).toMatch(ISO_MS);
      const createdAt = Date.parse(c.created_at);
      expect(createdAt).toBeGreaterThanOrEqual(before - 5);
      expect(createdAt).toBeLessThanOrEqual(after + 5);
    });

    it('shows revenue as a string when given, and keeps source, charge_id and created_at', async () => {
      const c = await create({
        amount: 0,
        customer_id: aliceCustomer.id,
        revenue: 12_345,
        source: 'manual-entry',
        charge_id: 'ch_manual_1',
        created_at: '2024-02-03T04:05:06.789Z',
      });
      expect(sortedKeys(c)).toEqual(FULL);
      expect(c).toMatchObject({
        amount: '0',
        revenue: '12345',
        source: 'manual-entry',
        charge_id: 'ch_manual_1',
        created_at: '2024-02-03T04:05:06.789Z',
      });
    });

    it('accepts program_id and partner_id when they agree with the customer', async () => {
      const c = await create({ amount: 5, customer_id: bobCustomer.id, program_id: program.id, partner_id: bob.id });
      expect(c).toMatchObject({ customer_id: bobCustomer.id, partner_id: bob.id, program_id: program.id });
    });

    it('answers 400 when program_id or partner_id disagrees with the customer', async () => {
      expectError(
        await post({ amount: 5, customer_id: aliceCustomer.id, program_id: program2.id }),
        400,
        'invalid_request_error',
        'program_id',
      );
      expectError(await post({ amount: 5, customer_id: aliceCustomer.id, partner_id: bob.id }), 400, 'invalid_request_error', 'partner_id');
      expectError(
        await post({ amount: 5, customer_id: aliceCustomer.id, program_id: program.id, partner_id: carol.id }),
        400,
        'invalid_request_error',
        'partner_id',
      );
    });

    it('creates a customerless commission from program_id and partner_id (customer_id omitted or null), in the program currency', async () => {
      const omitted = await create({ amount: 250, program_id: program2.id, partner_id: carol.id });
      expect(sortedKeys(omitted)).toEqual(FULL);
      expect(omitted).toMatchObject({
        amount: '250',
        revenue: null,
        customer_id: null,
        partner_id: carol.id,
        program_id: program2.id,
        currency: 'EUR',
        type: 'reward',
        approval_type: 'manual',
        flow_id: null,
        status: 'pending',
      });
      const explicitNull = await create({ amount: 251, customer_id: null, program_id: program2.id, partner_id: carol.id });
      expect(explicitNull).toMatchObject({ amount: '251', customer_id: null, partner_id: carol.id, program_id: program2.id });
    });

    it('answers 400 naming program_id or partner_id when a customerless commission lacks it', async () => {
      expectError(await post({ amount: 5, partner_id: carol.id }), 400, 'invalid_request_error', 'program_id');
      expectError(await post({ amount: 5, customer_id: null, partner_id: carol.id }), 400, 'invalid_request_error', 'program_id');
      expectError(await post({ amount: 5, program_id: program2.id }), 400, 'invalid_request_error', 'partner_id');
      expectError(await post({ amount: 5, customer_id: null, program_id: program2.id }), 400, 'invalid_request_error', 'partner_id');
      expectError(await post({ amount: 5 }), 400, 'invalid_request_error', 'program_id');
    });

    it('answers 400 for a customerless commission whose partner is in another program', async () => {
      expectError(await post({ amount: 5, program_id: program2.id, partner_id: alice.id }), 400, 'invalid_request_error', 'partner_id');
    });

    it('answers 404 for an unknown customer, partner or program', async () => {
      expectError(await post({ amount: 5, customer_id: 'cust_doesNotExist000000000000' }), 404, 'not_found_error', 'customer_id');
      expectError(
        await post({ amount: 5, program_id: program.id, partner_id: 'part_doesNotExist00000000000' }),
        404,
        'not_found_error',
        'partner_id',
      );
      expectError(
        await post({ amount: 5, program_id: 'prg_doesNotExist000000000000', partner_id: alice.id }),
        404,
        'not_found_error',
        'program_id',
      );
    });

    describe('transaction_id', () => {
      it("defaults charge_id to the transaction's, and takes its currency and status", async () => {
        const txn = await createTransaction(t, org, aliceCustomer, { amount: 4000, currency: 'GBP' });
        const c = await create({ amount: 400, customer_id: aliceCustomer.id, transaction_id: txn.id });
        expect(sortedKeys(c)).toEqual(FULL);
        expect(c).toMatchObject({
          transaction_id: txn.id,
          charge_id: txn.charge_id,
          charge_status: 'paid',
          currency: 'GBP',
          revenue: null,
          customer_id: aliceCustomer.id,
          partner_id: alice.id,
        });
        expect(txn.charge_id).toMatch(/^ch_/);

        const ownCharge = await create({ amount: 400, customer_id: aliceCustomer.id, transaction_id: txn.id, charge_id: 'ch_given' });
        expect(ownCharge.charge_id).toBe('ch_given');
        const noCharge = await create({ amount: 400, customer_id: aliceCustomer.id, transaction_id: txn.id, charge_id: null });
        expect(noCharge.charge_id).toBeNull();
      });

      it('accepts a transaction of the same program on a customerless commission', async () => {
        const txn = await createTransaction(t, org, carolCustomer, { amount: 900 });
        const c = await create({ amount: 90, program_id: program2.id, partner_id: carol.id, transaction_id: txn.id });
        expect(c).toMatchObject({ customer_id: null, transaction_id: txn.id, charge_id: txn.charge_id, currency: 'EUR' });
      });

      it('answers 400 for a transaction of another program or of another customer, 404 for an unknown one', async () => {
        const aliceTxn = await createTransaction(t, org, aliceCustomer, { amount: 1000 });
        const carolTxn = await createTransaction(t, org, carolCustomer, { amount: 1000 });
        // Another program: customerless in program2 with a transaction of program.
        expectError(
          await post({ amount: 5, program_id: program2.id, partner_id: carol.id, transaction_id: aliceTxn.id }),
          400,
          'invalid_request_error',
          'transaction_id',
        );
        // Another program: a customer of program with a transaction of program2.
        expectError(
          await post({ amount: 5, customer_id: aliceCustomer.id, transaction_id: carolTxn.id }),
          400,
          'invalid_request_error',
          'transaction_id',
        );
        // Same program, another customer.
        expectError(
          await post({ amount: 5, customer_id: bobCustomer.id, transaction_id: aliceTxn.id }),
          400,
          'invalid_request_error',
          'transaction_id',
        );
        expectError(
          await post({ amount: 5, customer_id: aliceCustomer.id, transaction_id: 'txn_doesNotExist000000000000' }),
          404,
          'not_found_error',
          'transaction_id',
        );

        const rows = await list(`program_id=${program.id}&transaction_id=${aliceTxn.id}`);
        expect(rows.body.total_count).toBe(0);
      });
    });

    it.each(STATUSES)('creates with status %s; only paid carries a po_ payout_id', async (status) => {
      const c = await create({ amount: 100, customer_id: aliceCustomer.id, status });
      expect(sortedKeys(c)).toEqual(FULL);
      expect(c.status).toBe(status);
      if (status === 'paid') expect(c.payout_id).toMatch(/^po_[0-9A-Za-z]{24}$/);
      else expect(c.payout_id).toBeNull();
      const got = await retrieve(c.id);
      expect(got.body.data.status).toBe(status);
    });
  });

  describe('PUT /v1/commissions/:id', () => {
    it('updates the editable fields and answers the full field set with string cents', async () => {
      const c = await create({ amount: 1000, customer_id: aliceCustomer.id });
      const txn = await createTransaction(t, org, aliceCustomer, { amount: 7000 });
      const u = await update(c.id, {
        amount: 1500,
        revenue: 7000,
        source: 'stripe',
        transaction_id: txn.id,
        charge_id: 'ch_updated',
        created_at: '2024-06-01T00:00:00.000Z',
      });
      expect(sortedKeys(u)).toEqual(FULL);
      expect(u).toMatchObject({
        id: c.id,
        amount: '1500',
        revenue: '7000',
        source: 'stripe',
        transaction_id: txn.id,
        charge_id: 'ch_updated',
        charge_status: 'paid',
        created_at: '2024-06-01T00:00:00.000Z',
        customer_id: aliceCustomer.id,
        partner_id: alice.id,
        status: 'pending',
        approval_type: 'manual',
      });
      expect(Date.parse(u.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));

      const cleared = await update(c.id, { revenue: null, transaction_id: null, source: null });
      expect(cleared).toMatchObject({ amount: '1500', revenue: null, transaction_id: null, charge_status: null, source: null });
    });

    it('an empty body changes nothing but answers the full set', async () => {
      const c = await create({ amount: 321, customer_id: aliceCustomer.id, revenue: 999 });
      const u = await update(c.id, {});
      expect(sortedKeys(u)).toEqual(FULL);
      expect({ ...u, updated_at: c.updated_at }).toEqual(c);
    });

    it.each(STATUSES)('updates to status %s', async (status) => {
      const start = status === 'pending' ? 'approved' : 'pending';
      const c = await create({ amount: 100, customer_id: aliceCustomer.id, status: start });
      const u = await update(c.id, { status });
      expect(sortedKeys(u)).toEqual(FULL);
      expect(u.status).toBe(status);
      if (status === 'paid') expect(u.payout_id).toMatch(/^po_[0-9A-Za-z]{24}$/);
      else expect(u.payout_id).toBeNull();
      expect((await retrieve(c.id)).body.data.status).toBe(status);
    });

    it('keeps the payout_id on paid → paid and on other edits, clears it when leaving paid, and assigns a new one on paying again', async () => {
      const c = await create({ amount: 100, customer_id: aliceCustomer.id, status: 'paid' });
      const payout = c.payout_id;
      expect(payout).toMatch(/^po_/);
      expect((await update(c.id, { status: 'paid' })).payout_id).toBe(payout);
      expect((await update(c.id, { amount: 150 })).payout_id).toBe(payout);
      const left = await update(c.id, { status: 'approved' });
      expect(left).toMatchObject({ status: 'approved', payout_id: null });
      const again = await update(c.id, { status: 'paid' });
      expect(again.payout_id).toMatch(/^po_/);
      expect(again.payout_id).not.toBe(payout);
      for (const status of ['rejected', 'refunded', 'pending'] as const) {
        const paid = await create({ amount: 100, customer_id: aliceCustomer.id, status: 'paid' });
        expect((await update(paid.id, { status })).payout_id).toBeNull();
      }
    });

    it('answers 400 for a transaction of another customer or program, 404 for an unknown one', async () => {
      const c = await create({ amount: 100, customer_id: aliceCustomer.id });
      const bobTxn = await createTransaction(t, org, bobCustomer, { amount: 1000 });
      const carolTxn = await createTransaction(t, org, carolCustomer, { amount: 1000 });
      expectError(await put(c.id, { transaction_id: bobTxn.id }), 400, 'invalid_request_error', 'transaction_id');
      expectError(await put(c.id, { transaction_id: carolTxn.id }), 400, 'invalid_request_error', 'transaction_id');
      expectError(await put(c.id, { transaction_id: 'txn_doesNotExist000000000000' }), 404, 'not_found_error', 'transaction_id');
      expect((await retrieve(c.id)).body.data.transaction_id).toBeNull();
    });

    describe('what a flow or a refund wrote', () => {
      /** A quiet program with a 10 % immediate flow, a partner and an active customer who paid twice. */
      async function flowMade() {
        const p = await quietProgram(t, org);
        const flow = await createFlow(t, org, { program_id: p.id });
        const partner = await partnerIn(p);
        const customer = await createCustomer(t, org, partner, { status: 'active' });
        const first = await createTransaction(t, org, customer, { amount: 10_000 });
        const second = await createTransaction(t, org, customer, { amount: 20_000 });
        const [a] = await commissionsOf(t, org, first);
        const [b] = await commissionsOf(t, org, second);
        expect((await update(a.id, {})).flow_id).toBe(flow.id);
        return { p, partner, customer, first, second, a, b };
      }

      it("keeps transaction_id of a flow's commission (moving it onto a payment the flow already paid answers 400, not 500)", async () => {
        const s = await flowMade();
        const before = await update(s.a.id, {});
        expectError(await put(s.a.id, { transaction_id: s.second.id }), 400, 'invalid_request_error', 'transaction_id');
        const bare = await createTransaction(t, org, s.customer, { amount: 5 }); // 10 % of 5 cents rounds up to 1
        expectError(await put(s.a.id, { transaction_id: bare.id }), 400, 'invalid_request_error', 'transaction_id');
        expectError(await put(s.a.id, { transaction_id: null, amount: 1 }), 400, 'invalid_request_error', 'transaction_id');
        // The same transaction is no change; the other fields stay editable.
        const same = await update(s.a.id, { transaction_id: s.first.id, amount: 900 });
        expect(same).toMatchObject({ transaction_id: s.first.id, amount: '900' });
        expect((await retrieve(s.a.id)).body.data).toMatchObject({ transaction_id: before.transaction_id, amount: 900 });
      });

      it('keeps amount and transaction_id of a refund entry, changing nothing; its status stays editable', async () => {
        const s = await flowMade();
        const refund = await t.request.put(`/v1/transactions/${s.first.id}/refund`).set(org.auth).send({ amount: 5000 });
        expect(refund.status, JSON.stringify(refund.body)).toBe(200);
        const entry = (await commissionsOf(t, org, s.first)).find((c) => c.amount < 0)!;
        const before = await update(entry.id, {});
        expect(before).toMatchObject({ type: 'refund', amount: '-500' });
        const msg = (res: { body: any }) => res.body.error.message as string;
        const amount = await put(entry.id, { amount: 100, status: 'paid' });
        expectError(amount, 400, 'invalid_request_error', 'amount');
        expect(msg(amount)).toMatch(/refund/);
        const moved = await put(entry.id, { transaction_id: s.second.id });
        expectError(moved, 400, 'invalid_request_error', 'transaction_id');
        expect(msg(moved)).toMatch(/refund/);
        expectError(await put(entry.id, { transaction_id: null }), 400, 'invalid_request_error', 'transaction_id');
        expect((await retrieve(entry.id)).body.data).toMatchObject({
          amount: -500,
          status: 'approved',
          transaction_id: s.first.id,
          updated_at: before.updated_at,
        });
        expect(await update(entry.id, { status: 'paid', transaction_id: s.first.id })).toMatchObject({ status: 'paid', amount: '-500' });
      });

      it("answers 400 for another partner's transaction on a customerless commission, on create and on update", async () => {
        const bobTxn = await createTransaction(t, org, bobCustomer, { amount: 1000 });
        expectError(
          await post({ amount: 5, program_id: program.id, partner_id: alice.id, transaction_id: bobTxn.id }),
          400,
          'invalid_request_error',
          'transaction_id',
        );
        const c = await create({ amount: 5, program_id: program.id, partner_id: alice.id });
        expectError(await put(c.id, { transaction_id: bobTxn.id }), 400, 'invalid_request_error', 'transaction_id');
        expect((await retrieve(c.id)).body.data.transaction_id).toBeNull();
        const aliceTxn = await createTransaction(t, org, aliceCustomer, { amount: 1000 });
        expect(await update(c.id, { transaction_id: aliceTxn.id })).toMatchObject({ transaction_id: aliceTxn.id, partner_id: alice.id });
      });
    });

    describe('rejection_reason (shown with include[]=rejection_reason)', () => {
      const WITH_REASON = 'include[]=rejection_reason';
      const SHORT_WITH_REASON = [...SHORT, ...COMMISSION_INCLUDED_FIELDS].sort();
      const FULL_WITH_REASON = [...FULL, ...COMMISSION_INCLUDED_FIELDS].sort();
      const postWithReason = (body: Record<string, unknown>) => t.request.post(`/v1/commissions?${WITH_REASON}`).set(org.auth).send(body);
      const putWithReason = (id: string, body: Record<string, unknown>) =>
        t.request.put(`/v1/commissions/${id}?${WITH_REASON}`).set(org.auth).send(body);
      /** The create answer with the reason: the full set and rejection_reason, nothing else. */
      async function createWithReason(body: Record<string, unknown>): Promise<ApiObject> {
        const res = await postWithReason(body);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(sortedKeys(res.body.data[0])).toEqual(FULL_WITH_REASON);
        return res.body.data[0];
      }
      /** The update answer with the reason: the full set and rejection_reason, nothing else. */
      async function updateWithReason(id: string, body: Record<string, unknown>): Promise<ApiObject> {
        const res = await putWithReason(id, body);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(sortedKeys(res.body.data[0])).toEqual(FULL_WITH_REASON);
        return res.body.data[0];
      }
      /** The retrieve answer with the reason: the short set and rejection_reason, nothing else. */
      async function retrieveWithReason(id: string): Promise<ApiObject> {
        const res = await retrieve(id, WITH_REASON);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(sortedKeys(res.body.data)).toEqual(SHORT_WITH_REASON);
        return res.body.data;
      }
      const reasonOf = async (id: string) => (await retrieveWithReason(id)).rejection_reason;

      it('is set with status rejected, kept on later edits, replaced, cleared with null or an empty string', async () => {
        const c = await createWithReason({ amount: 100, customer_id: aliceCustomer.id });
        expect(c.rejection_reason).toBeNull();
        // Given in the body, it is not shown unless asked for: the Partnership Program API's set
        // stays exact.
        const rejected = await update(c.id, { status: 'rejected', rejection_reason: '  Duplicate order  ' });
        expect(sortedKeys(rejected)).toEqual(FULL);
        expect(sortedKeys((await retrieve(c.id)).body.data)).toEqual(SHORT);
        expect(await retrieveWithReason(c.id)).toMatchObject({ status: 'rejected', rejection_reason: 'Duplicate order' });
        // Kept by a change that does not give it, status rejected again included.
        expect(await updateWithReason(c.id, { source: 'manual' })).toMatchObject({ rejection_reason: 'Duplicate order' });
        expect(await updateWithReason(c.id, { status: 'rejected' })).toMatchObject({ rejection_reason: 'Duplicate order' });
        // On a commission already rejected, a reason alone replaces it.
        expect(await updateWithReason(c.id, { rejection_reason: 'Self-referral' })).toMatchObject({ rejection_reason: 'Self-referral' });
        expect(await updateWithReason(c.id, { rejection_reason: null })).toMatchObject({ status: 'rejected', rejection_reason: null });
        await update(c.id, { rejection_reason: 'Again' });
        expect(await updateWithReason(c.id, { rejection_reason: '   ' })).toMatchObject({ rejection_reason: null });
        // Listed too, when asked for.
        await update(c.id, { rejection_reason: 'Listed' });
        const rows = (await list(`program_id=${program.id}&status=rejected&limit=100&${WITH_REASON}`)).body.data;
        for (const row of rows) expect(sortedKeys(row)).toEqual(SHORT_WITH_REASON);
        expect(rows.find((r: ApiObject) => r.id === c.id)).toMatchObject({ rejection_reason: 'Listed' });
        const plain = (await list(`program_id=${program.id}&status=rejected&limit=100`)).body.data;
        for (const row of plain) expect(sortedKeys(row)).toEqual(SHORT);
      });

      it('is asked for with include=rejection_reason or include[]=rejection_reason; another include value is a 400', async () => {
        const c = await create({ amount: 100, customer_id: aliceCustomer.id, status: 'rejected', rejection_reason: 'Test' });
        expect((await retrieve(c.id, 'include=rejection_reason')).body.data.rejection_reason).toBe('Test');
        expect((await retrieve(c.id, 'include[]=rejection_reason&include[]=rejection_reason')).body.data.rejection_reason).toBe('Test');
        expectError(await retrieve(c.id, 'include[]=reason'), 400, 'invalid_request_error', 'include');
        expectError(await list(`program_id=${program.id}&include[]=stats`), 400, 'invalid_request_error', 'include');
        expectError(await putWithReason(c.id, {}).query('expand[]=partner'), 400, 'invalid_request_error', 'expand');
        const before = (await list(`program_id=${program.id}&customer_id=${aliceCustomer.id}&limit=1`)).body.total_count;
        const refused = await t.request
          .post('/v1/commissions?include[]=status')
          .set(org.auth)
          .send({ amount: 1, customer_id: aliceCustomer.id });
        expectError(refused, 400, 'invalid_request_error', 'include');
        expect((await list(`program_id=${program.id}&customer_id=${aliceCustomer.id}&limit=1`)).body.total_count).toBe(before);
        const unchanged = await t.request.put(`/v1/commissions/${c.id}?include[]=status`).set(org.auth).send({ amount: 5 });
        expectError(unchanged, 400, 'invalid_request_error', 'include');
        expect(await retrieveWithReason(c.id)).toMatchObject({ amount: 100, rejection_reason: 'Test', updated_at: c.updated_at });
      });

      it.each([
        ['a commission that stays pending', 'pending', {}],
        ['a commission moved to approved', 'pending', { status: 'approved' }],
        ['a commission moved to refunded', 'pending', { status: 'refunded' }],
        ['a rejected commission moved out of rejected', 'rejected', { status: 'pending' }],
      ] as const)('answers 400 naming rejection_reason for %s, and changes nothing', async (_name, start, extra) => {
        const c = await create({ amount: 100, customer_id: aliceCustomer.id, status: start });
        expectError(await put(c.id, { rejection_reason: 'No', amount: 5, ...extra }), 400, 'invalid_request_error', 'rejection_reason');
        expect(await retrieveWithReason(c.id)).toMatchObject({
          status: start,
          amount: 100,
          rejection_reason: null,
          updated_at: c.updated_at,
        });
      });

      it('is cleared when the commission leaves rejected (approved, pending, paid, refunded)', async () => {
        for (const status of ['approved', 'pending', 'paid', 'refunded'] as const) {
          const c = await create({ amount: 100, customer_id: aliceCustomer.id });
          await update(c.id, { status: 'rejected', rejection_reason: 'Fraud suspected' });
          const moved = await updateWithReason(c.id, { status });
          expect(moved, status).toMatchObject({ status, rejection_reason: null });
          expect(await reasonOf(c.id), status).toBeNull();
          // Rejected again without a reason: none comes back.
          expect(await updateWithReason(c.id, { status: 'rejected' })).toMatchObject({ rejection_reason: null });
        }
      });

      it('may be given when creating a rejected commission, and only then', async () => {
        const c = await createWithReason({
          amount: 100,
          customer_id: aliceCustomer.id,
          status: 'rejected',
          rejection_reason: 'Test order',
        });
        expect(c).toMatchObject({ status: 'rejected', rejection_reason: 'Test order' });
        expect(sortedKeys(await create({ amount: 100, customer_id: aliceCustomer.id, status: 'rejected', rejection_reason: 'x' }))).toEqual(
          FULL,
        );
        const before = (await list(`program_id=${program.id}&customer_id=${aliceCustomer.id}&limit=1`)).body.total_count;
        expectError(
          await post({ amount: 100, customer_id: aliceCustomer.id, rejection_reason: 'No' }),
          400,
          'invalid_request_error',
          'rejection_reason',
        );
        expect((await list(`program_id=${program.id}&customer_id=${aliceCustomer.id}&limit=1`)).body.total_count).toBe(before);
      });

      it('answers 400 for a reason over 2000 characters (after trimming) or not a string, and changes nothing', async () => {
        const c = await create({ amount: 100, customer_id: aliceCustomer.id, status: 'rejected' });
        expectError(
          await put(c.id, { status: 'rejected', rejection_reason: 'x'.repeat(2001) }),
          400,
          'invalid_request_error',
          'rejection_reason',
        );
        expectError(await put(c.id, { rejection_reason: 42 }), 400, 'invalid_request_error', 'rejection_reason');
        expect(await retrieveWithReason(c.id)).toMatchObject({ rejection_reason: null, updated_at: c.updated_at });
        const longest = await updateWithReason(c.id, { rejection_reason: ` ${'y'.repeat(2000)} ` });
        expect(longest.rejection_reason).toBe('y'.repeat(2000));
      });

      it("leaves a reward's refund entries without a reason when they follow it out of rejected", async () => {
        const p = await quietProgram(t, org);
        await createFlow(t, org, { program_id: p.id });
        const partner = await partnerIn(p);
        const customer = await createCustomer(t, org, partner, { status: 'active' });
        const txn = await createTransaction(t, org, customer, { amount: 10_000 });
        const [reward] = await commissionsOf(t, org, txn);
        expect((await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({ amount: 5000 })).status).toBe(200);
        const entry = (await commissionsOf(t, org, txn)).find((c) => c.amount < 0)!;
        await update(reward.id, { status: 'rejected', rejection_reason: 'Fraud' });
        // The entry followed its reward out; the reason is the reward's, not the entry's.
        expect(await retrieveWithReason(entry.id)).toMatchObject({ status: 'rejected', rejection_reason: null });
        // A reason given to the following entry goes when it follows the reward back.
        expect(await updateWithReason(entry.id, { rejection_reason: 'Goes with the reward' })).toMatchObject({
          rejection_reason: 'Goes with the reward',
        });
        expect(await updateWithReason(reward.id, { status: 'refunded' })).toMatchObject({ rejection_reason: null });
        expect(await retrieveWithReason(entry.id)).toMatchObject({ status: 'refunded', rejection_reason: null });
        await update(reward.id, { status: 'rejected' });
        await update(entry.id, { rejection_reason: 'Again' });
        await update(reward.id, { status: 'approved' });
        expect(await retrieveWithReason(entry.id)).toMatchObject({ status: 'approved', rejection_reason: null });
      });
    });

    it('answers 400 naming customer_id, program_id or partner_id (not editable) and 404 for an unknown id', async () => {
      const c = await create({ amount: 100, customer_id: aliceCustomer.id });
      expectError(await put(c.id, { customer_id: bobCustomer.id }), 400, 'invalid_request_error', 'customer_id');
      expectError(await put(c.id, { program_id: program2.id }), 400, 'invalid_request_error', 'program_id');
      expectError(await put(c.id, { partner_id: bob.id }), 400, 'invalid_request_error', 'partner_id');
      expectError(await put('comm_doesNotExist000000000000', { amount: 1 }), 404, 'not_found_error');
    });
  });

  describe('GET /v1/commissions/:id', () => {
    it('shows exactly the short field set, with amount and revenue as numbers', async () => {
      const c = await create({ amount: 1234, customer_id: aliceCustomer.id, revenue: 5678, source: 'api', charge_id: 'ch_short' });
      const res = await retrieve(c.id);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(sortedKeys(res.body.data)).toEqual(SHORT);
      expect(res.body.data).toEqual({
        id: c.id,
        amount: 1234,
        customer_id: aliceCustomer.id,
        transaction_id: null,
        charge_id: 'ch_short',
        source: 'api',
        status: 'pending',
        revenue: 5678,
        created_at: c.created_at,
        updated_at: c.updated_at,
        program_id: program.id,
        organization_id: org.organization_id,
      });
      const noRevenue = await create({ amount: 1, customer_id: aliceCustomer.id });
      expect((await retrieve(noRevenue.id)).body.data.revenue).toBeNull();
    });

    it('expands partner, program and customer in the shapes of the Partnership Program API', async () => {
      const c = await create({ amount: 1234, customer_id: aliceCustomer.id });
      const programObj = (await t.request.get(`/v1/programs/${program.id}`).set(org.auth)).body.data;
      const res = await retrieve(c.id, '?expand[]=partner&expand[]=program&expand[]=customer');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(sortedKeys(res.body.data)).toEqual([...SHORT, 'customer', 'partner', 'program'].sort());
      expect(sortedKeys(res.body.data.partner)).toEqual([...EXPANDED_PARTNER_FIELDS].sort());
      expect(res.body.data.partner).toEqual(pick(alice, EXPANDED_PARTNER_FIELDS));
      expect(res.body.data.partner).toMatchObject({ first_name: 'Alice', company_name: 'Alice Co', status: 'active' });
      expect(sortedKeys(res.body.data.program)).toEqual([...EXPANDED_PROGRAM_FIELDS].sort());
      expect(res.body.data.program).toEqual(pick(programObj, EXPANDED_PROGRAM_FIELDS));
      expect(sortedKeys(res.body.data.customer)).toEqual([...EXPANDED_CUSTOMER_FIELDS].sort());
      // Earlier tests' payments made the lead active: compare with the current record.
      const currentCustomer = (await t.request.get(`/v1/customers/${aliceCustomer.id}`).set(org.auth)).body.data;
      expect(res.body.data.customer).toEqual(pick(currentCustomer, EXPANDED_CUSTOMER_FIELDS));
      expect(res.body.data.customer).toMatchObject({
        id: aliceCustomer.id,
        email: aliceCustomer.email,
        name: 'Ann Customer',
        created_at: aliceCustomer.created_at,
      });

      const one = await retrieve(c.id, '?expand=customer');
      expect(sortedKeys(one.body.data)).toEqual([...SHORT, 'customer'].sort());
    });

    it('a customerless commission has no customer expansion', async () => {
      const c = await create({ amount: 3, program_id: program2.id, partner_id: carol.id });
      const res = await retrieve(c.id, '?expand[]=customer&expand[]=partner');
      expect(res.status).toBe(200);
      expect(sortedKeys(res.body.data)).toEqual([...SHORT, 'partner'].sort());
      expect(res.body.data.partner.id).toBe(carol.id);
    });

    it('answers 400 for an unknown expand value or query key, 404 for an unknown id', async () => {
      const c = await create({ amount: 3, customer_id: aliceCustomer.id });
      expectError(await retrieve(c.id, '?expand=flow'), 400, 'invalid_request_error', 'expand');
      expectError(await retrieve(c.id, '?include=stats'), 400, 'invalid_request_error', 'include');
      expectError(await retrieve('comm_doesNotExist000000000000'), 404, 'not_found_error');
    });
  });

  describe('GET /v1/commissions', () => {
    /** A program with a known set of commissions, oldest first. */
    let lp: ApiObject;
    let p1: ApiObject;
    let p2: ApiObject;
    let c1: ApiObject;
    let c2: ApiObject;
    let txn1: ApiObject;
    let txn2: ApiObject;
    let asc: ApiObject[];

    beforeAll(async () => {
      lp = await quietProgram(t, org);
      p1 = await partnerIn(lp, org, { first_name: 'Lisa', company_name: null });
      p2 = await partnerIn(lp, org, { first_name: 'Liam' });
      c1 = await createCustomer(t, org, p1, { name: 'Lou' });
      c2 = await createCustomer(t, org, p2);
      txn1 = await createTransaction(t, org, c1, { amount: 3000 });
      txn2 = await createTransaction(t, org, c2, { amount: 5000 });
      const specs: Record<string, unknown>[] = [
        { customer_id: c1.id, transaction_id: txn1.id, status: 'pending', revenue: 3000 },
        { customer_id: c1.id, transaction_id: txn1.id, status: 'approved' },
        { customer_id: c1.id, status: 'paid' },
        { customer_id: c2.id, transaction_id: txn2.id, status: 'pending', revenue: 5000 },
        { customer_id: c2.id, status: 'rejected' },
        { program_id: lp.id, partner_id: p1.id, status: 'refunded' },
        { program_id: lp.id, partner_id: p2.id, status: 'approved' },
      ];
      asc = [];
      for (const [i, spec] of specs.entries()) {
        asc.push(await create({ amount: 100 * (i + 1), created_at: `2025-01-0${i + 1}T10:00:00.000Z`, ...spec }));
      }
    });

    const base = (q = '') => `program_id=${lp?.id}${q ? `&${q}` : ''}`;

    it('lists the short field set, newest first, with numbers, has_more and total_count', async () => {
      const res = await list(base('limit=100'));
      expect(res.status).toBe(200);
      expect(sortedKeys(res.body)).toEqual(['data', 'has_more', 'success', 'total_count']);
      expect(res.body).toMatchObject({ success: true, has_more: false, total_count: 7 });
      expect(ids(res.body.data)).toEqual(ids([...asc].reverse()));
      for (const row of res.body.data) expect(sortedKeys(row)).toEqual(SHORT);
      const first = res.body.data.find((r: ApiObject) => r.id === asc[0].id);
      expect(first).toEqual({
        id: asc[0].id,
        amount: 100,
        customer_id: c1.id,
        transaction_id: txn1.id,
        charge_id: txn1.charge_id,
        source: null,
        status: 'pending',
        revenue: 3000,
        created_at: '2025-01-01T10:00:00.000Z',
        updated_at: asc[0].updated_at,
        program_id: lp.id,
        organization_id: org.organization_id,
      });
      expect(res.body.data.find((r: ApiObject) => r.id === asc[1].id).revenue).toBeNull();
    });

    it('requires program_id, and answers 404 for an unknown program', async () => {
      expectError(await list('limit=10'), 400, 'invalid_request_error', 'program_id');
      expectError(await list('program_id=prg_doesNotExist000000000000'), 404, 'not_found_error', 'program_id');
    });

    it('filters by partner_id, customer_id, transaction_id and status', async () => {
      const check = async (q: string, expected: ApiObject[]) => {
        const res = await list(base(`${q}&order=asc&limit=100`));
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(ids(res.body.data), q).toEqual(ids(expected));
        expect(res.body.total_count, q).toBe(expected.length);
      };
      await check(`partner_id=${p1.id}`, [asc[0], asc[1], asc[2], asc[5]]);
      await check(`partner_id=${p2.id}`, [asc[3], asc[4], asc[6]]);
      await check(`customer_id=${c1.id}`, [asc[0], asc[1], asc[2]]);
      await check(`customer_id=${c2.id}`, [asc[3], asc[4]]);
      await check(`transaction_id=${txn1.id}`, [asc[0], asc[1]]);
      await check(`transaction_id=${txn2.id}`, [asc[3]]);
      await check('status=pending', [asc[0], asc[3]]);
      await check('status=approved', [asc[1], asc[6]]);
      await check('status=paid', [asc[2]]);
      await check('status=rejected', [asc[4]]);
      await check('status=refunded', [asc[5]]);
      await check(`partner_id=${p1.id}&status=approved`, [asc[1]]);
      await check(`customer_id=${c1.id}&transaction_id=${txn2.id}`, []);
      await check('created_gte=2025-01-03T10:00:00.000Z&created_lte=2025-01-05T10:00:00.000Z', [asc[2], asc[3], asc[4]]);
    });

    it('answers 400 for an unknown status filter, expand value or query key', async () => {
      expectError(await list(base('status=cancelled')), 400, 'invalid_request_error', 'status');
      expectError(await list(base('expand=flow')), 400, 'invalid_request_error', 'expand');
      expectError(await list(base('flow_id=flw_x')), 400, 'invalid_request_error', 'flow_id');
    });

    it('walks the list forwards with starting_after and back with ending_before; total_count stays the whole', async () => {
      const pages: string[][] = [];
      let cursor: string | undefined;
      for (;;) {
        const res = await list(base(`limit=3${cursor ? `&starting_after=${cursor}` : ''}`));
        expect(res.status).toBe(200);
        expect(res.body.total_count).toBe(7);
        pages.push(ids(res.body.data));
        if (!res.body.has_more) break;
        cursor = res.body.data.at(-1).id;
      }
      const desc = ids([...asc].reverse());
      expect(pages).toEqual([desc.slice(0, 3), desc.slice(3, 6), desc.slice(6)]);

      const back = await list(base(`limit=3&ending_before=${desc[6]}`));
      expect(ids(back.body.data)).toEqual(desc.slice(3, 6));
      expect(back.body).toMatchObject({ has_more: true, total_count: 7 });

      const ascPage = await list(base(`limit=2&order=asc&starting_after=${asc[1].id}`));
      expect(ids(ascPage.body.data)).toEqual([asc[2].id, asc[3].id]);
      expect(ascPage.body).toMatchObject({ has_more: true, total_count: 7 });

      const filtered = await list(base(`limit=1&partner_id=${p1.id}&order=asc&starting_after=${asc[1].id}`));
      expect(ids(filtered.body.data)).toEqual([asc[2].id]);
      expect(filtered.body).toMatchObject({ has_more: true, total_count: 4 });
    });

    it('expands partner, program, customer and transaction in the shapes of the Partnership Program API', async () => {
      const programObj = (await t.request.get(`/v1/programs/${lp.id}`).set(org.auth)).body.data;
      const res = await list(base('limit=100&order=asc&expand[]=partner&expand[]=program&expand[]=customer&expand[]=transaction'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res.body.data)).toEqual(ids(asc));
      const partners: Record<string, ApiObject> = { [p1.id]: p1, [p2.id]: p2 };
      const customers: Record<string, ApiObject> = { [c1.id]: c1, [c2.id]: c2 };
      const transactions: Record<string, ApiObject> = { [txn1.id]: txn1, [txn2.id]: txn2 };
      for (const [i, row] of res.body.data.entries()) {
        const made = asc[i];
        const expectedKeys = [...SHORT, 'partner', 'program'];
        if (made.customer_id) expectedKeys.push('customer');
        if (made.transaction_id) expectedKeys.push('transaction');
        expect(sortedKeys(row)).toEqual(expectedKeys.sort());
        expect(sortedKeys(row.partner)).toEqual([...EXPANDED_PARTNER_FIELDS].sort());
        expect(row.partner).toEqual(pick(partners[made.partner_id], EXPANDED_PARTNER_FIELDS));
        expect(sortedKeys(row.program)).toEqual([...EXPANDED_PROGRAM_FIELDS].sort());
        expect(row.program).toEqual(pick(programObj, EXPANDED_PROGRAM_FIELDS));
        if (made.customer_id) {
          expect(sortedKeys(row.customer)).toEqual([...EXPANDED_CUSTOMER_FIELDS].sort());
          // The customer became active with its payment: compare with the current record.
          const current = (await t.request.get(`/v1/customers/${made.customer_id}`).set(org.auth)).body.data;
          expect(row.customer).toEqual(pick(current, EXPANDED_CUSTOMER_FIELDS));
          expect(row.customer.id).toBe(customers[made.customer_id].id);
        }
        if (made.transaction_id) {
          expect(sortedKeys(row.transaction)).toEqual([...EXPANDED_TRANSACTION_FIELDS].sort());
          expect(row.transaction).toEqual(pick(transactions[made.transaction_id], EXPANDED_TRANSACTION_FIELDS));
        }
      }
      expect(res.body.data[0].transaction).toEqual({ id: txn1.id, amount: 3000, status: 'paid', created_at: txn1.created_at });
      expect(res.body.data[0].customer).toMatchObject({ id: c1.id, name: 'Lou', status: 'active' });

      const onlyTransaction = await list(base('limit=1&order=asc&expand=transaction'));
      expect(sortedKeys(onlyTransaction.body.data[0])).toEqual([...SHORT, 'transaction'].sort());
    });
  });

  describe('DELETE /v1/commissions/:id', () => {
    it('hides the commission and takes it out of the partner total_commission', async () => {
      const p = await partnerIn(program, org, { first_name: 'Dee' });
      const cust = await createCustomer(t, org, p);
      expect(await partnerStats(t, org, p.id)).toMatchObject({ total_commission: 0 });
      const a = await create({ amount: 1234, customer_id: cust.id });
      const b = await create({ amount: 500, customer_id: cust.id, status: 'paid' });
      await create({ amount: 900, customer_id: cust.id, status: 'rejected' });
      await create({ amount: 800, customer_id: cust.id, status: 'refunded' });
      const d = await create({ amount: 66, program_id: program.id, partner_id: p.id, status: 'approved' });
      expect((await partnerStats(t, org, p.id)).total_commission).toBe(1234 + 500 + 66);

      const res = await del(a.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: a.id, deleted: true } });
      expect((await partnerStats(t, org, p.id)).total_commission).toBe(500 + 66);

      expectError(await retrieve(a.id), 404, 'not_found_error');
      expectError(await put(a.id, { amount: 1 }), 404, 'not_found_error');
      expectError(await del(a.id), 404, 'not_found_error');
      const rows = await list(`program_id=${program.id}&partner_id=${p.id}&limit=100`);
      expect(rows.body.total_count).toBe(4);
      expect(ids(rows.body.data)).not.toContain(a.id);

      expect((await del(d.id)).status).toBe(200);
      expect((await del(b.id)).status).toBe(200);
      expect((await partnerStats(t, org, p.id)).total_commission).toBe(0);
      // The row stays in the database, marked deleted.
      const row = await t.storage.db
        .selectFrom('commissions')
        .select(['id', 'deleted_at'])
        .where('id', '=', a.id)
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).not.toBeNull();
    });
  });

  describe('bad input', () => {
    it.each([
      ['amount as a string', { amount: '1000' }, 'amount'],
      ['a negative amount', { amount: -1 }, 'amount'],
      ['a fractional amount', { amount: 10.5 }, 'amount'],
      ['no amount', {}, 'amount'],
      ['an unknown status', { amount: 1, status: 'cancelled' }, 'status'],
      ['an unknown key', { amount: 1, flow_id: 'flw_x' }, 'flow_id'],
      ['another unknown key', { amount: 1, currency: 'USD' }, 'currency'],
      ['a bad created_at', { amount: 1, created_at: 'yesterday' }, 'created_at'],
      ['a created_at without a time zone', { amount: 1, created_at: '2025-01-01 10:00' }, 'created_at'],
      ['a negative revenue', { amount: 1, revenue: -5 }, 'revenue'],
      ['revenue as a string', { amount: 1, revenue: '5' }, 'revenue'],
    ])('POST answers 400 for %s', async (_name, body, param) => {
      const before = (await list(`program_id=${program.id}&customer_id=${bobCustomer.id}&limit=1`)).body.total_count;
      expectError(await post({ customer_id: bobCustomer.id, ...body }), 400, 'invalid_request_error', param);
      const after = (await list(`program_id=${program.id}&customer_id=${bobCustomer.id}&limit=1`)).body.total_count;
      expect(after).toBe(before);
    });

    it.each([
      ['amount as a string', { amount: '1000' }, 'amount'],
      ['a negative amount', { amount: -1 }, 'amount'],
      ['a fractional amount', { amount: 0.5 }, 'amount'],
      ['an unknown status', { status: 'void' }, 'status'],
      ['an unknown key', { approval_type: 'immediate' }, 'approval_type'],
      ['a bad created_at', { created_at: '2025-13-45T00:00:00Z' }, 'created_at'],
    ])('PUT answers 400 for %s and changes nothing', async (_name, body, param) => {
      const c = await create({ amount: 42, customer_id: bobCustomer.id });
      expectError(await put(c.id, body), 400, 'invalid_request_error', param);
      const got = (await retrieve(c.id)).body.data;
      expect(got).toMatchObject({ amount: 42, status: 'pending', created_at: c.created_at, updated_at: c.updated_at });
    });
  });

  describe('tenant isolation', () => {
    it("answers 404 for another organization's commission on GET, PUT and DELETE, and leaves it alone", async () => {
      expectError(await retrieve(theirCommission.id), 404, 'not_found_error');
      expectError(await retrieve(theirCommission.id, '?expand=partner'), 404, 'not_found_error');
      expectError(await put(theirCommission.id, { amount: 1, status: 'paid' }), 404, 'not_found_error');
      expectError(await del(theirCommission.id), 404, 'not_found_error');
      const theirs = await retrieve(theirCommission.id, '', other);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toMatchObject({ amount: 777, status: 'pending', updated_at: theirCommission.updated_at });
    });

    it("answers 404 for another organization's customer, partner, program or transaction on create", async () => {
      expectError(await post({ amount: 5, customer_id: theirCustomer.id }), 404, 'not_found_error', 'customer_id');
      expectError(await post({ amount: 5, program_id: program.id, partner_id: theirPartner.id }), 404, 'not_found_error', 'partner_id');
      expectError(
        await post({ amount: 5, program_id: other.program_id, partner_id: theirPartner.id }),
        404,
        'not_found_error',
        'program_id',
      );
      expectError(await post({ amount: 5, program_id: other.program_id, partner_id: alice.id }), 404, 'not_found_error', 'program_id');
      expectError(
        await post({ amount: 5, customer_id: aliceCustomer.id, transaction_id: theirTransaction.id }),
        404,
        'not_found_error',
        'transaction_id',
      );
      const mine = await create({ amount: 5, customer_id: aliceCustomer.id });
      expectError(await put(mine.id, { transaction_id: theirTransaction.id }), 404, 'not_found_error', 'transaction_id');
      const theirList = await list(`program_id=${other.program_id}&limit=100`, other);
      expect(theirList.body.total_count).toBe(2); // their default flow's commission and the manual one
    });

    it("answers 404 for another organization's program_id on list, and never lists their commissions", async () => {
      expectError(await list(`program_id=${other.program_id}`), 404, 'not_found_error', 'program_id');
      const mine = await list(`program_id=${program.id}&partner_id=${theirPartner.id}`);
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({ data: [], total_count: 0 });
      const byCustomer = await list(`program_id=${program.id}&customer_id=${theirCustomer.id}`);
      expect(byCustomer.body.total_count).toBe(0);
      const byTransaction = await list(`program_id=${program.id}&transaction_id=${theirTransaction.id}`);
      expect(byTransaction.body.total_count).toBe(0);
    });
  });
});
