import type { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { formatMoney } from '../../money.js';
import { DailyChart, type PeriodAsked, PeriodPicker, periodFields, readPeriod } from '../../pages/chart.js';
import { Figure, Figures } from '../../pages/figures.js';
import { change, count, moneyList, time } from '../../pages/format.js';
import { sendPage } from '../../pages/render.js';
import { DataTable } from '../../pages/table.js';
import { type ActivityLine, recentActivity } from '../../resources/events/activity.js';
import { addDays, daysBetween, type StatsFigures, type StatsObject } from '../../resources/stats/stats.schema.js';
import { statsOf, type TopPartner, topPartners } from '../../resources/stats/stats.service.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Layout, scriptTag } from '../layout.js';

/** `?days=7|30|90` (default 30, ending today) or a custom `?start=&end=`: the stats API's own rules. */
const PeriodQuery = z.strictObject({ ...periodFields, notice: z.string().optional() });

export function registerOverviewPages(router: Router, { db }: AppDeps, contextOf: ContextOf): void {
  router.get('/programs/:programId', async (req, res) => {
    const ctx = await contextOf(res, 'overview', req.params.programId);
    const program = ctx.program;
    // A period that cannot be shown (a 400) leaves the page as it is, with the default period and the picker saying why.
    const asked = readPeriod(req.query, PeriodQuery);
    const { period } = asked;
    const length = daysBetween(period.start, period.end);
    const [current, previous, top, activity] = await Promise.all([
      statsOf(db, program, { start: period.start, end: period.end }),
      statsOf(db, program, { start: addDays(period.start, -length), end: addDays(period.start, -1) }),
      topPartners(db, program.id, program.currency_code, period.start, period.end),
      recentActivity(db, program, 8),
    ]);
    sendPage(
      res,
      <OverviewPage ctx={ctx} asked={asked} current={current} previous={previous} top={top} activity={activity} />,
      asked.refusal?.status ?? 200,
    );
  });
}

/** A figure's change against the period before, in words. */
function againstBefore(now: number, before: number): string {
  const delta = change(now, before);
  return delta ? `${delta} vs previous period` : 'no previous figures';
}

const inCurrency = (f: StatsFigures, field: 'revenue' | 'commissions', currency: string) => f[field][currency] ?? 0;

function OverviewPage(props: {
  ctx: ProgramPageContext;
  asked: PeriodAsked;
  current: StatsObject;
  previous: StatsObject;
  top: TopPartner[];
  activity: ActivityLine[];
}) {
  const { ctx, asked, current, previous, top, activity } = props;
  const { period } = asked;
  const program = ctx.program;
  const currency = program.currency_code;
  const now = current.totals;
  const before = previous.totals;
  const empty = now.clicks === 0 && now.leads === 0 && now.customers === 0 && Object.keys(now.revenue).length === 0;
  return (
    <Layout ctx={ctx} title={`${program.name} overview`}>
      <div class="page-head">
        <h1>Overview</h1>
        <PeriodPicker
          period={period}
          refusal={asked.refusal}
          typed={asked.typed}
          action={programPath(program)}
          href={(days) => programPath(program, `?days=${days}`)}
        />
      </div>
      <p class="period-label">
        {period.start} – {period.end} (UTC days), compared with the {daysBetween(period.start, period.end)} days before.
      </p>
      <Figures>
        <Figure label="Clicks" value={count(now.clicks)} hint={againstBefore(now.clicks, before.clicks)} />
        <Figure label="Leads" value={count(now.leads)} hint={againstBefore(now.leads, before.leads)} />
        <Figure label="Paying customers" value={count(now.customers)} hint={againstBefore(now.customers, before.customers)} />
        <Figure
          label="Revenue"
          value={moneyList(now.revenue, currency)}
          hint={againstBefore(inCurrency(now, 'revenue', currency), inCurrency(before, 'revenue', currency))}
        />
        <Figure
          label="Commissions"
          value={moneyList(now.commissions, currency)}
          hint={againstBefore(inCurrency(now, 'commissions', currency), inCurrency(before, 'commissions', currency))}
        />
      </Figures>
      {empty ? (
        <section class="empty" aria-labelledby="empty-title">
          <h2 id="empty-title">No clicks yet</h2>
          <p>Paste this tag into the &lt;head&gt; of every page of your site, then share a partner's link:</p>
          <pre>
            <code>{scriptTag(ctx.publicUrl, program.public_key)}</code>
          </pre>
          <p>
            <button type="button" class="copy" data-copy={scriptTag(ctx.publicUrl, program.public_key)}>
              Copy the tag
            </button>{' '}
            <a href={programPath(program, '/partners')}>Add partners and their links</a>
          </p>
        </section>
      ) : null}
      <DailyChart stats={current} currency={currency} />
      <div class="columns">
        <section aria-labelledby="top-title">
          <h2 id="top-title">Top partners by revenue</h2>
          <TopPartners ctx={ctx} top={top} />
        </section>
        <section aria-labelledby="activity-title">
          <h2 id="activity-title">Recent activity</h2>
          {activity.length === 0 ? (
            <p class="muted">Nothing has happened in this program in the last 30 days.</p>
          ) : (
            <ul class="activity">
              {activity.map((line) => (
                <li>
                  <span class="what">{line.path ? <a href={programPath(program, line.path)}>{line.text}</a> : line.text}</span>{' '}
                  <time datetime={line.at}>{time(line.at)}</time>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </Layout>
  );
}

/** The period's partners with the most revenue in the program's currency, each linking to their page (while it exists). */
function TopPartners({ ctx, top }: { ctx: ProgramPageContext; top: TopPartner[] }) {
  const program = ctx.program;
  const currency = program.currency_code;
  return (
    <DataTable
      caption="Top partners by revenue"
      rows={top}
      empty={`No partner brought revenue in ${currency} in this period.`}
      columns={[
        {
          head: 'Partner',
          cell: (t) => (t.live ? <a href={programPath(program, `/partners/${t.partner_id}`)}>{t.name}</a> : `${t.name} (deleted)`),
        },
        { head: 'Clicks', numeric: true, cell: (t) => count(t.clicks) },
        { head: 'Customers', numeric: true, cell: (t) => count(t.customers) },
        { head: 'Revenue', numeric: true, cell: (t) => formatMoney(t.revenue, currency) },
        { head: 'Commission', numeric: true, cell: (t) => formatMoney(t.commission, currency) },
      ]}
    />
  );
}
