import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

/**
 * Payouts (README, "Payouts"): a payout pays a partner the approved commissions it groups, in one
 * currency. While it is unpaid its commissions point at it through `attached_payout_id` (the
 * spec's `payout_id` stays null until they are paid, then carries the payout's id and
 * `attached_payout_id` is cleared), so a commission is in at most one unpaid payout. A program
 * sets the least a payout may be (`minimum_payout`), a group may set its own.
 *
 * Payouts are events too, by a trigger of their own: `payout.paid`, `payout.failed` and
 * `payout.canceled` name the status they reach, any other change is `payout.updated`. The
 * commissions' update trigger of migration 0009 is made again with `attached_payout_id` among
 * the columns whose change alone is no event: attaching a commission to a payout changes nothing
 * the API shows of it.
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
  'drop trigger commissions_events_update on commissions',
  `create trigger commissions_events_update after update on commissions referencing old table as old_rows new table as new_rows
     for each statement execute function svc_emit_events('commission', 'updated_at', 'refund_of', 'status_before_void', 'attached_payout_id')`,
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

  await db.schema
    .alterTable('commissions')
    .addColumn('attached_payout_id', 'text', (c) => c.references('payouts.id'))
    .execute();
  await sql`create index commissions_attached_payout on commissions (attached_payout_id) where attached_payout_id is not null`.execute(db);
  // What a payout generation reads: a program's approved commissions in no payout, by partner.
  await sql`create index commissions_payable on commissions (program_id, partner_id) where status = 'approved' and deleted_at is null and attached_payout_id is null`.execute(
    db,
  );
  // A paid commission's payout, for a payout's commissions once it is paid.
  await sql`create index commissions_payout on commissions (payout_id) where payout_id is not null`.execute(db);

  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger commissions_events_update on commissions`.execute(db);
  await sql`create trigger commissions_events_update after update on commissions referencing old table as old_rows new table as new_rows
     for each statement execute function svc_emit_events('commission', 'updated_at', 'refund_of', 'status_before_void')`.execute(db);
  await db.schema.alterTable('commissions').dropColumn('attached_payout_id').execute();
  await db.schema.dropTable('payouts').execute();
  await sql`drop function svc_emit_payout_events()`.execute(db);
  await db.schema.alterTable('groups').dropColumn('minimum_payout').execute();
  await db.schema.alterTable('programs').dropColumn('minimum_payout').execute();
}
