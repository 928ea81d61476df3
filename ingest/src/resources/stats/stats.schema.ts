import { z } from 'zod';
import { idField } from '../../http/fields.js';

/** The longest period one request may ask for: a year and a day, so any calendar year fits. */
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

const FIRST_DAY = '1000-01-01';
const maxDay = (a: string, b: string) => (a > b ? a : b);

export const calendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((v) => {
    const d = new Date(`${v}T00:00:00.000Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v) && v >= FIRST_DAY && v <= '8999-12-31';
  }, 'must be a real date between 1000-01-01 and 8999-12-31')
  .meta({ example: '2026-11-01' });

export const todayUtc = (): string => new Date().toISOString().slice(0, 10);
export const addDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
export const daysBetween = (start: string, end: string): number => Math.round((Date.parse(end) - Date.parse(start)) / DAY_MS) + 1;

export const StatsQuery = z
  .strictObject({
    start: calendarDay.optional().meta({ description: 'First UTC day of the period (inclusive); default: 29 days before `end`' }),
    end: calendarDay.optional().meta({ description: 'Last UTC day of the period (inclusive); default: today' }),
    partner_id: idField.optional().meta({ description: "Only this partner's figures; a partner of another program → 404" }),
  })
  .transform((q, ctx): StatsPeriod => {
    const end = q.end ?? todayUtc();
    const start = q.start ?? maxDay(addDays(end, -29), FIRST_DAY);
    if (start > end) ctx.addIssue({ code: 'custom', path: ['start'], message: 'must not be after end' });
    else if (daysBetween(start, end) > MAX_PERIOD_DAYS)
      ctx.addIssue({ code: 'custom', path: ['start'], message: `a period is at most ${MAX_PERIOD_DAYS} days` });
    return { start, end, partner_id: q.partner_id };
  });
/** A period of UTC days, both inclusive, optionally of one partner. */
export interface StatsPeriod {
  start: string;
  end: string;
  partner_id?: string;
}

const Money = z.record(z.string(), z.number().int()).meta({
  description: 'Amounts in minor units (cents) per ISO 4217 currency; a currency that sums to 0 is left out',
  example: { USD: 4900 },
});

const Figures = {
  clicks: z.number().int(),
  leads: z.number().int().meta({ description: 'Customers recorded (signups), by the day they were created' }),
  customers: z.number().int().meta({
    description: 'Customers past the lead stage (as partner stats count them), by the day of their first payment, else of their creation',
  }),
  revenue: Money.meta({ description: 'Payments net of refunds, by the day of the payment (a refund lowers the payment’s day)' }),
  commissions: Money.meta({
    description:
      'Commissions not rejected or refunded, by the day they were earned. A negative refund entry (a partial refund, or a refund of a commission already approved or paid) counts on the refund’s day; a full refund of a pending commission voids it, which takes it off the day it was earned.',
  }),
};

export const StatsDay = z.object({ date: z.string(), ...Figures }).meta({ id: 'StatsDay' });
export const Stats = z
  .object({
    program_id: z.string(),
    partner_id: z.string().nullable(),
    start: z.string(),
    end: z.string(),
    totals: z.object(Figures),
    days: z.array(StatsDay).meta({ description: 'One entry per UTC day of the period, oldest first, zeros included' }),
  })
  .meta({ id: 'Stats' });
export type StatsObject = z.output<typeof Stats>;
export type StatsFigures = StatsObject['totals'];

export const statsDocs = {
  stats:
    'Clicks, leads, paying customers, revenue and commissions of a program (or one of its partners) per UTC day of a period ' +
    `of at most ${MAX_PERIOD_DAYS} days (\`start\` and \`end\` are UTC days, both included; default the 30 days ending today), with the totals. ` +
    '`days` holds every day of the period, zeros included. Money is `{currency: cents}`; a currency that sums to 0 is left out. ' +
    'Read from daily figures kept as each change commits, so the cost does not grow with the number of clicks. The same figures as the dashboard’s overview and the partner portal’s home.',
};
