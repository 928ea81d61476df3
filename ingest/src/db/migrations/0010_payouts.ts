import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

/**
 * Payouts (ingest/docs/payouts.md): a payout pays a partner the approved commissions it groups, in
 * one currency. While it is unpaid, `payout_commissions` holds a row per commission in it (the
 * Partnership Program API's `payout_id` stays null until they are paid; then it carries the
 * payout's id and the rows go); its primary key makes a commission part of at most one unpaid
 * payout. Kept apart from the commissions so that grouping a million of them writes a million
 * narrow rows instead of rewriting a million commissions (and running their triggers). A program
 * sets the least a payout may be (`minimum_payout`), a group may set its own.
 *
 * Payouts are events too, by a trigger of their own: `payout.paid`, `payout.failed` and
 * `payout.canceled` name the status they reach, any other change is `payout.updated`.
 */
const STATEMENTS = [
  `create function svc_emit_payout_events() returns trigger language plpgsql set timezone = 'UTC' as $$
     begin
       if tg_op = 'INSERT' then
         insert into events (id, organization_id, program_id, type, object_id, snapshot, created_at, dispatched_at)
         select svc_random_id('evt'), n.organization_id, n.program_id, 'payout.created', n.id, to_jsonb(n), clock_timestamp(),
                svc_nobody_listens(n.organization_id)
           from new_rows n;
       else
         insert into events (id, organization_id, program_id, type, object_id, snapshot, previous_snapshot, created_at, dispatched_at)
         select svc_random_id('evt'), n.organization_id, n.program_id,
                case when n.status <> o.status and n.status in ('paid', 'failed', 'canceled') then 'payout.' || n.status else 'payout.updated' end,
                n.id, to_jsonb(n), to_jsonb(o), clock_timestamp(), svc_nobody_listens(n.organization_id)
           from new_rows n join old_rows o on o.id = n.id
          where (to_jsonb(n) - 'updated_at') is distinct from (to_jsonb(o) - 'updated_at');
       end if;
       return null;
     end $$`,
  `create trigger payouts_events_insert after insert on payouts referencing new table as new_rows
     for each statement execute function svc_emit_payout_events()`,
  `create trigger payouts_events_update after update on payouts referencing old table as old_rows new table as new_rows
     for each statement execute function svc_emit_payout_events()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('programs')
    .addColumn('minimum_payout', 'int8', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('groups').addColumn('minimum_payout', 'int8').execute();

  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'int8', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('payout_method', 'text', (c) => c.notNull())
    .addColumn('payout_details', 'jsonb', (c) => c.notNull())
    .addColumn('commission_count', 'integer', (c) => c.notNull())
    .addColumn('period_start', ts, (c) => c.notNull())
    .addColumn('period_end', ts, (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('reason', 'text')
    .addColumn('paid_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addCheckConstraint('payouts_status', sql`status in ('pending', 'processing', 'paid', 'failed', 'canceled')`)
    .addCheckConstraint('payouts_paid_at', sql`(status = 'paid') = (paid_at is not null)`)
    .execute();
  await db.schema.createIndex('payouts_program_created').on('payouts').columns(['program_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('payouts_partner_created').on('payouts').columns(['partner_id', 'created_at']).execute();

  // No foreign keys: the rows are written only by a generation, from the commissions and the
  // payouts of its own statement, and a check per row would be most of the cost of a large one.
  await db.schema
    .createTable('payout_commissions')
    .addColumn('commission_id', 'text', (c) => c.primaryKey())
    .addColumn('payout_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payout_commissions_payout').on('payout_commissions').column('payout_id').execute();
  // What a payout generation reads: a program's approved commissions, by partner.
  await sql`create index commissions_payable on commissions (program_id, partner_id) where status = 'approved' and deleted_at is null`.execute(
    db,
  );
  // A paid commission's payout, for a payout's commissions once it is paid.
  await sql`create index commissions_payout on commissions (payout_id) where payout_id is not null`.execute(db);

  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index commissions_payout`.execute(db);
  await sql`drop index commissions_payable`.execute(db);
  await db.schema.dropTable('payout_commissions').execute();
  await db.schema.dropTable('payouts').execute();
  await sql`drop function svc_emit_payout_events()`.execute(db);
  await db.schema.alterTable('groups').dropColumn('minimum_payout').execute();
  await db.schema.alterTable('programs').dropColumn('minimum_payout').execute();
}
