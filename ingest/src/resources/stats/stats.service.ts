import type { Db } from '../../db/database.js';
import { partnerName } from '../partners/partner-name.js';
import { requireProgramPartner } from '../partners/partners.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { type DailyRow, selectDailyFigures, selectTopPartners } from './stats.repository.js';
import { addDays, daysBetween, type StatsFigures, type StatsObject, type StatsPeriod } from './stats.schema.js';

const zero = (): StatsFigures => ({ clicks: 0, leads: 0, customers: 0, revenue: {}, commissions: {} });

function add(into: StatsFigures, row: Omit<DailyRow, 'day' | 'partner_id'>): void {
  into.clicks += row.clicks;
  into.leads += row.leads;
  into.customers += row.customers;
  // Counts are filed under the currency ''; money under its own.
  if (row.currency !== '') {
    into.revenue[row.currency] = (into.revenue[row.currency] ?? 0) + row.revenue;
    into.commissions[row.currency] = (into.commissions[row.currency] ?? 0) + row.commission;
  }
}

/** A currency whose amounts sum to 0 is left out, so that figures do not depend on what was deleted or rejected before. */
function dropZeros(f: StatsFigures): StatsFigures {
  const nonZero = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== 0));
  return { ...f, revenue: nonZero(f.revenue), commissions: nonZero(f.commissions) };
}

/** The figures of a program (or one partner of it) per UTC day of a period, and their totals. */
export async function programStats(db: Db, organizationId: string, programId: string, query: StatsPeriod): Promise<StatsObject> {
  const program = await requireProgram(db, organizationId, programId);
  if (query.partner_id) await requireProgramPartner(db, organizationId, program.id, query.partner_id);
  return statsOf(db, program, query);
}

/** The figures of a program (and partner) already found to be the caller's: the dashboard's overview has its program. */
export async function statsOf(db: Db, program: { id: string }, query: StatsPeriod): Promise<StatsObject> {
  const rows = await selectDailyFigures(db, program.id, query.start, query.end, query.partner_id);
  const days = Array.from({ length: daysBetween(query.start, query.end) }, (_, i) => ({ date: addDays(query.start, i), ...zero() }));
  const byDate = new Map(days.map((d) => [d.date, d]));
  const totals = zero();
  for (const row of rows) {
    add(byDate.get(row.day)!, row);
    add(totals, row);
  }
  return {
    program_id: program.id,
    partner_id: query.partner_id ?? null,
    start: query.start,
    end: query.end,
    totals: dropZeros(totals),
    days: days.map(({ date, ...figures }) => ({ date, ...dropZeros(figures) })),
  };
}

export interface TopPartner {
  partner_id: string;
  /** How pages name the partner (partner-name.ts). */
  name: string;
  /** False for a deleted partner, whose revenue still counts but whose page is gone. */
  live: boolean;
  clicks: number;
  customers: number;
  revenue: number;
  commission: number;
}

/** The program's partners with the most revenue in its own currency over a period, named (the dashboard's overview). */
export async function topPartners(
  db: Db,
  programId: string,
  currency: string,
  start: string,
  end: string,
  limit = 5,
): Promise<TopPartner[]> {
  const rows = await selectTopPartners(db, programId, start, end, currency, limit);
  return rows.map((row) => ({
    partner_id: row.partner_id,
    name: partnerName(row),
    live: row.deleted_at === null,
    clicks: row.clicks,
    customers: row.customers,
    revenue: row.revenue,
    commission: row.commission,
  }));
}
