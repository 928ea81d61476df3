import type { Db } from '../../db/database.js';
import type { CommissionRow } from '../../db/schema.js';

export function selectCommissions(db: Db, organizationId: string) {
  return db.selectFrom('commissions').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
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
