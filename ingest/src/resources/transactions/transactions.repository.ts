import { sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CommissionRow, Database, NewCommission, NewTransaction, TransactionRow } from '../../db/schema.js';

export type TransactionChanges = Updateable<Database['transactions']>;

export function selectTransactions(db: Db, organizationId: string) {
  return db.selectFrom('transactions').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export interface TransactionListFilters {
  programId: string;
  partnerId?: string;
  customerId?: string;
  chargeId?: string;
}

/** The live transactions of a program with the list filters applied, for `paginate`. */
export function selectTransactionList(db: Db, organizationId: string, filters: TransactionListFilters) {
  let query = selectTransactions(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.partnerId) query = query.where('partner_id', '=', filters.partnerId);
  if (filters.customerId) query = query.where('customer_id', '=', filters.customerId);
  if (filters.chargeId) query = query.where('charge_id', '=', filters.chargeId);
  return query;
}

/** The caller's live transaction; `forUpdate` locks it for the rest of the SQL transaction. */
export function findTransaction(db: Db, organizationId: string, id: string, forUpdate = false): Promise<TransactionRow | undefined> {
  const query = selectTransactions(db, organizationId).where('id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export function findTransactionByCharge(db: Db, programId: string, chargeId: string): Promise<TransactionRow | undefined> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('program_id', '=', programId)
    .where('charge_id', '=', chargeId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The program's live transaction with one of these ids, or recorded under one of these
 * charge ids (a billing provider's payment known by several ids), in one statement.
 */
export function findTransactionOfCharges(
  db: Db,
  programId: string,
  keys: { ids: string[]; chargeIds: string[] },
): Promise<TransactionRow | undefined> {
  if (keys.ids.length === 0 && keys.chargeIds.length === 0) return Promise.resolve(undefined);
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('program_id', '=', programId)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(keys.ids.length ? [eb('id', 'in', keys.ids)] : []),
        ...(keys.chargeIds.length ? [eb('charge_id', 'in', keys.chargeIds)] : []),
      ]),
    )
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Records a payment in one statement: the transaction, its commissions and, with `activate`
 * (the customer was read as a lead or trialing), the customer becoming active; the update checks
 * the status again, so a customer changed meanwhile is left as it is. One statement is atomic on its own and
 * costs one round trip.
 */
export async function writePayment(
  db: Db,
  transaction: NewTransaction,
  commissions: NewCommission[],
  activate: boolean,
): Promise<TransactionRow> {
  const parts = [sql`t as (${db.insertInto('transactions').values(transaction).returningAll()})`];
  if (commissions.length) parts.push(sql`c as (${db.insertInto('commissions').values(commissions)})`);
  if (activate) {
    const update = db
      .updateTable('customers')
      .set({ status: 'active', active_at: sql`coalesce(active_at, ${transaction.created_at})`, updated_at: transaction.updated_at })
      .where('id', '=', transaction.customer_id)
      .where('status', 'in', ['lead', 'trialing'])
      .where('deleted_at', 'is', null);
    parts.push(sql`a as (${update})`);
  }
  const { rows } = await sql<TransactionRow>`with ${sql.join(parts)} select * from t`.execute(db);
  return rows[0];
}

/** Changes a transaction the caller has locked (rows are never removed, so it is there). */
export function updateTransactionRow(db: Db, id: string, changes: TransactionChanges): Promise<TransactionRow> {
  return db.updateTable('transactions').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Soft delete: the row stays, out of the lists and the totals, its charge_id free again. */
export async function softDeleteTransaction(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('transactions').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
}

/** When each of these customers first paid: their earliest live transaction, by customer id (customers without one are absent). */
export async function firstPaymentDates(db: Db, organizationId: string, customerIds: string[]): Promise<Map<string, Date>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('transactions')
    .select(['customer_id', (eb) => eb.fn.min('created_at').as('first_at')])
    .where('organization_id', '=', organizationId)
    .where('customer_id', 'in', customerIds)
    .where('deleted_at', 'is', null)
    .groupBy('customer_id')
    .execute();
  return new Map(rows.map((r) => [r.customer_id, new Date(r.first_at as Date | string)]));
}

/** A transaction's live commissions, rewards and refund entries, oldest first (what its refunds did). */
export function transactionCommissions(db: Db, organizationId: string, transactionId: string): Promise<CommissionRow[]> {
  return db
    .selectFrom('commissions')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('transaction_id', '=', transactionId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
