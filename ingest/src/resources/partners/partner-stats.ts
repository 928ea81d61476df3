import type { Db } from '../../db/database.js';
import { selectPartnerStats } from './partners.repository.js';
import type { PartnerStatsObject } from './partners.schema.js';

const ZERO: PartnerStatsObject = { total_clicks: 0, total_customers: 0, total_revenue: 0, total_commission: 0 };

/**
 * Stats of a page of partners, read from the trigger-kept counters (a few rows per partner),
 * so their cost does not grow with the program's clicks, customers or transactions. A partner
 * without counters has zeros.
 */
export async function loadPartnerStats(db: Db, partnerIds: string[]): Promise<Map<string, PartnerStatsObject>> {
  const ids = [...new Set(partnerIds)];
  const stats = new Map(ids.map((id) => [id, { ...ZERO }]));
  if (ids.length === 0) return stats;
  for (const { partner_id, ...figures } of await selectPartnerStats(db, ids)) stats.set(partner_id, figures);
  return stats;
}
