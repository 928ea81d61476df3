import { type ZodType, z } from 'zod';
import { validate } from '../http/validation.js';
import { formatMoney, minorUnitDigits } from '../money.js';
import { addDays, type StatsObject, StatsQuery, todayUtc } from '../resources/stats/stats.schema.js';
import { assetUrl } from './assets.js';
import { Field, type Typed, typedText } from './fields.js';
import { count, moneyList } from './format.js';
import { type FieldLabels, type Refusal, refusalOf } from './refusal.js';
import type { Children } from './render.js';
import { DataTable } from './table.js';

/**
 * A period of figures and its chart, drawn alike by the dashboard's overview and the partner
 * portal's home page (ingest/docs/dashboard.md#the-overviews-chart): the period picker (7, 30 or
 * 90 days ending today, or any UTC days typed as YYYY-MM-DD), and the figures per day as a uPlot
 * chart (dashboard.js draws `#chart` from its `data-series`) with the same figures as a table,
 * which is what screen readers and browsers without JavaScript get.
 */

export const PERIOD_PRESETS = [7, 30, 90] as const;

/** The period fields of a page's query: `?days=7|30|90` or a custom `?start=&end=`. */
export const periodFields = {
  days: z.enum(['7', '30', '90']).optional(),
  start: z.string().optional(),
  end: z.string().optional(),
};

export interface Period {
  start: string;
  end: string;
  /** The preset chosen, or null for a custom period. */
  days: number | null;
}

const PeriodFields = z.object(periodFields);

/** The period asked for (default: the 30 days ending today); a custom one follows the stats API's own rules (400 otherwise). */
export function periodFrom(query: { days?: string; start?: string; end?: string }): Period {
  const q = validate(PeriodFields, query, 'query');
  if (q.start || q.end) {
    const { start, end } = validate(StatsQuery, { start: q.start, end: q.end }, 'query');
    return { start, end, days: null };
  }
  const days = Number(q.days ?? 30);
  const end = todayUtc();
  return { start: addDays(end, 1 - days), end, days };
}

/** The period picker's fields as the page names them, for the refusal beside them. */
const PERIOD_LABELS: FieldLabels = { days: 'Period', start: 'From', end: 'To' };

/** What a page's query asked for: the period shown, and, when refused, why and what was typed. */
export interface PeriodAsked {
  period: Period;
  /** Why the period asked for cannot be shown (a 4xx); the default period is shown instead. */
  refusal: Refusal | null;
  /** The days as typed, put back in the picker's fields beside the refusal. */
  typed: Typed | null;
}

/**
 * The period of a page's query read through `schema` (the page's own query: the period fields and
 * whatever else it takes). A refused one is no error page: the page shows the default period and
 * the picker says why, beside the field, with what was typed kept. Faults are thrown on.
 */
export function readPeriod(query: unknown, schema: ZodType = PeriodFields): PeriodAsked {
  try {
    return { period: periodFrom(validate(schema, query, 'query') as z.output<typeof PeriodFields>), refusal: null, typed: null };
  } catch (err) {
    const given = (query ?? {}) as Record<string, unknown>;
    const typed = Object.fromEntries(['start', 'end'].filter((name) => given[name] !== undefined).map((name) => [name, given[name]]));
    return { period: periodFrom({}), refusal: refusalOf(err, PERIOD_LABELS), typed };
  }
}

/** What the picker says above a refused period, in plain words; the field's own message sits beside it. */
function periodRefusalText(refusal: Refusal): string {
  const instead = 'These are the last 30 days instead.';
  if (refusal.field === 'start' || refusal.field === 'end')
    return `Those days cannot be shown: see the message beside the field. ${instead}`;
  if (refusal.field === 'days') return `A period is 7, 30 or 90 days, or the days you type. ${instead}`;
  return `${refusal.message} ${instead}`;
}

/** A UTC day typed as text: browsers show `<input type=date>` in the system's format, and every other date here is ISO. */
const DAY_FIELD = {
  pattern: String.raw`\d{4}-\d{2}-\d{2}`,
  placeholder: 'YYYY-MM-DD',
  inputmode: 'numeric',
  maxlength: 10,
  hint: 'YYYY-MM-DD',
  required: true,
  class: 'day-field',
} as const;

/**
 * The presets as links and a custom period as a GET form to `action`; `href` makes a preset's
 * address, and `children` go into the form (hidden fields of the page's other state). Given a
 * refusal (readPeriod), the form says why and keeps what was typed.
 */
