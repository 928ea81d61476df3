import { z } from 'zod';
import { validate } from '../http/validation.js';
import { formatMoney } from '../money.js';
import { addDays, type StatsObject, StatsQuery, todayUtc } from '../resources/stats/stats.schema.js';
import { assetUrl } from './assets.js';
import { count, moneyList } from './format.js';
import type { Children } from './render.js';

/**
 * A period of figures and its chart, drawn alike by the dashboard's overview and the partner
 * portal's home page: the period picker (7, 30 or 90 days ending today, or any UTC days), and the
 * figures per day as a uPlot chart (dashboard.js draws `#chart` from its `data-series`) with the
 * same figures as a table.
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

/**
 * The presets as links and a custom period as a GET form to `action`; `href` makes a preset's
 * address, and `children` go into the form (hidden fields of the page's other state).
 */
export function PeriodPicker({
  period,
  action,
  href,
  children,
}: {
  period: Period;
  action: string;
  href: (days: number) => string;
  children?: Children;
}) {
  return (
    <form class="period" method="get" action={action}>
      <fieldset>
        <legend class="visually-hidden">Period</legend>
        {PERIOD_PRESETS.map((days) => (
          <a class="chip" href={href(days)} aria-current={period.days === days ? 'true' : undefined}>
            {days} days
          </a>
        ))}
        <label for="start">From</label>
        <input id="start" name="start" type="date" value={period.start} required />
        <label for="end">to</label>
        <input id="end" name="end" type="date" value={period.end} required />
        {children}
        <button type="submit">Show</button>
      </fieldset>
    </form>
  );
}

/** The figures of each day of `stats` as a chart (revenue in `currency`) and, below it, as a table. */
export function DailyChart({ stats, currency, title = 'Per day' }: { stats: StatsObject; currency: string; title?: string }) {
  const series = {
    dates: stats.days.map((d) => d.date),
    clicks: stats.days.map((d) => d.clicks),
    leads: stats.days.map((d) => d.leads),
    customers: stats.days.map((d) => d.customers),
    revenue: stats.days.map((d) => d.revenue[currency] ?? 0),
    digits: formatMoney(0, currency).replace(/[^0-9]/g, '').length - 1,
  };
  return (
    <section aria-labelledby="chart-title" class="chart-card">
      <h2 id="chart-title">{title}</h2>
      <div
        class="chart"
        id="chart"
        data-series={JSON.stringify(series)}
        role="img"
        aria-label={`Clicks, leads, customers and revenue per day from ${stats.start} to ${stats.end}`}
      >
        <noscript>The chart needs JavaScript; the table below has the same figures.</noscript>
      </div>
      <link rel="stylesheet" href={assetUrl('uplot.css')} />
      <script defer src={assetUrl('uplot.js')} />
      <details>
        <summary>Figures per day as a table</summary>
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Clicks</th>
              <th scope="col">Leads</th>
              <th scope="col">Customers</th>
              <th scope="col">Revenue</th>
              <th scope="col">Commissions</th>
            </tr>
          </thead>
          <tbody>
            {stats.days.map((d) => (
              <tr>
                <th scope="row">{d.date}</th>
                <td>{count(d.clicks)}</td>
                <td>{count(d.leads)}</td>
                <td>{count(d.customers)}</td>
                <td>{moneyList(d.revenue, currency)}</td>
                <td>{moneyList(d.commissions, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
