import { sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CommissionRow, CustomerRow, Database, NewCommission } from '../../db/schema.js';
import { isHeld } from '../risk/risk.repository.js';
import type { CommissionStatus } from './commissions.schema.js';
import { type EngineFlow, factsRead } from './engine.js';
import { FOLLOWING_STATUSES } from './refund-plan.js';

export type CommissionChanges = Updateable<Database['commissions']>;

export function selectCommissions(db: Db, organizationId: string) {
  return db.selectFrom('commissions').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export interface CommissionListFilters {
  programId: string;
  partnerId?: string;
  customerId?: string;
  transactionId?: string;
  status?: string;
}

/** The live commissions of a program with the list filters applied, for `paginate`. */
export function selectCommissionList(db: Db, organizationId: string, filters: CommissionListFilters) {
  let query = selectCommissions(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.partnerId) query = query.where('partner_id', '=', filters.partnerId);
  if (filters.customerId) query = query.where('customer_id', '=', filters.customerId);
  if (filters.transactionId) query = query.where('transaction_id', '=', filters.transactionId);
  if (filters.status) query = query.where('status', '=', filters.status);
  return query;
}

export function findCommission(db: Db, organizationId: string, id: string): Promise<CommissionRow | undefined> {
  return selectCommissions(db, organizationId).where('id', '=', id).executeTakeFirst();
}

/**
 * The caller's live commission (undefined when there is none), locked for the rest of the SQL transaction together with
 * its refund entries, which change with it. The commission is locked first, as
 * lockTransactionCommissions does (a reward is older than its entries).
 */
export async function lockCommission(db: Db, organizationId: string, id: string): Promise<CommissionRow | undefined> {
  const commission = await selectCommissions(db, organizationId).where('id', '=', id).forUpdate().executeTakeFirst();
  if (!commission) return undefined;
  await db
    .selectFrom('commissions')
    .select('id')
    .where('refund_of', '=', commission.id)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
  return commission;
}

/**
 * The live commissions of a transaction, locked for the rest of the SQL transaction. Take these
 * locks before changing the transaction row: its stats trigger locks the partner's counters, and
 * a commission update locks the commission first and the counters second, so any other order
 * can deadlock.
 */
export function lockTransactionCommissions(db: Db, transactionId: string): Promise<CommissionRow[]> {
  return db
    .selectFrom('commissions')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function insertCommissions(db: Db, rows: NewCommission[]): Promise<CommissionRow[]> {
  return db.insertInto('commissions').values(rows).returningAll().execute();
}

/** Changes a commission the caller has locked (rows are never removed, so it is there). */
export function updateCommissionRow(db: Db, id: string, changes: CommissionChanges): Promise<CommissionRow> {
  return db.updateTable('commissions').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Soft delete: the row stays, out of the lists and the totals. */
export async function softDeleteCommission(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('commissions').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
}

/** A transaction's new charge_id replaces its old one on the commissions that carried it, inside the caller's SQL transaction. */
export async function replaceChargeId(db: Db, transactionId: string, from: string | null, to: string | null): Promise<void> {
  let query = db
    .updateTable('commissions')
    .set({ charge_id: to, updated_at: new Date() })
    .where('transaction_id', '=', transactionId)
    .where('deleted_at', 'is', null);
  query = from === null ? query.where('charge_id', 'is', null) : query.where('charge_id', '=', from);
  await query.execute();
}

/** The charge's status, copied onto these commissions (ids not empty). */
export async function setCommissionsChargeStatus(db: Db, ids: string[], chargeStatus: string, now: Date): Promise<void> {
  await db.updateTable('commissions').set({ charge_status: chargeStatus, updated_at: now }).where('id', 'in', ids).execute();
}

/** These commissions (ids not empty) take `status`. */
export async function setCommissionsStatus(db: Db, ids: string[], status: CommissionStatus, now: Date): Promise<void> {
  await db.updateTable('commissions').set({ status, updated_at: now }).where('id', 'in', ids).execute();
}

/** Refund entries are commission rows too: a copy of their reward with the entry's amount. */
export async function insertRefundEntries(db: Db, rows: NewCommission[]): Promise<void> {
  await db.insertInto('commissions').values(rows).execute();
}

/** The live refund entries of these rewards (ids not empty), as an update to narrow and set. */
function refundEntriesOf(db: Db, rewardIds: string[]) {
  return db.updateTable('commissions').where('type', '=', 'refund').where('refund_of', 'in', rewardIds).where('deleted_at', 'is', null);
}

/** The live refund entries that left the totals with their reward and remember their status. */
function followersOf(db: Db, rewardIds: string[]) {
  return refundEntriesOf(db, rewardIds).where('status_before_void', 'is not', null);
}

/** Deleted rewards take their refund entries that are not paid with them. */
export async function deleteUnpaidRefundEntries(db: Db, rewardIds: string[], now: Date): Promise<void> {
  await refundEntriesOf(db, rewardIds).where('status', '<>', 'paid').set({ deleted_at: now, updated_at: now }).execute();
}

/** Rewards leaving the totals take their unpaid entries (FOLLOWING_STATUSES) along, which remember their status. */
export async function voidRefundEntries(db: Db, rewardIds: string[], status: CommissionStatus, now: Date): Promise<void> {
  await refundEntriesOf(db, rewardIds)
    .where('status', 'in', FOLLOWING_STATUSES)
    .set((eb) => ({ status, status_before_void: eb.ref('status'), updated_at: now }))
    .execute();
}

/** Rewards going from one void status to the other: the entries that followed them go along. */
export async function moveVoidedRefundEntries(db: Db, rewardIds: string[], status: CommissionStatus, now: Date): Promise<void> {
  // A reason given to an entry while it was rejected goes when it leaves that status.
  const reason = status === 'rejected' ? {} : { rejection_reason: null };
  await followersOf(db, rewardIds)
    .set({ status, ...reason, updated_at: now })
    .execute();
}

/** Rewards counting again: the entries that followed them out get their status back. */
export async function restoreRefundEntries(db: Db, rewardIds: string[], now: Date): Promise<void> {
  await followersOf(db, rewardIds)
    .set({ status: sql<string>`status_before_void`, status_before_void: null, rejection_reason: null, updated_at: now })
    .execute();
}

/**
 * Approves up to `limit` scheduled commissions due at `now`, and answers which; a commission an
 * open risk event holds waits (ingest/docs/risk.md#held-money). Safe on any
 * number of processes at once: the batch is claimed with `FOR UPDATE SKIP LOCKED` and the update
 * re-checks `pending`, so a commission is approved exactly once. The claim is a materialized CTE
 * so it runs once, before the update, whatever plan the planner picks.
 */
export async function approveDueBatch(db: Db, now: Date, limit: number): Promise<Pick<CommissionRow, 'id' | 'program_id' | 'type'>[]> {
  const { rows } = await sql<Pick<CommissionRow, 'id' | 'program_id' | 'type'>>`
      with due as materialized (
        select id from commissions
         where status = 'pending' and approval_type = 'scheduled' and deleted_at is null
           and scheduled_approval_date <= ${now} and not ${isHeld('commissions', 'every program')}
         order by scheduled_approval_date
         limit ${limit}
         for update skip locked)
      update commissions c set status = 'approved', updated_at = now()
        from due
       where c.id = due.id and c.status = 'pending'
      returning c.id, c.program_id, c.type`.execute(db);
  return rows;
}

/** A customer with what every flow may ask about them and their partner, read in one query. */
export interface Earner {
  customer: CustomerRow;
  partner: { status: string; deleted: boolean; group_id: string; country_code: string | null };
  /** The program's currency. */
  currency: string;
}

/** What some flows ask besides, each costing a query: see `factsRead`. */
export interface CountedFacts {
  /** The customer's live transactions, not counting one being recorded now. */
  transactionCount?: number;
  partnerCustomers?: number;
}

/** The live customer of the organization with its partner and program facts; `lock` holds the customer row until the SQL transaction ends. */
export async function findEarner(db: Db, organizationId: string, customerId: string, { lock = false } = {}): Promise<Earner | undefined> {
  let query = db
    .selectFrom('customers as c')
    .innerJoin('partners as p', 'p.id', 'c.partner_id')
    .innerJoin('programs as pr', 'pr.id', 'c.program_id')
    .selectAll('c')
    .select([
      'p.status as partner_status',
      'p.deleted_at as partner_deleted_at',
      'p.group_id as partner_group_id',
      'p.country_code as partner_country_code',
      'pr.currency_code',
    ])
    .where('c.id', '=', customerId)
    .where('c.organization_id', '=', organizationId)
    .where('c.deleted_at', 'is', null);
  if (lock) query = query.forUpdate('c');
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const { partner_status, partner_deleted_at, partner_group_id, partner_country_code, currency_code, ...customer } = row;
  return {
    customer,
    partner: {
      status: partner_status,
      deleted: partner_deleted_at !== null,
      group_id: partner_group_id,
      country_code: partner_country_code,
    },
    currency: currency_code,
  };
}

/**
 * The counts these flows read, and only those (no query when they read none). Under the
 * customer's lock (a statement after the one that took it, so that it sees payments committed
 * while it waited) the transaction count is exact.
 */
export async function loadCountedFacts(db: Db, earner: Earner, flows: EngineFlow[]): Promise<CountedFacts> {
  const reads = factsRead(flows);
  if (!reads.transactionCount && !reads.partnerCustomers) return {};
  const { customer } = earner;
  const row = await db
    .selectNoFrom([
      reads.transactionCount
        ? sql<number>`(select count(*) from transactions t where t.customer_id = ${customer.id} and t.deleted_at is null)::int`.as(
            'transaction_count',
          )
        : sql<null>`null`.as('transaction_count'),
      reads.partnerCustomers
        ? sql<number>`(select coalesce(sum(s.customers), 0) from partner_stats s where s.partner_id = ${customer.partner_id})::int`.as(
            'partner_customers',
          )
        : sql<null>`null`.as('partner_customers'),
    ])
    .executeTakeFirstOrThrow();
  return { transactionCount: row.transaction_count ?? undefined, partnerCustomers: row.partner_customers ?? undefined };
}
