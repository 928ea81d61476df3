import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;
const now = sql`now()`;

/**
 * The merchant dashboard (ingest/docs/dashboard.md): its users, their sign-in sessions, and the
 * daily figures of every program that its overview and `GET /v1/programs/:id/stats` read.
 *
 * `daily_stats` holds, per program, partner, UTC day and currency, the clicks, leads (customers
 * by the day they were created), customers (past the lead stage, as partner_stats counts them,
 * by the day of their first payment, else of their creation), revenue
 * (transactions net of refunds, by the day of the payment) and commissions (not rejected or
 * refunded, by the day they were earned). Counts carry the currency '' and money its own. Kept
 * by statement-level triggers in the changing SQL transaction, built like partner_stats (0004):
 * a row's old figure is taken from its day and its new one added (a refund, a deletion or a
 * moved payment corrects the day it belongs to), rows are written in key order (no deadlocks
 * between statements) and to the shard of the connection's backend (concurrent writers of one
 * partner and day do not queue on one row). A period is then a range read of one program's
 * rows, whatever the number of clicks behind them.
 */
const SHARD = 'pg_backend_pid() % 16';
const utcDay = (column: string) => `(${column} at time zone 'UTC')::date`;

interface Rollup {
  table: string;
  column: string;
  /** The day a row counts on, and its figure (0: counts nowhere). */
  day: string;
  value: string;
  currency: string;
}

const ROLLUPS: Rollup[] = [
  // Clicks are inserted in multi-row batches; only the browser tests' hook moves one in time.
  { table: 'clicks', column: 'clicks', day: utcDay('created_at'), value: '1', currency: "''" },
  {
    table: 'customers',
    column: 'leads',
    day: utcDay('created_at'),
    value: 'case when deleted_at is null then 1 else 0 end',
    currency: "''",
  },
  {
    table: 'customers',
    column: 'customers',
    day: utcDay('coalesce(active_at, created_at)'),
    value: "case when deleted_at is null and status <> 'lead' then 1 else 0 end",
    currency: "''",
  },
  {
    table: 'transactions',
    column: 'revenue',
    day: utcDay('created_at'),
    value: 'case when deleted_at is null then amount - refunded_amount else 0 end',
    currency: 'currency',
  },
  {
    table: 'commissions',
    column: 'commission',
    day: utcDay('created_at'),
    value: "case when deleted_at is null and status not in ('rejected', 'refunded') then amount else 0 end",
    // A commission may carry no currency of its own (one made by hand): its program's then, as the API shows it.
    currency: 'coalesce(currency, (select p.currency_code from programs p where p.id = program_id))',
  },
];

// The key's order is the order rows are locked in, and a program's period is a range of it.
const KEY = 'program_id, day, partner_id, currency';

/** One statement adding the deltas of `source` (old rows negated, new rows added) to the rollup. */
function addDeltas(r: Rollup, source: string): string {
  return `insert into daily_stats as s (${KEY}, shard, ${r.column})
      select ${KEY}, ${SHARD}, sum(d)::int8
        from (${source}) as deltas
       group by ${KEY} having sum(d) <> 0
       order by ${KEY}
      on conflict (${KEY}, shard) do update set ${r.column} = s.${r.column} + excluded.${r.column}`;
}

function rollupStatements(r: Rollup): string[] {
  const name = `svc_daily_stats_${r.table}_${r.column}`;
  const rows = (table: string, sign: string) =>
    `select program_id, partner_id, ${r.day} as day, ${r.currency} as currency, ${sign}(${r.value}) as d from ${table}`;
  return [
    `create function ${name}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${addDeltas(r, rows('new_rows', ''))};
        elsif tg_op = 'UPDATE' then
          ${addDeltas(r, `${rows('old_rows', '-')} union all ${rows('new_rows', '')}`)};
        else
          ${addDeltas(r, rows('old_rows', '-'))};
        end if;
        return null;
      end $$`,
    `create trigger ${name}_insert after insert on ${r.table} referencing new table as new_rows
       for each statement execute function ${name}()`,
    `create trigger ${name}_update after update on ${r.table} referencing old table as old_rows new table as new_rows
       for each statement execute function ${name}()`,
    `create trigger ${name}_delete after delete on ${r.table} referencing old table as old_rows
       for each statement execute function ${name}()`,
  ];
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'member')`))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  // One sign-in name across the whole service: the e-mail alone says which organization.
  await sql`create unique index users_email on users (lower(email)) where deleted_at is null`.execute(db);
  await db.schema.createIndex('users_organization').on('users').columns(['organization_id', 'created_at']).execute();

  await db.schema
    .createTable('sessions')
    // The SHA-256 of the cookie's token: a copy of the table opens no session.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
  await db.schema.createIndex('sessions_expires').on('sessions').columns(['expires_at']).execute();

  await db.schema
    .createTable('daily_stats')
    .addColumn('program_id', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('shard', 'int2', (c) => c.notNull())
    .addColumn('clicks', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('leads', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('customers', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('revenue', 'int8', (c) => c.notNull().defaultTo(0))
    .addColumn('commission', 'int8', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('daily_stats_pkey', ['program_id', 'day', 'partner_id', 'currency', 'shard'])
    .execute();

  for (const statement of ROLLUPS.flatMap(rollupStatements)) await sql.raw(statement).execute(db);

  // The figures of everything recorded before this migration, in shard 0.
  for (const r of ROLLUPS) {
    await sql
      .raw(
        addDeltas(
          r,
          `select program_id, partner_id, ${r.day} as day, ${r.currency} as currency, (${r.value}) as d from ${r.table}`,
        ).replace(SHARD, '0'),
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const r of ROLLUPS) {
    const name = `svc_daily_stats_${r.table}_${r.column}`;
    for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${name}_${op} on ${r.table}`).execute(db);
    await sql.raw(`drop function if exists ${name}()`).execute(db);
  }
  await db.schema.dropTable('daily_stats').ifExists().execute();
  await db.schema.dropTable('sessions').ifExists().execute();
  await db.schema.dropTable('users').ifExists().execute();
}
