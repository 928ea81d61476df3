import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PartnerStatsObject } from './partners.schema.js';

const ZERO: PartnerStatsObject = { total_clicks: 0, total_customers: 0, total_revenue: 0, total_commission: 0 };

/**
 * Stats of a page of partners, read from the trigger-kept counters (a few rows per partner),
 * so their cost does not grow with the program's clicks, customers or transactions.
 */
export async function loadPartnerStats(db: Db, partnerIds: string[]): Promise<Map<string, PartnerStatsObject>> {
  const ids = [...new Set(partnerIds)];
  const stats = new Map(ids.map((id) => [id, { ...ZERO }]));
  if (ids.length === 0) return stats;
  const rows = await db
    .selectFrom('partner_stats')
    .select([
      'partner_id',
      sql<number>`sum(clicks)::int8`.as('total_clicks'),
      sql<number>`sum(customers)::int8`.as('total_customers'),
      sql<number>`sum(revenue)::int8`.as('total_revenue'),
      sql<number>`sum(commission)::int8`.as('total_commission'),
    ])
    .where('partner_id', 'in', ids)
    .groupBy('partner_id')
    .execute();
  for (const { partner_id, ...figures } of rows) stats.set(partner_id, figures);
  return stats;
}
