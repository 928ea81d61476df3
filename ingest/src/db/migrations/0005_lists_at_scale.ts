import { type Kysely, sql } from 'kysely';

/** The lists whose unfiltered total_count comes from counters instead of counting rows (db/list-counts.ts reads them). */
const COUNTED_LISTS = ['customers', 'transactions', 'commissions'] as const;

/** The list_counts counters' triggers, built like partner_stats' (0004), written out in full. */
const COUNTER_TRIGGERS = [
  `create function svc_list_counts_customers_customers() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into list_counts as s (program_id, shard, customers)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, (case when deleted_at is null then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set customers = s.customers + excluded.customers;
      elsif tg_op = 'UPDATE' then
        insert into list_counts as s (program_id, shard, customers)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, -(case when deleted_at is null then 1 else 0 end) as d from old_rows
                union all select program_id as k, (case when deleted_at is null then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set customers = s.customers + excluded.customers;
      else
        insert into list_counts as s (program_id, shard, customers)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, -(case when deleted_at is null then 1 else 0 end) as d from old_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set customers = s.customers + excluded.customers;
      end if;
      return null;
  end $$`,
  `create trigger list_counts_customers_customers_insert after insert on customers referencing new table as new_rows
     for each statement execute function svc_list_counts_customers_customers()`,
  `create trigger list_counts_customers_customers_update after update on customers referencing old table as old_rows new table as new_rows
     for each statement execute function svc_list_counts_customers_customers()`,
  `create trigger list_counts_customers_customers_delete after delete on customers referencing old table as old_rows
     for each statement execute function svc_list_counts_customers_customers()`,
  `create function svc_list_counts_transactions_transactions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into list_counts as s (program_id, shard, transactions)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, (case when deleted_at is null then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set transactions = s.transactions + excluded.transactions;
      elsif tg_op = 'UPDATE' then
        insert into list_counts as s (program_id, shard, transactions)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, -(case when deleted_at is null then 1 else 0 end) as d from old_rows
                union all select program_id as k, (case when deleted_at is null then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set transactions = s.transactions + excluded.transactions;
      else
        insert into list_counts as s (program_id, shard, transactions)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, -(case when deleted_at is null then 1 else 0 end) as d from old_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set transactions = s.transactions + excluded.transactions;
      end if;
      return null;
  end $$`,
  `create trigger list_counts_transactions_transactions_insert after insert on transactions referencing new table as new_rows
     for each statement execute function svc_list_counts_transactions_transactions()`,
  `create trigger list_counts_transactions_transactions_update after update on transactions referencing old table as old_rows new table as new_rows
     for each statement execute function svc_list_counts_transactions_transactions()`,
  `create trigger list_counts_transactions_transactions_delete after delete on transactions referencing old table as old_rows
     for each statement execute function svc_list_counts_transactions_transactions()`,
  `create function svc_list_counts_commissions_commissions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into list_counts as s (program_id, shard, commissions)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, (case when deleted_at is null then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set commissions = s.commissions + excluded.commissions;
      elsif tg_op = 'UPDATE' then
        insert into list_counts as s (program_id, shard, commissions)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, -(case when deleted_at is null then 1 else 0 end) as d from old_rows
                union all select program_id as k, (case when deleted_at is null then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set commissions = s.commissions + excluded.commissions;
      else
        insert into list_counts as s (program_id, shard, commissions)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select program_id as k, -(case when deleted_at is null then 1 else 0 end) as d from old_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (program_id, shard) do update set commissions = s.commissions + excluded.commissions;
      end if;
      return null;
  end $$`,
  `create trigger list_counts_commissions_commissions_insert after insert on commissions referencing new table as new_rows
     for each statement execute function svc_list_counts_commissions_commissions()`,
  `create trigger list_counts_commissions_commissions_update after update on commissions referencing old table as old_rows new table as new_rows
     for each statement execute function svc_list_counts_commissions_commissions()`,
  `create trigger list_counts_commissions_commissions_delete after delete on commissions referencing old table as old_rows
     for each statement execute function svc_list_counts_commissions_commissions()`,
];

const DROP_COUNTER_TRIGGERS = [
  'drop trigger if exists list_counts_customers_customers_insert on customers',
  'drop trigger if exists list_counts_customers_customers_update on customers',
  'drop trigger if exists list_counts_customers_customers_delete on customers',
  'drop function if exists svc_list_counts_customers_customers()',
  'drop trigger if exists list_counts_transactions_transactions_insert on transactions',
  'drop trigger if exists list_counts_transactions_transactions_update on transactions',
  'drop trigger if exists list_counts_transactions_transactions_delete on transactions',
  'drop function if exists svc_list_counts_transactions_transactions()',
  'drop trigger if exists list_counts_commissions_commissions_insert on commissions',
  'drop trigger if exists list_counts_commissions_commissions_update on commissions',
  'drop trigger if exists list_counts_commissions_commissions_delete on commissions',
  'drop function if exists svc_list_counts_commissions_commissions()',
];

/**
 * What keeps lists and tracking lookups fast as a program grows.
 *
 * - `list_counts`: the live (not deleted) rows of each counted list per program, kept like
 *   `partner_stats` (see 0004). An unfiltered page's exact total_count reads at
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

  for (const statement of COUNTER_TRIGGERS) await sql.raw(statement).execute(db);
  for (const list of COUNTED_LISTS) {
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
  for (const statement of DROP_COUNTER_TRIGGERS) await sql.raw(statement).execute(db);
  await db.schema.dropTable('list_counts').execute();
  await sql`drop index if exists customers_email_trgm`.execute(db);
  await db.schema.dropIndex('customers_click').execute();
}
