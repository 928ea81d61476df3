import { type Kysely, sql } from 'kysely';

/**
 * The refund rate rule reads a partner's payments, revenue and refunds of 60 days
 * (ingest/docs/risk.md): from a few rows per day instead of every transaction of those days.
 *
 * - `daily_stats.payments` and `daily_stats.refunded`: per program, partner, UTC day of the
 *   payment and currency, the live transactions and their refunded amount, kept by the same
 *   trigger as `revenue` (net of refunds) and in the same statement, so a payment costs no more
 *   statements than before. `revenue + refunded` is the revenue before refunds.
 * - `daily_stats_partner_day`: one partner's rows of a span of days, whatever the program's
 *   other partners (the rule reads about 60 days × 16 shards at most).
 * - Every transaction recorded before this migration is counted in shard 0, while writes to
 *   transactions wait (a SHARE lock until the migration commits), so none is counted twice or
 *   missed. On an installation with many transactions this holds payments for the time of one
 *   pass over them; the index on daily_stats can be built beforehand
 *   (ingest/docs/upgrades.md#indexes-on-large-tables).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`lock table transactions in share mode`.execute(db);
  await sql`alter table daily_stats add column payments int8 not null default 0, add column refunded int8 not null default 0`.execute(db);
  await sql`create index if not exists daily_stats_partner_day on daily_stats (partner_id, day)`.execute(db);

  // The rollup of transactions (migration 0011's, written out), with the two new figures.
  await sql`
    create or replace function svc_daily_stats_transactions_revenue() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into daily_stats as s (program_id, day, partner_id, currency, shard, revenue, payments, refunded)
          select program_id, day, partner_id, currency, pg_backend_pid() % 16, sum(d_revenue)::int8, sum(d_payments)::int8, sum(d_refunded)::int8
            from (select program_id, partner_id, (created_at at time zone 'UTC')::date as day, currency,
                         case when deleted_at is null then amount - refunded_amount else 0 end as d_revenue,
                         case when deleted_at is null then 1 else 0 end as d_payments,
                         case when deleted_at is null then refunded_amount else 0 end as d_refunded
                    from new_rows) as deltas
           group by program_id, day, partner_id, currency
          having sum(d_revenue) <> 0 or sum(d_payments) <> 0 or sum(d_refunded) <> 0
           order by program_id, day, partner_id, currency
          on conflict (program_id, day, partner_id, currency, shard) do update
             set revenue = s.revenue + excluded.revenue, payments = s.payments + excluded.payments, refunded = s.refunded + excluded.refunded;
        elsif tg_op = 'UPDATE' then
          insert into daily_stats as s (program_id, day, partner_id, currency, shard, revenue, payments, refunded)
          select program_id, day, partner_id, currency, pg_backend_pid() % 16, sum(d_revenue)::int8, sum(d_payments)::int8, sum(d_refunded)::int8
            from (select program_id, partner_id, (created_at at time zone 'UTC')::date as day, currency,
                         -(case when deleted_at is null then amount - refunded_amount else 0 end) as d_revenue,
                         -(case when deleted_at is null then 1 else 0 end) as d_payments,
                         -(case when deleted_at is null then refunded_amount else 0 end) as d_refunded
                    from old_rows
                  union all
                  select program_id, partner_id, (created_at at time zone 'UTC')::date as day, currency,
                         case when deleted_at is null then amount - refunded_amount else 0 end,
                         case when deleted_at is null then 1 else 0 end,
                         case when deleted_at is null then refunded_amount else 0 end
                    from new_rows) as deltas
           group by program_id, day, partner_id, currency
          having sum(d_revenue) <> 0 or sum(d_payments) <> 0 or sum(d_refunded) <> 0
           order by program_id, day, partner_id, currency
          on conflict (program_id, day, partner_id, currency, shard) do update
             set revenue = s.revenue + excluded.revenue, payments = s.payments + excluded.payments, refunded = s.refunded + excluded.refunded;
        else
          insert into daily_stats as s (program_id, day, partner_id, currency, shard, revenue, payments, refunded)
          select program_id, day, partner_id, currency, pg_backend_pid() % 16, sum(d_revenue)::int8, sum(d_payments)::int8, sum(d_refunded)::int8
            from (select program_id, partner_id, (created_at at time zone 'UTC')::date as day, currency,
                         -(case when deleted_at is null then amount - refunded_amount else 0 end) as d_revenue,
                         -(case when deleted_at is null then 1 else 0 end) as d_payments,
                         -(case when deleted_at is null then refunded_amount else 0 end) as d_refunded
                    from old_rows) as deltas
           group by program_id, day, partner_id, currency
          having sum(d_revenue) <> 0 or sum(d_payments) <> 0 or sum(d_refunded) <> 0
           order by program_id, day, partner_id, currency
          on conflict (program_id, day, partner_id, currency, shard) do update
             set revenue = s.revenue + excluded.revenue, payments = s.payments + excluded.payments, refunded = s.refunded + excluded.refunded;
        end if;
        return null;
      end $$`.execute(db);

  // What was recorded before, in shard 0 (revenue is there already).
  await sql`
    insert into daily_stats as s (program_id, day, partner_id, currency, shard, payments, refunded)
    select program_id, (created_at at time zone 'UTC')::date, partner_id, currency, 0, count(*), sum(refunded_amount)
      from transactions
     where deleted_at is null
     group by 1, 2, 3, 4
     order by 1, 2, 3, 4
    on conflict (program_id, day, partner_id, currency, shard) do update
       set payments = s.payments + excluded.payments, refunded = s.refunded + excluded.refunded`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The rollup as migration 0011 made it: revenue alone.
  await sql`
    create or replace function svc_daily_stats_transactions_revenue() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into daily_stats as s (program_id, day, partner_id, currency, shard, revenue)
          select program_id, (created_at at time zone 'UTC')::date, partner_id, currency, pg_backend_pid() % 16,
                 sum(case when deleted_at is null then amount - refunded_amount else 0 end)::int8
            from new_rows group by 1, 2, 3, 4 having sum(case when deleted_at is null then amount - refunded_amount else 0 end) <> 0
           order by 1, 2, 3, 4
          on conflict (program_id, day, partner_id, currency, shard) do update set revenue = s.revenue + excluded.revenue;
        elsif tg_op = 'UPDATE' then
          insert into daily_stats as s (program_id, day, partner_id, currency, shard, revenue)
          select program_id, day, partner_id, currency, pg_backend_pid() % 16, sum(d)::int8
            from (select program_id, partner_id, (created_at at time zone 'UTC')::date as day, currency,
                         -(case when deleted_at is null then amount - refunded_amount else 0 end) as d from old_rows
                  union all
                  select program_id, partner_id, (created_at at time zone 'UTC')::date, currency,
                         case when deleted_at is null then amount - refunded_amount else 0 end from new_rows) as deltas
           group by 1, 2, 3, 4 having sum(d) <> 0 order by 1, 2, 3, 4
          on conflict (program_id, day, partner_id, currency, shard) do update set revenue = s.revenue + excluded.revenue;
        else
          insert into daily_stats as s (program_id, day, partner_id, currency, shard, revenue)
          select program_id, (created_at at time zone 'UTC')::date, partner_id, currency, pg_backend_pid() % 16,
                 sum(-(case when deleted_at is null then amount - refunded_amount else 0 end))::int8
            from old_rows group by 1, 2, 3, 4 having sum(case when deleted_at is null then amount - refunded_amount else 0 end) <> 0
           order by 1, 2, 3, 4
          on conflict (program_id, day, partner_id, currency, shard) do update set revenue = s.revenue + excluded.revenue;
        end if;
        return null;
      end $$`.execute(db);
  await sql`drop index if exists daily_stats_partner_day`.execute(db);
  await sql`alter table daily_stats drop column if exists payments, drop column if exists refunded`.execute(db);
}
