import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;
const now = sql`now()`;

/**
 * Transactions, commissions, and the partner stats counters.
 *
 * Partner stats are counters kept by triggers, so a partner list page with stats reads a few
 * counter rows per partner instead of aggregating every click, customer, transaction and
 * commission. Each counter is split into 16 shards and a connection always writes the shard of
 * its backend pid: concurrent writers for one partner do not queue on one row, and one SQL
 * transaction never locks two shards of one partner (no deadlocks between them).
 */
/**
 * The partner_stats counters of customers (not leads), revenue (net of refunds) and commission
 * (not rejected or refunded), kept in the same SQL transaction as each change. Statement-level
 * triggers sum a whole statement per partner from its transition tables (old rows taken from
 * their partner, new rows added to theirs, so a row moved to another partner moves its figure)
 * and write in partner order: statements touching several partners on several connections lock
 * counter rows in one order and cannot deadlock on them. Each connection writes the shard of its
 * backend, so concurrent writers of one partner do not queue on one row. Transition tables need
 * one trigger per event; the SQL is static, so PL/pgSQL keeps its plans. Written out in full, as
 * this migration creates them, so that nothing edited later can change what it does.
 */
const COUNTER_TRIGGERS = [
  `create function svc_partner_stats_customers_customers() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into partner_stats as s (partner_id, shard, customers)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, (case when deleted_at is null and status <> 'lead' then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set customers = s.customers + excluded.customers;
      elsif tg_op = 'UPDATE' then
        insert into partner_stats as s (partner_id, shard, customers)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, -(case when deleted_at is null and status <> 'lead' then 1 else 0 end) as d from old_rows
                union all select partner_id as k, (case when deleted_at is null and status <> 'lead' then 1 else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set customers = s.customers + excluded.customers;
      else
        insert into partner_stats as s (partner_id, shard, customers)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, -(case when deleted_at is null and status <> 'lead' then 1 else 0 end) as d from old_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set customers = s.customers + excluded.customers;
      end if;
      return null;
  end $$`,
  `create trigger partner_stats_customers_customers_insert after insert on customers referencing new table as new_rows
     for each statement execute function svc_partner_stats_customers_customers()`,
  `create trigger partner_stats_customers_customers_update after update on customers referencing old table as old_rows new table as new_rows
     for each statement execute function svc_partner_stats_customers_customers()`,
  `create trigger partner_stats_customers_customers_delete after delete on customers referencing old table as old_rows
     for each statement execute function svc_partner_stats_customers_customers()`,
  `create function svc_partner_stats_transactions_revenue() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into partner_stats as s (partner_id, shard, revenue)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, (case when deleted_at is null then amount - refunded_amount else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set revenue = s.revenue + excluded.revenue;
      elsif tg_op = 'UPDATE' then
        insert into partner_stats as s (partner_id, shard, revenue)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, -(case when deleted_at is null then amount - refunded_amount else 0 end) as d from old_rows
                union all select partner_id as k, (case when deleted_at is null then amount - refunded_amount else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set revenue = s.revenue + excluded.revenue;
      else
        insert into partner_stats as s (partner_id, shard, revenue)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, -(case when deleted_at is null then amount - refunded_amount else 0 end) as d from old_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set revenue = s.revenue + excluded.revenue;
      end if;
      return null;
  end $$`,
  `create trigger partner_stats_transactions_revenue_insert after insert on transactions referencing new table as new_rows
     for each statement execute function svc_partner_stats_transactions_revenue()`,
  `create trigger partner_stats_transactions_revenue_update after update on transactions referencing old table as old_rows new table as new_rows
     for each statement execute function svc_partner_stats_transactions_revenue()`,
  `create trigger partner_stats_transactions_revenue_delete after delete on transactions referencing old table as old_rows
     for each statement execute function svc_partner_stats_transactions_revenue()`,
  `create function svc_partner_stats_commissions_commission() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into partner_stats as s (partner_id, shard, commission)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, (case when deleted_at is null and status not in ('rejected', 'refunded') then amount else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set commission = s.commission + excluded.commission;
      elsif tg_op = 'UPDATE' then
        insert into partner_stats as s (partner_id, shard, commission)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, -(case when deleted_at is null and status not in ('rejected', 'refunded') then amount else 0 end) as d from old_rows
                union all select partner_id as k, (case when deleted_at is null and status not in ('rejected', 'refunded') then amount else 0 end) as d from new_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set commission = s.commission + excluded.commission;
      else
        insert into partner_stats as s (partner_id, shard, commission)
        select k, pg_backend_pid() % 16, sum(d)::int8
          from (select partner_id as k, -(case when deleted_at is null and status not in ('rejected', 'refunded') then amount else 0 end) as d from old_rows) as deltas
        group by k having sum(d) <> 0 order by k
        on conflict (partner_id, shard) do update set commission = s.commission + excluded.commission;
      end if;
      return null;
  end $$`,
  `create trigger partner_stats_commissions_commission_insert after insert on commissions referencing new table as new_rows
     for each statement execute function svc_partner_stats_commissions_commission()`,
  `create trigger partner_stats_commissions_commission_update after update on commissions referencing old table as old_rows new table as new_rows
     for each statement execute function svc_partner_stats_commissions_commission()`,
  `create trigger partner_stats_commissions_commission_delete after delete on commissions referencing old table as old_rows
     for each statement execute function svc_partner_stats_commissions_commission()`,
];

