import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expectAxeClean } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { expect, test, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's overview as drawn in real Chromium (ingest/docs/dashboard.md#the-overviews-chart):
 * on a 7-day period the chart's x axis is labelled in days, never hours; its legend has the five
 * figures and shows the period's totals (the stats API's) until a day is hovered; a refused period
 * keeps the page with the message beside the field; axe finds nothing, at a phone's width too.
 * The same rules through HTTP: ingest/test/dashboard/overview.test.ts.
 */

const usd = (cents: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(cents / 100);
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The legend's rows as [label, value]: the x series ("Showing") first, then one per figure. */
const legendOf = (page: Page) =>
  page
    .locator('#chart .u-legend .u-series')
    .evaluateAll((rows) => rows.map((r) => [r.querySelector('.u-label')?.textContent, r.querySelector('.u-value')?.textContent]));

/** The x axis's labels as the chart drew them on its canvas. */
async function ticksOf(page: Page): Promise<string[]> {
  await expect(page.locator('#chart')).toHaveAttribute('data-ticks', /\d/);
  return ((await page.locator('#chart').getAttribute('data-ticks')) ?? '').split(' ');
}

test('the overview charts five figures per day, labelled in days, its legend showing the totals until a day is hovered', async ({
  browser,
  api,
  demo,
}) => {
  const program = await ownProgram(api);
  const partner = (
    await api.post('/v1/partners', { program_id: program.id, first_name: 'Chloe', last_name: 'Chart', email: uniqueEmail('chloe') })
  ).data[0];
  for (let i = 0; i < 3; i++) await api.post('/v1/clicks', { partner_id: partner.id });
  const customer = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('c') })).data[0];
  const today = dayOf(Date.now());
  const start = dayOf(Date.now() - 6 * DAY_MS);
  const threeDaysAgo = dayOf(Date.now() - 3 * DAY_MS);
  await api.post('/v1/transactions', { customer_id: customer.id, amount: 4900, created_at: `${threeDaysAgo}T10:00:00.000Z` });
  const big = (await api.post('/v1/transactions', { customer_id: customer.id, amount: 10_000 })).data[0];
  await api.put(`/v1/transactions/${big.id}/refund`, { amount: 1000 });
  const stats = (await api.get(`/v1/programs/${program.id}/stats?start=${start}&end=${today}`)).data as any;
  expect(stats.totals.commissions.USD).toBeGreaterThan(0);

  const page = await ownerPage(browser, demo, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}?days=7`);
  await expect(page.locator('#chart canvas')).toBeVisible();
  // Its JavaScript (dashboard.js and uPlot), as svc sends it gzip-compressed: under 30 KB.
  const scripts = await page.locator('script[src]').evaluateAll((tags) => tags.map((tag) => (tag as HTMLScriptElement).src));
  expect(scripts).toHaveLength(2);
  let sent = 0;
  for (const src of scripts) {
    const res = await page.request.get(src, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.headers()['content-encoding']).toBe('gzip');
    sent += Number(res.headers()['content-length']);
  }
  expect(sent).toBeGreaterThan(0);
  expect(sent).toBeLessThan(30 * 1024);

  // Days on the x axis, as YYYY-MM-DD, each within the period and none twice: no hour, no ":00".
  const ticks = await ticksOf(page);
  expect(ticks.length).toBeGreaterThanOrEqual(4);
  for (const tick of ticks) {
    expect(tick).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(tick >= start && tick <= today, tick).toBe(true);
  }
  expect(new Set(ticks).size).toBe(ticks.length);
  expect(ticks.join(' ')).not.toContain(':');

  // Five figures in the legend, showing the period's totals (the stats API's) before any hover.
  const totals = [
    ['Showing', `totals of ${start} – ${today}`],
    ['Clicks', String(stats.totals.clicks)],
    ['Leads', String(stats.totals.leads)],
    ['Customers', String(stats.totals.customers)],
    ['Revenue', usd(stats.totals.revenue.USD)],
    ['Commissions', usd(stats.totals.commissions.USD)],
  ];
  expect(await legendOf(page)).toEqual(totals);
  expect(totals.slice(1).map(([, value]) => value)).toEqual(['3', '1', '1', usd(13_900), usd(2_780)]);

  // Hovering the last day shows its figures; leaving the chart, the totals again.
  const plot = (await page.locator('#chart .u-over').boundingBox())!;
  await page.mouse.move(plot.x + plot.width - 2, plot.y + plot.height / 2);
  const last = stats.days.at(-1);
  await expect
    .poll(() => legendOf(page))
    .toEqual([
      ['Showing', today],
      ['Clicks', String(last.clicks)],
      ['Leads', String(last.leads)],
      ['Customers', String(last.customers)],
      ['Revenue', usd(last.revenue.USD ?? 0)],
      ['Commissions', usd(last.commissions.USD ?? 0)],
    ]);
  await page.mouse.move(plot.x + plot.width / 2, plot.y + plot.height + 150);
  await expect.poll(() => legendOf(page)).toEqual(totals);

  await expectAxeClean(page);
  await page.screenshot({ path: path.join(os.tmpdir(), `overview-desktop-${test.info().project.name}.png`), fullPage: true });

  // At a phone's width: fewer labels, still days, and still clean.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(async () => (await ticksOf(page)).length).toBeLessThan(ticks.length);
  for (const tick of await ticksOf(page)) expect(tick).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  await expectAxeClean(page);
  // The same figures as a table (what screen readers read), open: it scrolls sideways, reachable by keyboard.
  await page.getByText('Figures per day as a table').click();
  await expect(page.getByRole('table', { name: `Figures per day from ${start} to ${today}` })).toBeVisible();
  await expectAxeClean(page);
  await page.screenshot({ path: path.join(os.tmpdir(), `overview-phone-${test.info().project.name}.png`), fullPage: true });
});

test('a period that cannot be shown keeps the overview, with the message beside the field and the days as typed', async ({
  browser,
  api,
  demo,
}) => {
  const program = await ownProgram(api);
  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}`);
  await page.getByLabel('From', { exact: true }).fill('2026-03-31');
  await page.getByLabel('to', { exact: true }).fill('2026-02-30');
  await page.getByRole('button', { name: 'Show' }).click();

  await expect(page.getByRole('alert')).toHaveText(
    'Those days cannot be shown: see the message beside the field. These are the last 30 days instead.',
  );
  const end = page.getByLabel('to', { exact: true });
  await expect(end).toHaveValue('2026-02-30');
  await expect(end).toHaveAttribute('aria-invalid', 'true');
  await expect(end).toHaveAccessibleDescription('YYYY-MM-DD Must be a real date between 1000-01-01 and 8999-12-31.');
  await expect(page.getByLabel('From', { exact: true })).toHaveValue('2026-03-31');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expectAxeClean(page);
  await page.screenshot({ path: path.join(os.tmpdir(), `overview-refused-${test.info().project.name}.png`), fullPage: true });
});
