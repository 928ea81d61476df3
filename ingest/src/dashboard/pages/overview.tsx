import type { Router } from 'express';
import { z } from 'zod';
import { loadByIds } from '../../db/load-by-ids.js';
import type { AppDeps } from '../../deps.js';
import { validate } from '../../http/validation.js';
import { formatMoney } from '../../money.js';
import { DailyChart, type Period, PeriodPicker, periodFields, periodFrom } from '../../pages/chart.js';
import { change, count, moneyList, partnerName, time } from '../../pages/format.js';
import { sendPage } from '../../pages/render.js';
import { type ActivityLine, recentActivity } from '../../resources/events/activity.js';
import { addDays, daysBetween, type StatsFigures, type StatsObject } from '../../resources/stats/stats.schema.js';
import { statsOf, type TopPartner, topPartners } from '../../resources/stats/stats.service.js';
import { type ContextOf, type ProgramPageContext, programPath } from '../context.js';
import { Layout, scriptTag } from '../layout.js';

/** `?days=7|30|90` (default 30, ending today) or a custom `?start=&end=`: the stats API's own rules. */
const PeriodQuery = z.strictObject({ ...periodFields, notice: z.string().optional() });

const periodOf = (query: unknown): Period => periodFrom(validate(PeriodQuery, query, 'query'));

export function registerOverviewPages(router: Router, { db }: AppDeps, contextOf: ContextOf): void {
  router.get('/programs/:programId', async (req, res) => {
    const ctx = await contextOf(res, 'overview', req.params.programId);
    const program = ctx.program;
    const period = periodOf(req.query);
    const length = daysBetween(period.start, period.end);
    const [current, previous, top, activity] = await Promise.all([
      statsOf(db, program, { start: period.start, end: period.end }),
      statsOf(db, program, { start: addDays(period.start, -length), end: addDays(period.start, -1) }),
      topPartners(db, program.id, program.currency_code, period.start, period.end),
      recentActivity(db, program, 8),
    ]);
    const partners = await loadByIds(
      db,
      'partners',
      top.map((t) => t.partner_id),
    );
    const names = new Map([...partners.values()].map((p) => [p.id, partnerName(p)]));
    sendPage(
      res,
      <OverviewPage ctx={ctx} period={period} current={current} previous={previous} top={top} names={names} activity={activity} />,
    );
  });
}

function Figure({ label, value, now, before }: { label: string; value: string; now: number; before: number }) {
  const delta = change(now, before);
  return (
    <div class="figure">
      <dt>{label}</dt>
      <dd>
        <span class="value">{value}</span>
        <span class="delta">{delta ? `${delta} vs previous period` : 'no previous figures'}</span>
      </dd>
    </div>
  );
}

const inCurrency = (f: StatsFigures, field: 'revenue' | 'commissions', currency: string) => f[field][currency] ?? 0;

function OverviewPage(props: {
  ctx: ProgramPageContext;
  period: Period;
  current: StatsObject;
  previous: StatsObject;
  top: TopPartner[];
  names: Map<string, string>;
  activity: ActivityLine[];
}) {
  const { ctx, period, current, previous, top, names, activity } = props;
  const program = ctx.program;
  const currency = program.currency_code;
  const now = current.totals;
  const before = previous.totals;
  const empty = now.clicks === 0 && now.leads === 0 && now.customers === 0 && Object.keys(now.revenue).length === 0;
  return (
    <Layout ctx={ctx} title={`${program.name} overview`}>
      <div class="page-head">
        <h1>Overview</h1>
        <PeriodPicker period={period} action={programPath(program)} href={(days) => programPath(program, `?days=${days}`)} />
      </div>
      <p class="period-label">
        {period.start} – {period.end} (UTC days), compared with the {daysBetween(period.start, period.end)} days before.
      </p>
      <dl class="figures" data-testid="figures">
        <Figure label="Clicks" value={count(now.clicks)} now={now.clicks} before={before.clicks} />
        <Figure label="Leads" value={count(now.leads)} now={now.leads} before={before.leads} />
        <Figure label="Paying customers" value={count(now.customers)} now={now.customers} before={before.customers} />
        <Figure
          label="Revenue"
          value={moneyList(now.revenue, currency)}
          now={inCurrency(now, 'revenue', currency)}
          before={inCurrency(before, 'revenue', currency)}
        />
        <Figure
          label="Commissions"
          value={moneyList(now.commissions, currency)}
          now={inCurrency(now, 'commissions', currency)}
          before={inCurrency(before, 'commissions', currency)}
        />
      </dl>
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
          {top.length === 0 ? (
            <p class="muted">No partner brought revenue in {currency} in this period.</p>
          ) : (
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <th scope="col">Clicks</th>
                  <th scope="col">Customers</th>
                  <th scope="col">Revenue</th>
                  <th scope="col">Commission</th>
                </tr>
              </thead>
              <tbody>
                {top.map((t) => (
                  <tr>
                    <th scope="row">
                      <a href={programPath(program, `/partners/${t.partner_id}`)}>{names.get(t.partner_id) ?? t.partner_id}</a>
                    </th>
                    <td>{count(t.clicks)}</td>
                    <td>{count(t.customers)}</td>
                    <td>{formatMoney(t.revenue, currency)}</td>
                    <td>{formatMoney(t.commission, currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
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
