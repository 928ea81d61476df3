import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

export interface DailyRow {
  day: string;
  partner_id: string;
  currency: string;
  clicks: number;
  leads: number;
  customers: number;
  revenue: number;
  commission: number;
}

const SUMS = [
  sql<number>`sum(clicks)::int8`.as('clicks'),
  sql<number>`sum(leads)::int8`.as('leads'),
  sql<number>`sum(customers)::int8`.as('customers'),
  sql<number>`sum(revenue)::int8`.as('revenue'),
  sql<number>`sum(commission)::int8`.as('commission'),
] as const;

/** A program's figures per day and currency over [start, end] (UTC days), its shards summed. */
export function selectDailyFigures(db: Db, programId: string, start: string, end: string, partnerId?: string) {
  return db
    .selectFrom('daily_stats')
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'currency', ...SUMS])
    .where('program_id', '=', programId)
    .where('day', '>=', start)
    .where('day', '<=', end)
    .$if(partnerId !== undefined, (q) => q.where('partner_id', '=', partnerId!))
    .groupBy(['day', 'currency'])
    .orderBy('day')
    .execute();
}

/**
 * The partners with the most revenue in one currency over [start, end], with their figures and
 * what names them (deleted ones too: their revenue still counts). Summed first, then the few
 * partners joined.
 */
export function selectTopPartners(db: Db, programId: string, start: string, end: string, currency: string, limit: number) {
  return db
    .with('top', (q) =>
      q
        .selectFrom('daily_stats')
        .select(['partner_id', ...SUMS])
        .where('program_id', '=', programId)
        .where('day', '>=', start)
        .where('day', '<=', end)
        .where('currency', 'in', ['', currency])
        .groupBy('partner_id')
        .having(sql`sum(revenue)`, '>', 0)
        .orderBy(sql`sum(revenue)`, 'desc')
        .orderBy('partner_id')
        .limit(limit),
    )
    .selectFrom('top')
    .innerJoin('partners', 'partners.id', 'top.partner_id')
    .select([
      'top.partner_id',
      'top.clicks',
      'top.leads',
      'top.customers',
      'top.revenue',
      'top.commission',
      'partners.first_name',
      'partners.last_name',
      'partners.email',
      'partners.deleted_at',
    ])
    .orderBy('top.revenue', 'desc')
    .orderBy('top.partner_id')
    .execute();
}
