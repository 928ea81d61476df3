import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { NewCommission, NewTransaction, TransactionRow } from '../../db/schema.js';

export function selectTransactions(db: Db, organizationId: string) {
  return db.selectFrom('transactions').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
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
