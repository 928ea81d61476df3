import { type Kysely, sql } from 'kysely';

/**
 * Fraud and risk (ingest/docs/risk.md): rules flag suspicious referrals, and the money they
 * concern is held until the merchant decides.
 *
 * - `programs.risk_rules`: the program's choices of the rules' switches and thresholds, only
 *   those it changed (the defaults live in the service, resources/risk/risk-rules.ts), never in
 *   the program's API object. `programs.risk_salt`: the key of the program's visitor
 *   fingerprints (an HMAC of client address and User-Agent), random per program, so a
 *   fingerprint can be compared within its program and never turned back into an address.
 * - `clicks.visitor_hash`: the fingerprint of the browser that made a click through the script
 *   (null for clicks reported by a server, whose address is the merchant's); `clicks.ad_click_ids`:
 *   the names, never the values, of the ad click parameters its landing URL carried.
 * - `partners.payout_account`: the partner's payout account, normalised (an e-mail as one
 *   mailbox, a bank account by its letters and digits), so two live partners of a program paid
 *   into one account are found by an index.
 * - `partner_browsers`: the fingerprints a partner's portal sessions came from, so a customer who
 *   signs up from the partner's own browser is found.
 * - `risk_events`: one flag of a rule, with its partner, the records it concerns, its evidence
 *   (the fields that matched; fingerprints only hashed) and, once resolved, the decision. While
 *   an event is open it holds money (`holds`): the commissions of its customer, of the customers
 *   who came from its fingerprint, or all of its partner's. The hold is read in SQL wherever money
 *   moves (risk.repository.ts), never written on the commissions. `dedupe_key` makes a rule flag
 *   the same thing once. Created and resolved events are events of their own
 *   (`risk_event.created`, `risk_event.resolved`), by the trigger below.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Tables are altered children first, programs last: a running process's insert into clicks
  // holds its row lock there and then checks its program (a foreign key), so a migration that
  // locked programs first and clicks second would meet it in the opposite order.
  await db.schema.alterTable('clicks').addColumn('visitor_hash', 'text').execute();
  await db.schema.alterTable('clicks').addColumn('ad_click_ids', sql`text[]`).execute();

  await db.schema.alterTable('partners').addColumn('payout_account', 'text').execute();
  await sql`create index if not exists partners_payout_account on partners (program_id, payout_account)
              where deleted_at is null and payout_account is not null`.execute(db);

  await db.schema
    .createTable('partner_browsers')
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('visitor_hash', 'text', (c) => c.notNull())
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('last_seen_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addPrimaryKeyConstraint('partner_browsers_pkey', ['partner_id', 'visitor_hash'])
    .execute();
  await db.schema.createIndex('partner_browsers_program_hash').on('partner_browsers').columns(['program_id', 'visitor_hash']).execute();

  await db.schema
    .createTable('risk_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('holds', 'text', (c) => c.notNull())
    .addColumn('click_id', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('other_partner_id', 'text')
    .addColumn('visitor_hash', 'text')
    .addColumn('evidence', 'jsonb', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('resolution', 'text')
    .addColumn('resolution_reason', 'text')
    .addColumn('resolved_at', sql`timestamptz(3)`)
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addCheckConstraint('risk_events_status', sql`status in ('open', 'resolved')`)
    .addCheckConstraint(
      'risk_events_holds',
      sql`(holds = 'customer' and customer_id is not null) or (holds = 'visitor' and visitor_hash is not null) or holds = 'partner'`,
    )
    .addCheckConstraint(
      'risk_events_resolution',
      sql`(status = 'open' and resolution is null and resolved_at is null)
       or (status = 'resolved' and resolution in ('dismiss', 'reject_commissions', 'ban_partner') and resolved_at is not null)`,
    )
    .execute();
  await sql`create unique index risk_events_dedupe on risk_events (program_id, dedupe_key)`.execute(db);
  // What holds money: a partner's open events, read wherever money moves.
  await sql`create index risk_events_open_partner on risk_events (partner_id) where status = 'open'`.execute(db);
  // The dashboard's count of a program's open events, on every page.
  await sql`create index risk_events_open_program on risk_events (program_id) where status = 'open'`.execute(db);
  await db.schema
    .createIndex('risk_events_organization_created')
    .on('risk_events')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  // The windowed rules' job: how far each program's clicks have been checked.
  await db.schema
    .createTable('risk_checks')
    .addColumn('program_id', 'text', (c) => c.primaryKey().references('programs.id'))
    .addColumn('clicks_checked_until', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('programs')
    .addColumn('risk_rules', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  // A volatile default is evaluated for each existing row: every program gets its own salt.
  await db.schema
    .alterTable('programs')
    .addColumn('risk_salt', 'text', (c) =>
      c.notNull().defaultTo(sql`encode(sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())), 'hex')`),
    )
    .execute();

  // risk_event.created when a row is inserted, risk_event.resolved when its status becomes
  // resolved; no other change is an event. The snapshot is serialized by the service
  // (resources/events/event-types.ts), as every event's.
  await sql`create function svc_emit_risk_events() returns trigger language plpgsql set timezone = 'UTC' as $$
     begin
       if tg_op = 'INSERT' then
         insert into events (id, organization_id, program_id, type, object_id, snapshot, created_at, dispatched_at)
         select svc_random_id('evt'), n.organization_id, n.program_id, 'risk_event.created', n.id, to_jsonb(n), clock_timestamp(),
                svc_nobody_listens(n.organization_id)
           from new_rows n;
       else
         insert into events (id, organization_id, program_id, type, object_id, snapshot, previous_snapshot, created_at, dispatched_at)
         select svc_random_id('evt'), n.organization_id, n.program_id, 'risk_event.resolved', n.id, to_jsonb(n), to_jsonb(o),
                clock_timestamp(), svc_nobody_listens(n.organization_id)
           from new_rows n join old_rows o on o.id = n.id
          where o.status = 'open' and n.status = 'resolved';
       end if;
       return null;
     end $$`.execute(db);
  await sql`create trigger risk_events_events_insert after insert on risk_events referencing new table as new_rows
              for each statement execute function svc_emit_risk_events()`.execute(db);
  await sql`create trigger risk_events_events_update after update on risk_events referencing old table as old_rows new table as new_rows
              for each statement execute function svc_emit_risk_events()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('risk_checks').ifExists().execute();
  await db.schema.dropTable('risk_events').ifExists().execute();
  await sql`drop function if exists svc_emit_risk_events()`.execute(db);
  await db.schema.dropTable('partner_browsers').ifExists().execute();
  await sql`drop index if exists partners_payout_account`.execute(db);
  await db.schema.alterTable('partners').dropColumn('payout_account').execute();
  await db.schema.alterTable('clicks').dropColumn('ad_click_ids').execute();
  await db.schema.alterTable('clicks').dropColumn('visitor_hash').execute();
  await db.schema.alterTable('programs').dropColumn('risk_salt').execute();
  await db.schema.alterTable('programs').dropColumn('risk_rules').execute();
}
