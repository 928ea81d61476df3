import type { Db } from '../../db/database.js';
import type { TransactionRow } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';

export function selectTransactions(db: Db, organizationId: string) {
  return db.selectFrom('transactions').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

/** The caller's live transaction, or 404; `forUpdate` locks it for the rest of the SQL transaction. */
export async function requireTransaction(db: Db, organizationId: string, id: string, opts: { param?: string; forUpdate?: boolean } = {}): Promise<TransactionRow> {
  let query = selectTransactions(db, organizationId).where('id', '=', id);
  if (opts.forUpdate) query = query.forUpdate();
  const transaction = await query.executeTakeFirst();
  if (!transaction) throw notFound('transaction', id, opts.param);
  return transaction;
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
