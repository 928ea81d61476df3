import { type KyselyPlugin, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { PartnerRow } from '../../src/db/schema.js';
import type { PayoutReadiness } from '../../src/resources/payouts/payout-readiness.js';
import { generateProgramPayouts, nextPayoutOf } from '../../src/resources/payouts/payouts.service.js';
import { type ApiObject, createCustomer, createPartner, createProgram, createTransaction, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { STORAGE } from '../support/harness.js';
import { expectPayoutsTrue } from '../support/payout-invariants.js';

/**
 * The portal's promise and payout generation follow one rule (payoutReadiness,
 * ingest/docs/payouts.md#readiness): for a partner in each situation, what nextPayoutOf tells the
 * portal is what the next generation then does. The rule's every reason alone:
 * ingest/test/unit/payout-readiness.test.ts.
 */

/** What a generation did with a partner's sum, or what the portal said it would do. */
type Verdict = { paid: true; amount: number } | { paid: false; reason: string; amount: number };
const verdictOf = (r: PayoutReadiness): Verdict =>
  r.ready ? { paid: true, amount: r.amount } : { paid: false, reason: r.reason, amount: r.amount };

describe('payout readiness: the portal promises what generation does', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  const partnerIn = (program: ApiObject, fields: Record<string, unknown> = {}) =>
    createPartner(t, org, {
      program_id: program.id,
      group_id: program.default_group_id,
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
      ...fields,
    });
  async function commission(partner: ApiObject, amount: number, status = 'approved') {
    const res = await t.request
      .post('/v1/commissions')
      .set(org.auth)
      .send({ program_id: partner.program_id, partner_id: partner.id, amount, status });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0] as ApiObject;
  }
  /** The partner owes 2000: a paid reward of 2000 refunded after payout (its refund entry, approved). */
  async function owing2000(program: ApiObject, partner: ApiObject) {
    const customer = await createCustomer(t, org, partner, { program_id: program.id });
    const txn = await createTransaction(t, org, customer, { amount: 10_000 });
    const rewards = (await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, transaction_id: txn.id })).body
      .data;
    for (const c of rewards)
      expect((await t.request.put(`/v1/commissions/${c.id}`).set(org.auth).send({ status: 'paid' })).status).toBe(200);
    expect((await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({})).status).toBe(200);
  }
  const rowOf = (id: string): Promise<PartnerRow> =>
    t.storage.db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('for every reason, and for a payout: the same verdict and amount before the generation as in its answer', async () => {
    const program = await createProgram(t, org, { currency_code: 'USD', minimum_payout: 5000 });
    const ready = await partnerIn(program);
    const below = await partnerIn(program);
    const noMethod = await partnerIn(program, { payout_method: 'none', payout_details: {} });
    const noEmail = await partnerIn(program, { payout_details: {} });
    const wiseNoEmail = await partnerIn(program, { payout_method: 'wise', payout_details: {} });
    const owing = await partnerIn(program);
    const even = await partnerIn(program);
    const deleted = await partnerIn(program);
    await commission(ready, 6000);
    await commission(ready, 1000, 'pending');
    await commission(below, 4999);
    await commission(noMethod, 9000);
    await commission(noEmail, 7000);
    await commission(wiseNoEmail, 7000);
    await owing2000(program, owing);
    await owing2000(program, even);
    await commission(even, 2000);
    await commission(deleted, 6000);
    expect((await t.request.delete(`/v1/partners/${deleted.id}`).set(org.auth)).status).toBe(200);

    const live = [ready, below, noMethod, noEmail, wiseNoEmail, owing, even];
    const promised = new Map<string, PayoutReadiness>();
    for (const p of live) {
      const next = await nextPayoutOf(t.storage.db, org.organization_id, await rowOf(p.id));
      expect(next.currencies.map((c) => c.amounts.currency)).toEqual(['USD']);
      promised.set(p.id, next.currencies[0].readiness);
    }
    // A deleted partner has no portal and no balance: nothing is promised to them.
    await expect(nextPayoutOf(t.storage.db, org.organization_id, await rowOf(deleted.id))).rejects.toMatchObject({ status: 404 });
    expect(Object.fromEntries([...promised].map(([id, r]) => [id, r.ready ? 'ready' : r.reason]))).toEqual({
      [ready.id]: 'ready',
      [below.id]: 'below_minimum',
      [noMethod.id]: 'no_payout_method',
      [noEmail.id]: 'missing_payout_details',
      [wiseNoEmail.id]: 'missing_payout_details',
      [owing.id]: 'negative_balance',
      [even.id]: 'nothing_owed',
    });

    const res = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { payouts, skipped } = res.body.data as { payouts: ApiObject[]; skipped: ApiObject[] };
    const done = new Map<string, Verdict>([
      ...payouts.map((p): [string, Verdict] => [p.partner_id, { paid: true, amount: p.amount }]),
      ...skipped.map((s): [string, Verdict] => [s.partner_id, { paid: false, reason: s.reason, amount: s.amount }]),
    ]);
    for (const p of live) expect(done.get(p.id), p.id).toEqual(verdictOf(promised.get(p.id) as PayoutReadiness));
    expect(done.get(deleted.id)).toEqual({ paid: false, reason: 'partner_deleted', amount: 6000 });
    expect(skipped.find((s) => s.partner_id === below.id)).toMatchObject({ minimum_payout: 5000 });
    await expectPayoutsTrue(t.storage.db, program.id);

    // Paid what was promised, the partner's next payout is nothing more until more is approved.
    const after = await nextPayoutOf(t.storage.db, org.organization_id, await rowOf(ready.id));
    expect(after.currencies[0]).toMatchObject({ amounts: { payable: 0, in_payouts: 6000 }, readiness: { reason: 'nothing_owed' } });
  });

  // PGlite has one connection: nothing commits between two statements of a transaction there.
  it.skipIf(STORAGE !== 'postgres')(
    'pays exactly the commissions it judged: one approved between taking and paying stays payable for the next',
    async () => {
      const program = await createProgram(t, org, { currency_code: 'USD' });
      const partner = await partnerIn(program);
      await commission(partner, 3000);
      const late = await commission(partner, 500, 'pending');
      let taking: unknown;
      let approvedMeanwhile = false;
      // Once the generation has taken and summed the payable commissions, another connection
      // approves one more of the partner's and commits, before the payouts are inserted.
      const between: KyselyPlugin = {
        transformQuery: (args) => {
          const raw = args.node as { kind: string; sqlFragments?: readonly string[] };
          if (raw.kind === 'RawNode' && raw.sqlFragments?.join('').includes('insert into payout_candidates')) taking = args.queryId;
          return args.node;
        },
        transformResult: async (args) => {
          if (args.queryId === taking && !approvedMeanwhile) {
            await sql`update commissions set status = 'approved' where id = ${late.id}`.execute(t.storage.db);
            approvedMeanwhile = true;
          }
          return args.result;
        },
      };
      const result = await generateProgramPayouts(t.storage.db.withPlugin(between), org.organization_id, { program_id: program.id });
      expect(approvedMeanwhile).toBe(true);
      expect(result.payouts).toEqual([expect.objectContaining({ partner_id: partner.id, amount: 3000, commission_count: 1 })]);
      await expectPayoutsTrue(t.storage.db, program.id);
      const next = await nextPayoutOf(t.storage.db, org.organization_id, await rowOf(partner.id));
      expect(next.currencies[0].amounts).toMatchObject({ payable: 500, in_payouts: 3000 });
    },
  );
});
