import { sql, type Kysely } from 'kysely';
import { dropShardedCounter, keepShardedCounter } from './sharded-counter.js';

/** The lists whose unfiltered total_count comes from counters instead of counting rows. */
export const COUNTED_LISTS = ['customers', 'transactions', 'commissions'] as const;

/**
 * What keeps lists and tracking lookups fast as a program grows.
 *
 * - `list_counts`: the live (not deleted) rows of each counted list per program, kept like
 *   `partner_stats` (see sharded-counter.ts). An unfiltered page's exact total_count reads at
 *   most 16 rows.
 * - A trigram index on customer e-mails for `search` (a partial match), when the server has
 *   pg_trgm; without it, search still works, by scanning.
 * - An index on customers.click_id: a repeat click asks whether its click became a customer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('customers_click').on('customers').column('click_id').execute();

  await sql`
    do $$
    begin
      create extension if not exists pg_trgm;
    exception when others then
      raise notice 'pg_trgm is not available: customer search will scan';
    end $$`.execute(db);
  await sql`
    do $$
    begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index customers_email_trgm on customers using gin (email gin_trgm_ops);
      end if;
    end $$`.execute(db);

  let table = db.schema
    .createTable('list_counts')
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('shard', 'int2', (c) => c.notNull());
  for (const list of COUNTED_LISTS) table = table.addColumn(list, 'int8', (c) => c.notNull().defaultTo(0));
  await table.addPrimaryKeyConstraint('list_counts_pkey', ['program_id', 'shard']).execute();

  for (const list of COUNTED_LISTS) {
    await keepShardedCounter(db, { table: list, counters: 'list_counts', key: 'program_id', counter: list, contribution: 'case when deleted_at is null then 1 else 0 end' });
    await sql
      .raw(
        `insert into list_counts (program_id, shard, ${list})
         select program_id, 0, count(*) from ${list} where deleted_at is null group by program_id
         on conflict (program_id, shard) do update set ${list} = excluded.${list}`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const list of COUNTED_LISTS) await dropShardedCounter(db, { table: list, counters: 'list_counts', counter: list });
  await db.schema.dropTable('list_counts').execute();
  await sql`drop index if exists customers_email_trgm`.execute(db);
  await db.schema.dropIndex('customers_click').execute();
}
