import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiObject, createCustomer, createPartner, createProgram, createTransaction } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * total_count of an unfiltered customers, transactions or commissions page comes from
 * trigger-kept counters (table list_counts), so it costs the same at any size; it must stay
 * exactly the number of live rows through every change.
 */
describe('list total_count at scale', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  let program: ApiObject;
  let partners: ApiObject[];

  beforeAll(async () => {
    program = await createProgram(t, org, { name: 'Counted' });
    partners = [await createPartner(t, org, { program_id: program.id }), await createPartner(t, org, { program_id: program.id })];
  });

  const LISTS = ['customers', 'transactions', 'commissions'] as const;
  type List = (typeof LISTS)[number];

  async function totalCount(list: List, filters = ''): Promise<number> {
    const res = await t.request.get(`/v1/${list}?program_id=${program.id}&limit=1${filters}`).set(org.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.total_count;
  }

  const liveRows = async (list: List) =>
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(list)} where program_id = ${program.id} and deleted_at is null`.execute(t.storage.db)
    ).rows[0].n;

  async function expectExact(): Promise<void> {
    for (const list of LISTS) expect(await totalCount(list), list).toBe(await liveRows(list));
  }

  it('counts live rows exactly through creates, refunds, deletes of every kind, and a statement touching many rows', async () => {
    await expectExact();
    const customers: ApiObject[] = [];
    for (let i = 0; i < 6; i++) customers.push(await createCustomer(t, org, partners[i % 2], { status: 'active' }));
    const transactions: ApiObject[] = [];
    for (const c of customers) transactions.push(await createTransaction(t, org, c, { amount: 5000 }));
    await expectExact();
    expect(await totalCount('customers')).toBe(6);
    expect(await totalCount('transactions')).toBe(6);

    // A partial refund adds a refund entry; deletes hide rows.
    expect((await t.request.put(`/v1/transactions/${transactions[0].id}/refund`).set(org.auth).send({ amount: 1000 })).status).toBe(200);
    expect((await t.request.delete(`/v1/transactions/${transactions[1].id}`).set(org.auth)).status).toBe(200);
    expect((await t.request.delete(`/v1/customers/${customers[2].id}`).set(org.auth)).status).toBe(200);
    const commission = (await t.request.get(`/v1/commissions?program_id=${program.id}&transaction_id=${transactions[3].id}`).set(org.auth))
      .body.data[0];
    expect((await t.request.delete(`/v1/commissions/${commission.id}`).set(org.auth)).status).toBe(200);
    await expectExact();

    // One UPDATE and one DELETE statement over many rows, as an operator might run by hand.
    await sql`update customers set deleted_at = now() where program_id = ${program.id} and id in (${customers[3].id}, ${customers[4].id})`.execute(
      t.storage.db,
    );
    await sql`delete from commissions where program_id = ${program.id} and type = 'refund'`.execute(t.storage.db);
    await expectExact();
  });

  it('never counts another program', async () => {
    const other = await createProgram(t, org, { name: 'Elsewhere' });
    const p = await createPartner(t, org, { program_id: other.id });
    await createTransaction(t, org, await createCustomer(t, org, p, { status: 'active' }));
    await expectExact();
  });

  it('reads the counters for an unfiltered page, and counts rows when a filter narrows the list', async () => {
    const before = { all: await totalCount('customers'), partner: await totalCount('customers', `&partner_id=${partners[0].id}`) };
    // Skew the counter on purpose: only the unfiltered answer may move.
    await sql`insert into list_counts (program_id, shard, customers) values (${program.id}, 99, 1000)`.execute(t.storage.db);
    try {
      expect(await totalCount('customers')).toBe(before.all + 1000);
      expect(await totalCount('customers', `&order=asc&expand[]=partner`)).toBe(before.all + 1000);
      expect(await totalCount('customers', `&partner_id=${partners[0].id}`)).toBe(before.partner);
      expect(await totalCount('customers', `&status=active`)).toBe(await liveRows('customers'));
      expect(await totalCount('customers', `&created_gte=2000-01-01T00:00:00.000Z`)).toBe(await liveRows('customers'));
    } finally {
      await sql`delete from list_counts where program_id = ${program.id} and shard = 99`.execute(t.storage.db);
    }
    await expectExact();
  });
});
