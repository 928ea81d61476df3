import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/** One partner, UTC day and currency: live payments, their refunded amount and their revenue net of refunds. */
export interface DayFigures {
  partner_id: string;
  day: string;
  currency: string;
  payments: number;
  refunded: number;
  revenue: number;
}

const numbers = (rows: Record<string, unknown>[]): DayFigures[] =>
  rows.map((r) => ({
    ...(r as unknown as DayFigures),
    payments: Number(r.payments),
    refunded: Number(r.refunded),
    revenue: Number(r.revenue),
  }));

/** What daily_stats holds of a program's payments (migration 0019), its shards summed, days with nothing left out. */
export async function rolledUpPayments(db: Db, programId: string): Promise<DayFigures[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select partner_id, day::text as day, currency, sum(payments) as payments, sum(refunded) as refunded, sum(revenue) as revenue
      from daily_stats
     where program_id = ${programId} and currency <> ''
     group by 1, 2, 3
    having sum(payments) <> 0 or sum(refunded) <> 0 or sum(revenue) <> 0
     order by 1, 2, 3`.execute(db);
  return numbers(rows);
}

/** The same figures counted from the program's transactions themselves. */
export async function countedPayments(db: Db, programId: string): Promise<DayFigures[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select partner_id, ((created_at at time zone 'UTC')::date)::text as day, currency,
           count(*) as payments, sum(refunded_amount) as refunded, sum(amount - refunded_amount) as revenue
      from transactions
     where program_id = ${programId} and deleted_at is null
     group by 1, 2, 3
     order by 1, 2, 3`.execute(db);
  return numbers(rows);
}
