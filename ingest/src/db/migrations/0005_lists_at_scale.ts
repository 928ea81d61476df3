import { sql, type Kysely } from 'kysely';

/** The lists whose unfiltered total_count comes from counters instead of counting rows. */
export const COUNTED_LISTS = ['customers', 'transactions', 'commissions'] as const;

/**
 * What keeps lists and tracking lookups fast as a program grows.
 *
 * - `list_counts`: the live (not deleted) rows of each counted list per program, kept by
 *   statement-level triggers in the same SQL transaction as each change, in 16 shards by backend
 *   like `partner_stats`. An unfiltered page's exact total_count reads at most 16 rows.
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

  // One function for every counted table and statement kind: tg_argv[0] names the column, and
  // the transition tables a statement has tell what entered and what left the live rows.
  await sql`
    create function svc_count_list_rows() returns trigger language plpgsql as $$
    declare
      entered text := 'select program_id, 1 as d from new_rows where deleted_at is null';
      left_ text := 'select program_id, -1 as d from old_rows where deleted_at is null';
      delta text := case tg_op when 'INSERT' then entered when 'DELETE' then left_ else entered || ' union all ' || left_ end;
    begin
      execute format(
        'insert into list_counts as s (program_id, shard, %1$I)
         select program_id, pg_backend_pid() %% 16, sum(d) from (%2$s) x group by program_id having sum(d) <> 0 order by program_id
         on conflict (program_id, shard) do update set %1$I = s.%1$I + excluded.%1$I',
        tg_argv[0], delta);
      return null;
    end $$`.execute(db);
  for (const list of COUNTED_LISTS) {
    const statements = [
      `create trigger ${list}_list_count_insert after insert on ${list} referencing new table as new_rows
         for each statement execute function svc_count_list_rows('${list}')`,
      `create trigger ${list}_list_count_update after update on ${list} referencing old table as old_rows new table as new_rows
         for each statement execute function svc_count_list_rows('${list}')`,
      `create trigger ${list}_list_count_delete after delete on ${list} referencing old table as old_rows
         for each statement execute function svc_count_list_rows('${list}')`,
      `insert into list_counts (program_id, shard, ${list})
         select program_id, 0, count(*) from ${list} where deleted_at is null group by program_id
         on conflict (program_id, shard) do update set ${list} = excluded.${list}`,
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const list of COUNTED_LISTS) {
    for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${list}_list_count_${op} on ${list}`).execute(db);
  }
  await sql`drop function if exists svc_count_list_rows()`.execute(db);
  await db.schema.dropTable('list_counts').execute();
  await sql`drop index if exists customers_email_trgm`.execute(db);
  await db.schema.dropIndex('customers_click').execute();
}