const DROP_COUNTER_TRIGGERS = [
  'drop trigger if exists partner_stats_customers_customers_insert on customers',
  'drop trigger if exists partner_stats_customers_customers_update on customers',
  'drop trigger if exists partner_stats_customers_customers_delete on customers',
  'drop function if exists svc_partner_stats_customers_customers()',
  'drop trigger if exists partner_stats_transactions_revenue_insert on transactions',
  'drop trigger if exists partner_stats_transactions_revenue_update on transactions',
  'drop trigger if exists partner_stats_transactions_revenue_delete on transactions',
  'drop function if exists svc_partner_stats_transactions_revenue()',
  'drop trigger if exists partner_stats_commissions_commission_insert on commissions',
  'drop trigger if exists partner_stats_commissions_commission_update on commissions',
  'drop trigger if exists partner_stats_commissions_commission_delete on commissions',
  'drop function if exists svc_partner_stats_commissions_commission()',
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('click_id', 'text', (c) => c.references('clicks.id'))
    .addColumn('charge_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'int8', (c) => c.notNull())
    .addColumn('refunded_amount', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('billing_type', 'text', (c) => c.notNull())
    .addColumn('interval', 'text')
    .addColumn('product_id', 'text')
    .addColumn('product_name', 'text')
    .addColumn('source', 'text')
    .addColumn('refunded_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .addCheckConstraint('transactions_refund_within_amount', sql`refunded_amount between 0 and amount`)
    .execute();
  await db.schema.createIndex('transactions_program_created').on('transactions').columns(['program_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('transactions_customer_created').on('transactions').columns(['customer_id', 'created_at']).execute();
  await db.schema.createIndex('transactions_partner_created').on('transactions').columns(['partner_id', 'created_at']).execute();
  // A charge is recorded once per program; this index is what makes a simultaneous repeat a 409.
  await sql`create unique index transactions_program_charge on transactions (program_id, charge_id) where deleted_at is null and charge_id is not null`.execute(
    db,
  );

  await db.schema
    .createTable('commissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('customer_id', 'text', (c) => c.references('customers.id'))
    .addColumn('transaction_id', 'text', (c) => c.references('transactions.id'))
    .addColumn('flow_id', 'text', (c) => c.references('flows.id'))
    // The reward commission a refund entry offsets.
    .addColumn('refund_of', 'text', (c) => c.references('commissions.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // A refund entry that left the totals with its reward: the status it gets back with it.
    .addColumn('status_before_void', 'text')
    .addColumn('amount', 'int8', (c) => c.notNull())
    .addColumn('revenue', 'int8')
    .addColumn('currency', 'text')
    .addColumn('charge_id', 'text')
    .addColumn('charge_status', 'text')
    .addColumn('source', 'text')
    .addColumn('approval_type', 'text', (c) => c.notNull())
    .addColumn('scheduled_approval_date', ts)
    .addColumn('payout_id', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema.createIndex('commissions_program_created').on('commissions').columns(['program_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('commissions_transaction').on('commissions').column('transaction_id').execute();
  await db.schema.createIndex('commissions_customer').on('commissions').column('customer_id').execute();
  await db.schema.createIndex('commissions_partner_created').on('commissions').columns(['partner_id', 'created_at']).execute();
  await db.schema.createIndex('commissions_refund_of').on('commissions').column('refund_of').execute();
  // One commission per flow and transaction, whatever happens
  // (ingest/docs/commissions.md#commission-flows).
  await sql`create unique index commissions_transaction_flow on commissions (transaction_id, flow_id) where type = 'reward' and flow_id is not null and transaction_id is not null`.execute(
    db,
  );
  await sql`create index commissions_due_approval on commissions (scheduled_approval_date) where status = 'pending' and approval_type = 'scheduled' and deleted_at is null`.execute(
    db,
  );
  await sql`create index flows_program_trigger on flows (program_id, trigger) where deleted_at is null and active`.execute(db);

  await db.schema
    .createTable('partner_stats')
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('shard', 'int2', (c) => c.notNull())
    .addColumn('clicks', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('customers', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('revenue', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('commission', 'int8', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('partner_stats_pkey', ['partner_id', 'shard'])
    .execute();

  // Clicks arrive in volume (and later in multi-row batches): one statement-level trigger adds
  // each batch per partner, in partner order so concurrent batches lock rows in the same order.
  await sql`
    create function svc_count_clicks() returns trigger language plpgsql as $$
    begin
      insert into partner_stats as s (partner_id, shard, clicks)
      select partner_id, pg_backend_pid() % 16, count(*) from inserted_clicks group by partner_id order by partner_id
      on conflict (partner_id, shard) do update set clicks = s.clicks + excluded.clicks;
      return null;
    end $$`.execute(db);
  await sql`create trigger clicks_partner_stats after insert on clicks referencing new table as inserted_clicks
    for each statement execute function svc_count_clicks()`.execute(db);

  for (const statement of COUNTER_TRIGGERS) await sql.raw(statement).execute(db);

  // Counters for the clicks and customers recorded before this migration.
  await sql`
    insert into partner_stats (partner_id, shard, clicks, customers)
    select p.id, 0,
           (select count(*) from clicks k where k.partner_id = p.id),
           (select count(*) from customers c where c.partner_id = p.id and c.deleted_at is null and c.status <> 'lead')
      from partners p`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists clicks_partner_stats on clicks`.execute(db);
  for (const statement of DROP_COUNTER_TRIGGERS) await sql.raw(statement).execute(db);
  await db.schema.dropTable('partner_stats').execute();
  await db.schema.dropTable('commissions').execute();
  await db.schema.dropTable('transactions').execute();
  await sql`drop index if exists flows_program_trigger`.execute(db);
  await sql`drop function if exists svc_count_clicks()`.execute(db);
}
