import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

/**
 * Events out (ingest/docs/webhooks.md).
 *
 * `events` is an outbox: database triggers on the tables behind the API's objects write one row
 * per created, changed or soft-deleted record, in the statement that changes it, so an event
 * exists exactly when its change committed, whatever code path made the change (the one-statement
 * payment, the approval job's batches, a Stripe event, a refund). A row holds the record as it
 * was after the change (`snapshot`, and `previous_snapshot` before it); the service turns both
 * into the API object with the resource's own serializer when the event is read or sent.
 * A change of nothing but `updated_at` or columns the API never shows is no event; a change to a
 * record already deleted is none either.
 *
 * `webhook_endpoints` are the merchant's receivers; `webhook_deliveries` one event sent to one
 * endpoint, with its attempts. New events are fanned out to the endpoints that want them by the
 * delivery worker (`dispatched_at` marks an event done), which claims rows with SKIP LOCKED; an
 * event of an organization that has no endpoint is born done. An endpoint therefore receives
 * the events of changes made after it was created.
 */
const STATEMENTS = [
  // A random id of the service's shape (prefix, "_", 24 base62 characters), made in SQL for the
  // rows that triggers and set-based statements insert: 32 random bytes in base64, less "+" and "/".
  `create function svc_random_id(prefix text) returns text language sql volatile as $$
     select prefix || '_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'base64'), '+/=', ''), 24)
   $$`,

  `create table events (
     id text primary key,
     seq bigint generated always as identity,
     organization_id text not null,
     program_id text,
     type text not null,
     object_id text,
     snapshot jsonb not null,
     previous_snapshot jsonb,
     created_at timestamptz(3) not null,
     dispatched_at timestamptz(3)
   )`,
  'create index events_organization_created on events (organization_id, created_at, id)',
  'create index events_undispatched on events (seq) where dispatched_at is null',
  'create index events_created on events (created_at)',

  // An event of an organization without a live webhook endpoint is born dispatched: there is
  // nothing to fan it out to, and the fan-out's update of every event would double its writes.
  `create function svc_nobody_listens(organization text) returns timestamptz language sql as $$
     select case when exists (select 1 from webhook_endpoints e where e.organization_id = organization and e.deleted_at is null)
                 then null else clock_timestamp() end
   $$`,

  // tg_argv[0] is the resource's name (the event type's first part); the rest are the columns
  // whose change alone is no event. A transaction whose refunded amount grew is "refunded"
  // (read through jsonb, so the function serves tables without that column too). Snapshots are
  // written in UTC whatever the session's time zone: to_jsonb writes a timestamp with the
  // session's offset, which for old dates can be a local mean time (+00:19:32) that no
  // JavaScript Date reads.
  `create function svc_emit_events() returns trigger language plpgsql set timezone = 'UTC' as $$
     declare
       resource constant text := tg_argv[0];
       quiet constant text[] := tg_argv[1:];
     begin
       if tg_op = 'INSERT' then
         insert into events (id, organization_id, program_id, type, object_id, snapshot, created_at, dispatched_at)
         select svc_random_id('evt'), n.organization_id, n.program_id, resource || '.created', n.id, to_jsonb(n), clock_timestamp(),
                svc_nobody_listens(n.organization_id)
           from new_rows n;
       else
         insert into events (id, organization_id, program_id, type, object_id, snapshot, previous_snapshot, created_at, dispatched_at)
         select svc_random_id('evt'), n.organization_id, n.program_id,
                resource || case
                  when n.deleted_at is not null then '.deleted'
                  when (to_jsonb(n) ->> 'refunded_amount')::numeric > (to_jsonb(o) ->> 'refunded_amount')::numeric then '.refunded'
                  else '.updated' end,
                n.id, to_jsonb(n), to_jsonb(o), clock_timestamp(), svc_nobody_listens(n.organization_id)
           from new_rows n join old_rows o on o.id = n.id
          where o.deleted_at is null and (to_jsonb(n) - quiet) is distinct from (to_jsonb(o) - quiet);
       end if;
       return null;
     end $$`,
  ...eventTriggers('partners', 'partner', ['updated_at']),
  ...eventTriggers('links', 'link', ['updated_at']),
  ...eventTriggers('customers', 'customer', ['updated_at']),
  ...eventTriggers('transactions', 'transaction', ['updated_at']),
  ...eventTriggers('commissions', 'commission', ['updated_at', 'refund_of', 'status_before_void']),
];

function eventTriggers(table: string, resource: string, quiet: string[]): string[] {
  const args = [resource, ...quiet].map((a) => `'${a}'`).join(', ');
  return [
    `create trigger ${table}_events_insert after insert on ${table} referencing new table as new_rows
       for each statement execute function svc_emit_events(${args})`,
    `create trigger ${table}_events_update after update on ${table} referencing old table as old_rows new table as new_rows
       for each statement execute function svc_emit_events(${args})`,
  ];
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.references('programs.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('event_types', sql`text[]`, (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', ts)
    .addColumn('failing_since', ts)
    .addColumn('disabled_at', ts)
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_organization_created')
    .on('webhook_endpoints')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', ts)
    .addColumn('attempts', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addCheckConstraint('webhook_deliveries_status', sql`status in ('pending', 'succeeded', 'failed')`)
    .addCheckConstraint('webhook_deliveries_next', sql`(status = 'pending') = (next_attempt_at is not null)`)
    .execute();
  // What is due, per endpoint, in the order the worker sends it.
  await sql`create index webhook_deliveries_due on webhook_deliveries (endpoint_id, next_attempt_at, seq) where status = 'pending'`.execute(
    db,
  );
  await db.schema
    .createIndex('webhook_deliveries_endpoint_created')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').column('created_at').execute();

  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  for (const table of ['partners', 'links', 'customers', 'transactions', 'commissions']) {
    await sql.raw(`drop trigger ${table}_events_insert on ${table}`).execute(db);
    await sql.raw(`drop trigger ${table}_events_update on ${table}`).execute(db);
  }
  await sql`drop function svc_emit_events()`.execute(db);
  await sql`drop function svc_nobody_listens(text)`.execute(db);
  await db.schema.dropTable('events').execute();
  await sql`drop function svc_random_id(text)`.execute(db);
}
