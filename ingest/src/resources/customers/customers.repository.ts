import { sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CustomerRow, Database } from '../../db/schema.js';
import { UNCOUNTED_STATUSES } from '../commissions/cents.js';

export type CustomerChanges = Updateable<Database['customers']>;

export function selectCustomers(db: Db, organizationId: string) {
  return db.selectFrom('customers').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export interface CustomerListFilters {
  programId: string;
  partnerId?: string;
  status?: string;
  /** Part of the e-mail address, case-insensitive; `%` and `_` match literally. */
  search?: string;
}

/** The live customers of a program with the list filters applied, for `paginate`. */
export function selectCustomerList(db: Db, organizationId: string, filters: CustomerListFilters) {
  let query = selectCustomers(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.partnerId) query = query.where('partner_id', '=', filters.partnerId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.search) query = query.where(sql<boolean>`email ilike ${likePattern(filters.search)} escape '\\'`);
  return query;
}

/**
 * The live customers of a program whose e-mail or name holds `text` (case-insensitive; `%` and `_`
 * match literally), newest first, at most `limit`: the dashboard's customer picker. Unlike the
 * list's `search` (the e-mail only, served by a trigram index where PostgreSQL has `pg_trgm`), the
 * name is not indexed: this reads the program's customers until it has `limit` of them.
 */
export function selectCustomersNamed(db: Db, organizationId: string, programId: string, text: string, limit: number) {
  const pattern = likePattern(text);
  return selectCustomers(db, organizationId)
    .where('program_id', '=', programId)
    .where(sql<boolean>`(email ilike ${pattern} escape '\\' or name ilike ${pattern} escape '\\')`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
}

export function findCustomer(db: Db, organizationId: string, customerId: string): Promise<CustomerRow | undefined> {
  return selectCustomers(db, organizationId).where('id', '=', customerId).executeTakeFirst();
}

/** The live customer that already holds this identifier or integrator id in the program. */
export function findExistingCustomer(
  db: Db,
  programId: string,
  keys: { identifier?: string; customerId?: string | null },
): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('program_id', '=', programId)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(keys.identifier !== undefined ? [eb(sql`lower(identifier)`, '=', keys.identifier.toLowerCase())] : []),
        ...(keys.customerId ? [eb('customer_id', '=', keys.customerId)] : []),
      ]),
    )
    .executeTakeFirst();
}

/** `%` and `_` in a search are matched literally. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function insertCustomer(db: Db, row: Omit<CustomerRow, 'deleted_at'>): Promise<CustomerRow> {
  return db.insertInto('customers').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Changes a customer the caller has read (rows are never removed, so it is there). */
export function updateCustomerRow(db: Db, id: string, changes: CustomerChanges): Promise<CustomerRow> {
  return db.updateTable('customers').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Soft delete: the row stays for its transactions and commissions. */
export async function softDeleteCustomer(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('customers').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
}

export interface CustomerStatsRow {
  total_orders: number;
  total_revenue: number;
  last_order_at: Date | null;
  total_commission: number;
}

/**
 * One customer's figures: revenue net of refunds, orders (refunded ones included), commission
 * not rejected or refunded and net of refund entries. Both sums use the customer's indexes.
 */
export async function sumCustomerStats(db: Db, customerId: string): Promise<CustomerStatsRow> {
  const [orders, commission] = await Promise.all([
    db
      .selectFrom('transactions')
      .select([
        sql<number>`count(*)::int`.as('total_orders'),
        sql<number>`coalesce(sum(amount - refunded_amount), 0)::int8`.as('total_revenue'),
        sql<Date | null>`max(created_at)`.as('last_order_at'),
      ])
      .where('customer_id', '=', customerId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('commissions')
      .select(sql<number>`coalesce(sum(amount), 0)::int8`.as('total'))
      .where('customer_id', '=', customerId)
      .where('deleted_at', 'is', null)
      .where('status', 'not in', UNCOUNTED_STATUSES)
      .executeTakeFirstOrThrow(),
  ]);
  return { ...orders, total_commission: commission.total };
}

/**
 * The revenue of each of these customers net of refunds, per currency (deleted transactions
 * left out, as in sumCustomerStats): a page of customers in one statement, on the customer index.
 */
export async function sumCustomerRevenues(
  db: Db,
  organizationId: string,
  customerIds: string[],
): Promise<{ customer_id: string; currency: string; revenue: number }[]> {
  if (customerIds.length === 0) return [];
  return db
    .selectFrom('transactions')
    .select(['customer_id', 'currency', sql<number>`sum(amount - refunded_amount)::int8`.as('revenue')])
    .where('organization_id', '=', organizationId)
    .where('customer_id', 'in', customerIds)
    .where('deleted_at', 'is', null)
    .groupBy(['customer_id', 'currency'])
    .orderBy('customer_id')
    .orderBy('currency')
    .execute();
}

/** The live customer a click became, if any. */
export function findCustomerOfClick(db: Db, clickId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('customers').select('id').where('click_id', '=', clickId).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Whether the partner has a live customer besides this one. */
export async function hasOtherCustomers(db: Db, partnerId: string, exceptCustomerId: string): Promise<boolean> {
  const found = await db
    .selectFrom('customers')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('id', '<>', exceptCustomerId)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}
