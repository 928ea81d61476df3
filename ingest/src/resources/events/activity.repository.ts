import type { Db } from '../../db/database.js';

/**
 * What the activity lines (activity.ts) name, one query per table for a page of events: the
 * organization's partners, customers and transactions with these ids, deleted ones included, since
 * a line about a deleted partner's link still names the partner (and the line then links nowhere).
 */

export function selectNamedPartners(db: Db, organizationId: string, ids: string[]) {
  return db
    .selectFrom('partners')
    .select(['id', 'first_name', 'last_name', 'email', 'deleted_at'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
}

export function selectNamedCustomers(db: Db, organizationId: string, ids: string[]) {
  return db
    .selectFrom('customers')
    .select(['id', 'name', 'email', 'identifier', 'deleted_at'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
}

/** Only whether each is deleted: a line about a deleted payment does not link to its page. */
export function selectTransactionsDeleted(db: Db, organizationId: string, ids: string[]) {
  return db
    .selectFrom('transactions')
    .select(['id', 'deleted_at'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
}
