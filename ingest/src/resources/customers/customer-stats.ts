import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { toIsoOrNull } from '../../http/fields.js';
import { UNCOUNTED_STATUSES } from '../commissions/cents.js';
import type { CustomerStatsObject } from './customers.schema.js';

/**
 * One customer's figures: revenue net of refunds, orders (refunded ones included), commission
 * not rejected or refunded and net of refund entries. Both sums use the customer's indexes.
 */
export async function loadCustomerStats(db: Db, customerId: string): Promise<CustomerStatsObject> {
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
  return {
    total_revenue: orders.total_revenue,
    total_commission: commission.total,
    total_orders: orders.total_orders,
    last_order_at: toIsoOrNull(orders.last_order_at),
  };
}
