import { Window } from 'happy-dom';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/money.js';
import { addDays, todayUtc } from '../../src/resources/stats/stats.schema.js';
import { type Agent, dashboardAgent } from '../support/dashboard.js';
import { type ApiObject, createCustomer, createPartner, createProgram, createTransaction } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The dashboard's overview through HTTP (ingest/docs/dashboard.md#the-overviews-chart): the chart's
 * data is the stats API's, commissions included, with the period's totals for its legend; top
 * partners are named, never shown by id; a period that cannot be shown keeps the page, says why
 * beside the field and keeps what was typed. The chart as drawn: e2e/dashboard-overview.spec.ts.
 */

const usd = (cents: number) => formatMoney(cents, 'USD');
const parse = (html: string) => new new Window().DOMParser().parseFromString(html, 'text/html');
type Page = ReturnType<typeof parse>;
const text = (page: Page, selector: string) => page.querySelector(selector)?.textContent?.trim();

describe('the overview', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  let agent: Agent;
  let program: ApiObject;
  let overview: string;
  const today = todayUtc();
  const weekAgo = addDays(today, -6);

  /**
   * A program of the test's own whose partner Emma Stone brought a click and two payments (one two
   * days ago, one today, partly refunded), and whose partner Gus Gone brought a payment and was then deleted.
   */
  beforeAll(async () => {
    ({ agent } = await dashboardAgent(t, org));
    program = await createProgram(t, org);
    overview = `/dashboard/programs/${program.id}`;
    const emma = await createPartner(t, org, { program_id: program.id, first_name: 'Emma', last_name: 'Stone' });
    const gus = await createPartner(t, org, { program_id: program.id, first_name: 'Gus', last_name: 'Gone' });
    const click = await t.request.post('/v1/clicks').set(org.auth).send({ partner_id: emma.id });
    expect(click.status, JSON.stringify(click.body)).toBe(201);
    const ana = await createCustomer(t, org, emma);
    await createTransaction(t, org, ana, { amount: 4_900, created_at: `${addDays(today, -2)}T12:00:00.000Z` });
    const big = await createTransaction(t, org, ana, { amount: 10_000 });
    expect((await t.request.put(`/v1/transactions/${big.id}/refund`).set(org.auth).send({ amount: 1_000 })).status).toBe(200);
    await createTransaction(t, org, await createCustomer(t, org, gus), { amount: 2_500 });
    expect((await t.request.delete(`/v1/partners/${gus.id}`).set(org.auth)).status).toBe(200);
  });

  it("gives the chart each day's five figures and the period's totals, as the stats API has them", async () => {
    const api = await t.request.get(`/v1/programs/${program.id}/stats`).set(org.auth).query({ start: weekAgo, end: today });
    expect(api.status).toBe(200);
    const stats = api.body.data;
    expect(stats.totals.commissions.USD).toBeGreaterThan(0);

    const res = await agent.get(overview).query({ days: '7' });
    expect(res.status).toBe(200);
    const series = JSON.parse(parse(res.text).querySelector('#chart')!.getAttribute('data-series')!);
    const perDay = (pick: (d: ApiObject) => unknown) => stats.days.map(pick);
    expect(series.dates).toEqual(perDay((d) => d.date));
    expect(series.clicks).toEqual(perDay((d) => d.clicks));
    expect(series.leads).toEqual(perDay((d) => d.leads));
    expect(series.customers).toEqual(perDay((d) => d.customers));
    expect(series.revenue).toEqual(perDay((d) => d.revenue.USD ?? 0));
    expect(series.commissions).toEqual(perDay((d) => d.commissions.USD ?? 0));
    // Two days with commissions: two days ago and today (net of today's refund entry).
    expect(series.commissions.filter((cents: number) => cents !== 0)).toHaveLength(2);
    expect(series.money.commissions).toEqual(series.commissions.map(usd));
    // The legend's totals, before any day is hovered, are the period's.
    expect(series.totals).toEqual({
      clicks: String(stats.totals.clicks),
      leads: String(stats.totals.leads),
      customers: String(stats.totals.customers),
      revenue: usd(stats.totals.revenue.USD),
      commissions: usd(stats.totals.commissions.USD),
    });
    expect(series.totals.revenue).toBe(usd(4_900 + 10_000 - 1_000 + 2_500));
    expect(series).toMatchObject({ currency: 'USD', digits: 2 });
  });

  it('shows the same figures in the table of the chart, and names the top partners without showing an id', async () => {
    const stats = (await t.request.get(`/v1/programs/${program.id}/stats`).set(org.auth).query({ start: weekAgo, end: today })).body.data;
    const res = await agent.get(overview).query({ days: '7' });
    const page = parse(res.text);
    const rows = [...page.querySelectorAll('.chart-card table.data tbody tr')].map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual(
      stats.days.map((d: ApiObject) => [
        d.date,
        String(d.clicks),
        String(d.leads),
        String(d.customers),
        usd(d.revenue.USD ?? 0),
        usd(d.commissions.USD ?? 0),
      ]),
    );
    expect(rows.find(([date]) => date === addDays(today, -2))!.slice(4)).toEqual([usd(4_900), usd(980)]);

    const top = page.querySelector('section[aria-labelledby="top-title"] table.data')!;
    expect(text(page, 'section[aria-labelledby="top-title"] caption')).toBe('Top partners by revenue');
    const named = [...top.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent));
    expect(named).toEqual([
      ['Emma Stone', '1', '1', usd(13_900), usd(2_780)],
      ['Gus Gone (deleted)', '0', '1', usd(2_500), usd(500)],
    ]);
    // Emma links to her page; the deleted partner to nothing.
    const links = [...top.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([['Emma Stone', expect.stringMatching(new RegExp(`^${overview}/partners/part_\\w+$`))]]);
    expect(page.querySelector('main')!.textContent).not.toMatch(/\bpart_\w+/);
  });

  it('asks for custom days as YYYY-MM-DD text, never a date input shown in the system format', async () => {
    const page = parse((await agent.get(overview).query({ start: '2026-01-01', end: '2026-01-31' })).text);
    for (const [name, value] of [
      ['start', '2026-01-01'],
      ['end', '2026-01-31'],
    ]) {
      const input = page.querySelector(`form.period input[name="${name}"]`)!;
      expect(input.getAttribute('type')).toBe('text');
      expect(input.getAttribute('value')).toBe(value);
      expect(input.getAttribute('pattern')).toBe('\\d{4}-\\d{2}-\\d{2}');
      expect(input.getAttribute('placeholder')).toBe('YYYY-MM-DD');
      expect(input.getAttribute('inputmode')).toBe('numeric');
      expect(page.getElementById(input.getAttribute('aria-describedby')!)!.textContent).toBe('YYYY-MM-DD');
    }
    expect(page.querySelectorAll('input[type="date"]')).toHaveLength(0);
    expect(text(page, '.period-label')).toBe('2026-01-01 – 2026-01-31 (UTC days), compared with the 31 days before.');
  });

  it('keeps the page when a period cannot be shown: the message beside the field, what was typed, the last 30 days instead', async () => {
    const cases = [
      { query: { start: '2026-02-01', end: '2026-01-01' }, field: 'start', message: 'Must not be after end.' },
      { query: { start: '01/02/2026', end: '2026-01-31' }, field: 'start', message: 'Must be a date as YYYY-MM-DD.' },
      {
        query: { start: '2026-01-01', end: '2026-02-30' },
        field: 'end',
        message: 'Must be a real date between 1000-01-01 and 8999-12-31.',
      },
      { query: { start: '2024-01-01', end: '2026-01-01' }, field: 'start', message: 'A period is at most 366 days.' },
    ];
    for (const { query, field, message } of cases) {
      const res = await agent.get(overview).query(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      const page = parse(res.text);
      const input = page.querySelector(`form.period input[name="${field}"]`)!;
      expect(input.getAttribute('aria-invalid')).toBe('true');
      expect(text(page, `#${field}-error`)).toBe(message);
      expect(input.getAttribute('aria-describedby')).toBe(`${field}-hint ${field}-error`);
      expect(page.querySelector('form.period input[name="start"]')!.getAttribute('value')).toBe(query.start);
      expect(page.querySelector('form.period input[name="end"]')!.getAttribute('value')).toBe(query.end);
      expect(text(page, 'form.period [role="alert"]')).toBe(
        'Those days cannot be shown: see the message beside the field. These are the last 30 days instead.',
      );
      expect(text(page, '.period-label')).toBe(`${addDays(today, -29)} – ${today} (UTC days), compared with the 30 days before.`);
      // The figures are there, no preset is marked as chosen, and the API's raw wording is not on the page.
      expect(page.querySelector('[data-testid="figures"]')).not.toBeNull();
      expect(page.querySelectorAll('.chip[aria-current]')).toHaveLength(0);
      expect(res.text).not.toContain('Invalid start');
      expect(res.text).not.toContain('Cannot do that');
    }

    // Not a preset (a crafted link), or a parameter the page does not take: said at the top of the picker.
    const odd = await agent.get(overview).query({ days: '5' });
    expect(odd.status).toBe(400);
    expect(text(parse(odd.text), 'form.period [role="alert"]')).toBe(
      'A period is 7, 30 or 90 days, or the days you type. These are the last 30 days instead.',
    );
    const unknown = await agent.get(overview).query({ colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(text(parse(unknown.text), 'form.period [role="alert"]')).toBe(
      'Unknown query parameter: colour. These are the last 30 days instead.',
    );
  });
});