export function PeriodPicker({
  period,
  action,
  href,
  children,
  refusal = null,
  typed = null,
}: {
  period: Period;
  action: string;
  href: (days: number) => string;
  children?: Children;
  refusal?: Refusal | null;
  typed?: Typed | null;
}) {
  const typedOr = (name: 'start' | 'end') => typedText(typed ?? undefined, name, period[name]);
  return (
    <form class="period" method="get" action={action}>
      <fieldset>
        <legend class="visually-hidden">Period</legend>
        {PERIOD_PRESETS.map((days) => (
          <a class="chip" href={href(days)} aria-current={period.days === days && !refusal ? 'true' : undefined}>
            {days} days
          </a>
        ))}
        <Field {...DAY_FIELD} name="start" label="From" value={typedOr('start')} refusal={refusal} />
        <Field {...DAY_FIELD} name="end" label="to" value={typedOr('end')} refusal={refusal} />
        {children}
        <button type="submit">Show</button>
      </fieldset>
      {refusal ? (
        <p class="error" role="alert">
          {periodRefusalText(refusal)}
        </p>
      ) : null}
    </form>
  );
}

/**
 * What dashboard.js draws (`data-series` of `#chart`): each day's five figures, money in minor
 * units of `currency`, and the legend's texts, written here so that they read as the rest of the
 * page (money.ts): each day's amounts, and the period's totals shown while no day is hovered.
 */
export interface ChartSeries {
  dates: string[];
  clicks: number[];
  leads: number[];
  customers: number[];
  revenue: number[];
  commissions: number[];
  currency: string;
  /** The digits of the currency's minor unit: amounts are drawn in its major unit. */
  digits: number;
  /** Each day's amounts as text. */
  money: { revenue: string[]; commissions: string[] };
  /** The period's totals as text, for the legend. */
  totals: { clicks: string; leads: string; customers: string; revenue: string; commissions: string };
}

/** The chart's figures of `stats`, amounts in `currency` (the program's: other currencies are in the table only). */
export function chartSeries(stats: StatsObject, currency: string): ChartSeries {
  const revenue = stats.days.map((d) => d.revenue[currency] ?? 0);
  const commissions = stats.days.map((d) => d.commissions[currency] ?? 0);
  const totals = stats.totals;
  return {
    dates: stats.days.map((d) => d.date),
    clicks: stats.days.map((d) => d.clicks),
    leads: stats.days.map((d) => d.leads),
    customers: stats.days.map((d) => d.customers),
    revenue,
    commissions,
    currency,
    digits: minorUnitDigits(currency),
    money: {
      revenue: revenue.map((cents) => formatMoney(cents, currency)),
      commissions: commissions.map((cents) => formatMoney(cents, currency)),
    },
    totals: {
      clicks: count(totals.clicks),
      leads: count(totals.leads),
      customers: count(totals.customers),
      revenue: formatMoney(totals.revenue[currency] ?? 0, currency),
      commissions: formatMoney(totals.commissions[currency] ?? 0, currency),
    },
  };
}

/** The figures of each day of `stats` as a chart (amounts in `currency`) and, below it, as a table. */
export function DailyChart({ stats, currency, title = 'Per day' }: { stats: StatsObject; currency: string; title?: string }) {
  return (
    <section aria-labelledby="chart-title" class="chart-card">
      <h2 id="chart-title">{title}</h2>
      <div
        class="chart"
        id="chart"
        data-series={JSON.stringify(chartSeries(stats, currency))}
        role="img"
        aria-label={`Clicks, leads, customers, revenue and commissions per day from ${stats.start} to ${stats.end}; the table below has the figures`}
      >
        <noscript>The chart needs JavaScript; the table below has the same figures.</noscript>
      </div>
      <link rel="stylesheet" href={assetUrl('uplot.css')} />
      <script defer src={assetUrl('uplot.js')} />
      <details>
        <summary>Figures per day as a table</summary>
        <DataTable
          caption={`Figures per day from ${stats.start} to ${stats.end}`}
          rows={stats.days}
          empty="No days."
          columns={[
            { head: 'Day', cell: (d) => d.date },
            { head: 'Clicks', numeric: true, cell: (d) => count(d.clicks) },
            { head: 'Leads', numeric: true, cell: (d) => count(d.leads) },
            { head: 'Customers', numeric: true, cell: (d) => count(d.customers) },
            { head: 'Revenue', numeric: true, cell: (d) => moneyList(d.revenue, currency) },
            { head: 'Commissions', numeric: true, cell: (d) => moneyList(d.commissions, currency) },
          ]}
        />
      </details>
    </section>
  );
}
