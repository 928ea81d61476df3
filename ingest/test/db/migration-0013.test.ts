import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { up } from '../../src/db/migrations/0013_refund_entries_in_payouts.js';
import { NOTHING_TO_PAY } from '../../src/resources/payouts/payouts.repository.js';
import {
  type ApiObject,
  commissionsOf,
  createCustomer,
  createPartner,
  createProgram,
  createTransaction,
  uniqueEmail,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { expectPayoutsTrue } from '../support/payout-invariants.js';

/**
 * Migration 0013 brings pending payouts made before refund entries went into them up to the rule
 * (ingest/docs/payouts.md#refunds-and-payouts): an approved entry outside the pending payout of its
 * reward joins it. The state before is made by taking a refund entry back out of its payout, as it
 * was then.
 */
describe('migration 0013: refund entries join their reward’s pending payout', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  /** A program with a PayPal partner and a pending payout of a reward of `amount`'s 20 %, refunded by `refunded` the old way. */
  async function oldPartialRefund(amount: number, refunded: number) {
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, {
      program_id: program.id,
      group_id: program.default_group_id,
      payout_method: 'paypal',
      payout_details: { email: uniqueEmail('paypal') },
    });
    const customer = await createCustomer(t, org, partner);
    const txn = await createTransaction(t, org, customer, { amount });
    const [reward] = await commissionsOf(t, org, txn);
    await t.request.put(`/v1/commissions/${reward.id}`).set(org.auth).send({ status: 'approved' });
    const generated = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id });
    const [payout] = generated.body.data.payouts as ApiObject[];
    await t.request.put(`/v1/transactions/${txn.id}/refund`).set(org.auth).send({ amount: refunded });
    const entry = (await commissionsOf(t, org, txn)).find((c) => c.amount < 0)!;
    // As before: the entry outside the payout, the payout pending with the reward, at what it was made with.
    const db = t.storage.db;
    await sql`delete from payout_commissions where commission_id = ${entry.id}`.execute(db);
    await sql`insert into payout_commissions values (${reward.id}, ${payout.id}) on conflict do nothing`.execute(db);
    await sql`update payouts set status = 'pending', reason = null, amount = ${payout.amount}, commission_count = ${payout.commission_count}
               where id = ${payout.id}`.execute(db);
    return { program, payout, entry };
  }
  const payoutRow = async (id: string) => (await t.request.get(`/v1/payouts/${id}`).set(org.auth)).body.data as ApiObject;

  it('puts each approved refund entry into its reward’s pending payout, and cancels a payout left with nothing to pay', async () => {
    const lower = await oldPartialRefund(10_000, 2500);
    expect(await payoutRow(lower.payout.id)).toMatchObject({ amount: 2000, commission_count: 1 });
    const nothing = await oldPartialRefund(10_000, 10_000 - 1);
    await up(t.storage.db as never);

    expect(await payoutRow(lower.payout.id)).toMatchObject({ status: 'pending', amount: 1500, commission_count: 2 });
    await expectPayoutsTrue(t.storage.db, lower.program.id);
    // 1 cent of 10 000 left: the reward's 2000 becomes 0 (rounded), and the payout has nothing to pay.
    expect(await payoutRow(nothing.payout.id)).toMatchObject({ status: 'canceled', amount: 0, reason: NOTHING_TO_PAY });
    const rows = await sql`select 1 from payout_commissions where payout_id = ${nothing.payout.id}`.execute(t.storage.db);
    expect(rows.rows).toEqual([]);

    // Run again, it finds nothing more to do.
    await up(t.storage.db as never);
    expect(await payoutRow(lower.payout.id)).toMatchObject({ amount: 1500, commission_count: 2 });
  });
});
