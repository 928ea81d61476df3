import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0019_refund_figures.js';
import { createCustomer, createPartner, createProgram, createTransaction } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { countedPayments, rolledUpPayments } from '../support/refund-figures.js';

/**
 * Migration 0019 counts the payments and refunds recorded before it into daily_stats, and its
 * trigger keeps them from then on (ingest/docs/risk.md: the refund rate rule reads them). The
 * state before is made by undoing the migration, recording payments with the rollup as 0011 made
 * it, then migrating again.
 */
describe('migration 0019: payments and refunds per partner and day', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  it('counts what was recorded before it exactly once, and keeps counting after', async () => {
    const db = t.storage.db;
    const program = await createProgram(t, org);
    const partner = await createPartner(t, org, { program_id: program.id, group_id: program.default_group_id });
    const customer = await createCustomer(t, org, partner);
    const kept = await createTransaction(t, org, customer, { amount: 5000 });

    await down(db as never);
    const before = [
      await createTransaction(t, org, customer, { amount: 7000 }),
      await createTransaction(t, org, customer, { amount: 3000, currency: 'EUR' }),
      await createTransaction(t, org, customer, { amount: 2000 }),
    ];
    // A refund and a deletion the old way, by the old rollup: revenue alone moves.
    await sql`update transactions set refunded_amount = 2500 where id = ${before[0].id}`.execute(db);
    await sql`update transactions set deleted_at = now() where id = ${before[2].id}`.execute(db);
    // As the runner runs it: in a transaction.
    await db.transaction().execute((trx) => up(trx as never));

    const counted = await countedPayments(db, program.id);
    expect(counted.map((d) => [d.currency, d.payments, d.refunded])).toEqual(
      expect.arrayContaining([
        ['USD', 2, 2500],
        ['EUR', 1, 0],
      ]),
    );
    expect(await rolledUpPayments(db, program.id)).toEqual(counted);

    // From now on the trigger counts: a payment, a refund, a deletion.
    await createTransaction(t, org, customer, { amount: 1000 });
    expect((await t.request.put(`/v1/transactions/${kept.id}/refund`).set(org.auth).send({ amount: 500 })).status).toBe(200);
    expect((await t.request.delete(`/v1/transactions/${before[1].id}`).set(org.auth)).status).toBe(200);
    expect(await rolledUpPayments(db, program.id)).toEqual(await countedPayments(db, program.id));
  });
});
