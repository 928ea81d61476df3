import { describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/ids.js';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  createClick,
  createCustomer,
  createLink,
  createPartner,
  createProgram,
  createTransaction,
  partnerStats,
  quietProgram,
  type TestOrg,
} from '../support/factories.js';
import { resource, useTestApp } from '../support/fixture.js';
import { createTestApp, warmPool } from '../support/harness.js';
import { countedPayments, rolledUpPayments } from '../support/refund-figures.js';
import { DAY_MS } from '../support/time.js';

/**
 * GET /v1/programs/:id/stats: a program's (or one partner's) clicks, leads, customers, revenue
 * and commissions per UTC day, read from the trigger-kept daily_stats of migration 0011. The
 * figures are checked against what the API's own answers say: the clicks it recorded, and the
 * customers, transactions and commissions its lists show, each counted on its UTC day.
 */

const STATS_FIELDS = ['days', 'end', 'partner_id', 'program_id', 'start', 'totals'];
const FIGURE_FIELDS = ['clicks', 'commissions', 'customers', 'leads', 'revenue'];

type Money = Record<string, number>;
interface Figures {
  clicks: number;
  leads: number;
  customers: number;
  revenue: Money;
  commissions: Money;
}
interface Day extends Figures {
  date: string;
}
/** A click as far as the stats are concerned: whose it is and when it was recorded. */
interface ClickFact {
  id: string;
  partner_id: string;
  created_at: string;
}

const todayUtc = () => new Date().toISOString().slice(0, 10);
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00.000Z`) + n * DAY_MS).toISOString().slice(0, 10);
const dayOf = (timestamp: string) => new Date(timestamp).toISOString().slice(0, 10);
const zero = (): Figures => ({ clicks: 0, leads: 0, customers: 0, revenue: {}, commissions: {} });
const addMoney = (into: Money, currency: string, cents: number) => {
  into[currency] = (into[currency] ?? 0) + cents;
};

/**
 * Money without its zero amounts. The service answers a currency whose amounts summed to 0
 * (a payment deleted the day it was made, a commission-only day's revenue) as `{CUR: 0}`, which
 * nothing in the lists can tell apart from no amount at all, so both sides are compared without.
 */
const nonZero = (money: Money): Money => Object.fromEntries(Object.entries(money).filter(([, cents]) => cents !== 0));
const comparable = <F extends Figures>(f: F): F => ({ ...f, revenue: nonZero(f.revenue), commissions: nonZero(f.commissions) });

describe('GET /v1/programs/:id/stats', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });

  const stats = (programId: string, query: Record<string, string> = {}, who: TestOrg = org) =>
    t.request.get(`/v1/programs/${programId}/stats`).set(who.auth).query(query);

  /** The stats (expects 200), with the exact documented shape checked. */
  async function statsOf(
    programId: string,
    query: Record<string, string> = {},
  ): Promise<{ totals: Figures; days: Day[]; [k: string]: unknown }> {
    const res = await stats(programId, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(STATS_FIELDS);
    expect(Object.keys(data.totals).sort()).toEqual(FIGURE_FIELDS);
    for (const day of data.days) expect(Object.keys(day).sort()).toEqual(['date', ...FIGURE_FIELDS].sort());
    // One entry per day of the period, oldest first, none missing.
    expect(data.days.map((d: Day) => d.date)).toEqual(Array.from({ length: data.days.length }, (_, i) => addDays(data.start, i)));
    expect(data.days.at(-1)?.date).toBe(data.end);
    return data;
  }

  /** Every item of a list, page by page (100 at a time, oldest first). */
  async function listAll(path: string, query: Record<string, string>): Promise<ApiObject[]> {
    const items: ApiObject[] = [];
    for (let after: string | undefined; ; ) {
      const res = await resource(t, path, org).list({ ...query, limit: '100', order: 'asc', ...(after ? { starting_after: after } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // The customer list nests its page one level deeper (`data.data`), as the Partnership Program
      // API has it.
      items.push(...(Array.isArray(res.body.data) ? res.body.data : res.body.data.data));
      if (!res.body.has_more) return items;
      after = items.at(-1)!.id;
    }
  }

  /**
   * What the stats must say, from the API's own records: the clicks given (as recorded), and the
   * customers, transactions and commissions of the program's lists (live ones only, as listed).
   * Leads: every customer by the day it was created. Customers: those not leads, by the day they
   * became active (`active_at`). Revenue: each payment net of refunds, by its day. Commissions:
   * those not rejected or refunded (refund entries included, negative), by their day, in their
   * transaction's currency (the program's for one without a transaction).
   */
  async function expectedStats(
    program: ApiObject,
    period: { start: string; end: string; partner_id?: string },
    clicks: ClickFact[],
  ): Promise<{ totals: Figures; days: Day[] }> {
    const filter = { program_id: program.id, ...(period.partner_id ? { partner_id: period.partner_id } : {}) };
    const [customers, transactions, commissions] = await Promise.all([
      listAll('/v1/customers', filter),
      listAll('/v1/transactions', { program_id: program.id }),
      listAll('/v1/commissions', filter),
    ]);
    const currencyOf = new Map(transactions.map((x) => [x.id, x.currency as string]));
    const days = new Map<string, Day>();
    for (let d = period.start; d <= period.end; d = addDays(d, 1)) days.set(d, { date: d, ...zero() });
    const totals = zero();
    const count = (timestamp: string, apply: (f: Figures) => void) => {
      const day = days.get(dayOf(timestamp));
      if (!day) return;
      apply(day);
      apply(totals);
    };

    for (const click of clicks) {
      if (period.partner_id && click.partner_id !== period.partner_id) continue;
      count(click.created_at, (f) => f.clicks++);
    }
    for (const c of customers) {
      count(c.created_at, (f) => f.leads++);
      if (c.status !== 'lead') count(c.active_at ?? c.created_at, (f) => f.customers++);
    }
    for (const x of transactions) {
      if (period.partner_id && x.partner_id !== period.partner_id) continue;
      count(x.created_at, (f) => addMoney(f.revenue, x.currency, x.amount - x.refunded_amount));
    }
    for (const c of commissions) {
      if (c.status === 'rejected' || c.status === 'refunded') continue;
      const currency = c.transaction_id === null ? program.currency_code : currencyOf.get(c.transaction_id);
      expect(currency, `the currency of commission ${c.id} (its transaction is listed)`).toBeDefined();
      count(c.created_at, (f) => addMoney(f.commissions, currency!, c.amount));
    }
    return { totals: comparable(totals), days: [...days.values()].map(comparable) };
  }

  /** The stats of the period equal the expected ones (money compared without its zero amounts). */
  async function expectStatsMatch(program: ApiObject, period: { start: string; end: string; partner_id?: string }, clicks: ClickFact[]) {
    const [actual, expected] = await Promise.all([statsOf(program.id, period), expectedStats(program, period, clicks)]);
    expect(actual).toMatchObject({ program_id: program.id, partner_id: period.partner_id ?? null, start: period.start, end: period.end });
    expect(comparable(actual.totals)).toEqual(expected.totals);
    expect(actual.days.map(comparable)).toEqual(expected.days);
    return actual;
  }

  const partnerOf = (program: ApiObject, fields: Record<string, unknown> = {}) =>
    createPartner(t, org, { program_id: program.id, group_id: program.default_group_id, ...fields });

  /** A click through POST /v1/clicks, as the API recorded it. */
  const apiClick = async (body: Record<string, unknown>): Promise<ClickFact> => {
    const click = await createClick(t, org, body);
    return { id: click.id, partner_id: click.partner_id, created_at: click.created_at };
  };

  /**
   * A click through the script's endpoint. Its answer carries no timestamp and no API lists
   * clicks, so when it was recorded is read from its row.
   */
  async function trackedClick(program: ApiObject, link: ApiObject, userAgent: string): Promise<ClickFact> {
    const res = await t.request
      .post('/v1/track/click')
      .set('Content-Type', 'text/plain')
      .set('User-Agent', userAgent)
      .send(JSON.stringify({ key: program.public_key, param: link.param, value: link.value }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = await t.storage.db
      .selectFrom('clicks')
      .select(['id', 'partner_id', 'created_at'])
      .where('id', '=', res.body.data.click_id)
      .executeTakeFirstOrThrow();
    return { id: row.id, partner_id: row.partner_id, created_at: new Date(row.created_at).toISOString() };
  }

  const browser = (n: number) =>
    `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${120 + n}.0.0.0 Safari/537.36`;

  async function commission(partner: ApiObject, amount: number, fields: Record<string, unknown> = {}): Promise<ApiObject> {
    const res = await t.request
      .post('/v1/commissions')
      .set(org.auth)
      .send({ program_id: partner.program_id, partner_id: partner.id, amount, ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0];
  }
  const ok = async (req: PromiseLike<{ status: number; body: unknown }>, status = 200) => {
    const res = await req;
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res;
  };

  it('adds up a scripted cycle per UTC day exactly as the lists say, for the program and for each partner', async () => {
    const today = todayUtc();
    const [d10, d3] = [addDays(today, -10), addDays(today, -3)];
    const program = await createProgram(t, org, { currency_code: 'USD' });
    const alice = await partnerOf(program);
    const bob = await partnerOf(program);
    const aliceLink = await createLink(t, org, alice);
    const bobLink = await createLink(t, org, bob);

    // Clicks: by partner id, by link, and through the script (a repeat visit is the same click);
    // sent at once, so that the click writer records several partners' clicks in one INSERT.
    const clicks = await Promise.all([
      apiClick({ partner_id: alice.id }),
      apiClick({ partner_id: alice.id, link_id: aliceLink.id }),
      apiClick({ param: aliceLink.param, value: aliceLink.value }),
      apiClick({ param: bobLink.param, value: bobLink.value, program_id: program.id }),
      apiClick({ partner_id: bob.id }),
      trackedClick(program, aliceLink, browser(1)),
      trackedClick(program, bobLink, browser(2)),
    ]);
    const repeat = await trackedClick(program, aliceLink, browser(1));
    expect(repeat.id).toBe(clicks[5].id);
    clicks.push(await trackedClick(program, aliceLink, browser(3)));

    // Customers: a lead today; a lead of 10 days ago who pays 3 days ago; a customer active since
    // 10 days ago; a lead deleted again.
    const leadToday = await createCustomer(t, org, alice, { click_id: clicks[0].id });
    const late = await createCustomer(t, org, alice, { created_at: `${d10}T08:00:00.000Z` });
    const early = await createCustomer(t, org, bob, { status: 'active', created_at: `${d10}T20:00:00.000Z` });
    expect(early.active_at).toBe(`${d10}T20:00:00.000Z`);
    const gone = await createCustomer(t, org, bob);
    await ok(resource(t, '/v1/customers', org).del(gone.id));

    // Payments on the default flow (20 %, scheduled): one backdated (its customer becomes active
    // that day), one refunded in part today, one deleted, one in another currency.
    const paid = await createTransaction(t, org, late, { amount: 10_000, created_at: `${d3}T12:00:00.000Z` });
    expect((await resource(t, '/v1/customers', org).get(late.id)).body.data).toMatchObject({
      status: 'active',
      active_at: `${d3}T12:00:00.000Z`,
    });
    const refunded = await createTransaction(t, org, early, { amount: 5_000, created_at: `${d10}T21:00:00.000Z` });
    await ok(t.request.put(`/v1/transactions/${refunded.id}/refund`).set(org.auth).send({ amount: 1_500 }));
    const deleted = await createTransaction(t, org, leadToday, { amount: 7_000 });
    await ok(resource(t, '/v1/transactions', org).del(deleted.id));
    const euros = await createTransaction(t, org, early, { amount: 2_000, currency: 'eur', created_at: `${d3}T23:59:59.999Z` });
    expect(euros.currency).toBe('EUR');

    // Commissions by hand: approved and backdated, rejected, pending then rejected, and one moved
    // to another day.
    await commission(alice, 1_234, { status: 'approved', created_at: `${d10}T00:00:00.000Z` });
    await commission(bob, 999, { status: 'rejected' });
    const dropped = await commission(alice, 500);
    await ok(resource(t, '/v1/commissions', org).put(dropped.id, { status: 'rejected' }));
    const moved = await commission(bob, 700, { status: 'approved' });
    await ok(resource(t, '/v1/commissions', org).put(moved.id, { created_at: `${d3}T06:00:00.000Z` }));

    // What the lists show, spelled out: the partial refund, the deleted payment, the rejections.
    const listed = await listAll('/v1/transactions', { program_id: program.id });
    expect(listed.map((x) => x.id).sort()).toEqual([paid.id, refunded.id, euros.id].sort());
    expect(listed.find((x) => x.id === refunded.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1_500 });
    const rewards = await listAll('/v1/commissions', { program_id: program.id });
    expect(rewards.filter((c) => c.transaction_id === deleted.id).map((c) => c.status)).toEqual(['rejected']);

    const end = todayUtc();
    const program10 = await expectStatsMatch(program, { start: d10, end }, clicks);
    // The figures written out for the two backdated days, which no midnight can move.
    expect(comparable(program10.days[0])).toEqual({
      date: d10,
      clicks: 0,
      leads: 2,
      customers: 1,
      revenue: { USD: 3_500 },
      commissions: { USD: 1_234 + 1_000 },
    });
    expect(comparable(program10.days[7])).toEqual({
      date: d3,
      clicks: 0,
      leads: 0,
      customers: 1,
      revenue: { USD: 10_000, EUR: 2_000 },
      commissions: { USD: 2_000 + 700, EUR: 400 },
    });
    expect(program10.totals.clicks).toBe(8);
    expect(program10.totals.leads).toBe(3);

    const perPartner: Awaited<ReturnType<typeof expectStatsMatch>>[] = [];
    for (const partner of [alice, bob])
      perPartner.push(await expectStatsMatch(program, { start: d10, end, partner_id: partner.id }, clicks));
    // The partners' figures add up to the program's.
    const sum = (f: (s: Figures) => number) => perPartner.reduce((n, s) => n + f(s.totals), 0);
    expect(sum((s) => s.clicks)).toBe(program10.totals.clicks);
    expect(sum((s) => s.leads)).toBe(program10.totals.leads);
    expect(sum((s) => s.customers)).toBe(program10.totals.customers);
    for (const currency of ['USD', 'EUR']) {
      expect(sum((s) => s.revenue[currency] ?? 0)).toBe(program10.totals.revenue[currency] ?? 0);
      expect(sum((s) => s.commissions[currency] ?? 0)).toBe(program10.totals.commissions[currency] ?? 0);
    }
    // The period holds everything: each partner's totals agree with its partner stats (kept by
    // other triggers, migration 0004), currencies summed as those are.
    for (const [i, partner] of [alice, bob].entries()) {
      const totals = perPartner[i].totals;
      const cents = (m: Money) => Object.values(m).reduce((a, b) => a + b, 0);
      expect(await partnerStats(t, org, partner.id)).toEqual({
        total_clicks: totals.clicks,
        total_customers: totals.customers,
        total_revenue: cents(totals.revenue),
        total_commission: cents(totals.commissions),
      });
    }

    // A narrower period: only its days.
    await expectStatsMatch(program, { start: d3, end: d3 }, clicks);
    await expectStatsMatch(program, { start: addDays(d10, -5), end: addDays(d10, -1) }, clicks);
  });

  it('counts a backdated record on the UTC day of its created_at, whatever the offset it was given with', async () => {
    const program = await quietProgram(t, org, { currency_code: 'USD' });
    const partner = await partnerOf(program);
    // 23:30 in New York on 9 March is 10 March in UTC; 01:30 in Athens on 10 March is 9 March.
    const lead = await createCustomer(t, org, partner, { created_at: '2025-03-09T23:30:00-05:00' });
    expect(lead.created_at).toBe('2025-03-10T04:30:00.000Z');
    const active = await createCustomer(t, org, partner, { status: 'active', created_at: '2025-03-10T01:30:00+02:00' });
    await createTransaction(t, org, active, { amount: 4_200, created_at: '2025-03-10T01:59:59.999+02:00' });
    await createTransaction(t, org, active, { amount: 800, created_at: '2025-03-10T00:00:00.000Z' });
    // The first and last millisecond of a day, a leap day and a year's last day.
    await commission(partner, 11, { created_at: '2025-03-11T00:00:00.000Z' });
    await commission(partner, 22, { created_at: '2025-03-11T23:59:59.999Z' });
    await commission(partner, 33, { created_at: '2024-02-29T12:00:00Z' });
    await commission(partner, 44, { created_at: '2025-01-01T00:30:00+01:00' });

    const march = await statsOf(program.id, { start: '2025-03-08', end: '2025-03-12' });
    expect(march).toMatchObject({ program_id: program.id, partner_id: null, start: '2025-03-08', end: '2025-03-12' });
    expect(march.days.map(comparable)).toEqual([
      { date: '2025-03-08', ...zero() },
      { date: '2025-03-09', clicks: 0, leads: 1, customers: 1, revenue: { USD: 4_200 }, commissions: {} },
      { date: '2025-03-10', clicks: 0, leads: 1, customers: 0, revenue: { USD: 800 }, commissions: {} },
      { date: '2025-03-11', clicks: 0, leads: 0, customers: 0, revenue: {}, commissions: { USD: 33 } },
      { date: '2025-03-12', ...zero() },
    ]);
    expect(comparable(march.totals)).toEqual({ clicks: 0, leads: 2, customers: 1, revenue: { USD: 5_000 }, commissions: { USD: 33 } });

    const year = await statsOf(program.id, { start: '2024-02-29', end: '2025-01-01' });
    expect(year.days).toHaveLength(308);
    const nonZeroDays = year.days.map(comparable).filter((d) => d.leads || d.customers || d.clicks || Object.keys(d.commissions).length);
    expect(nonZeroDays.map((d) => [d.date, d.commissions])).toEqual([
      ['2024-02-29', { USD: 33 }],
      ['2024-12-31', { USD: 44 }],
    ]);
    expect(comparable(year.totals).commissions).toEqual({ USD: 77 });
  });

  it('moves figures with the record: a payment refunded or deleted, a commission re-dated or rejected, a customer deleted', async () => {
    const program = await quietProgram(t, org, { currency_code: 'USD' });
    const partner = await partnerOf(program);
    const period = { start: '2025-06-01', end: '2025-06-05' };
    const customer = await createCustomer(t, org, partner, { created_at: '2025-06-01T10:00:00Z' });
    const payment = await createTransaction(t, org, customer, { amount: 9_000, created_at: '2025-06-02T10:00:00Z' });
    const reward = await commission(partner, 900, {
      customer_id: customer.id,
      transaction_id: payment.id,
      created_at: '2025-06-02T10:00:00Z',
    });
    const day = async (date: string) => comparable((await statsOf(program.id, period)).days.find((d) => d.date === date)!);

    expect(await day('2025-06-01')).toMatchObject({ leads: 1, customers: 0 });
    expect(await day('2025-06-02')).toMatchObject({ customers: 1, revenue: { USD: 9_000 }, commissions: { USD: 900 } });

    await ok(t.request.put(`/v1/transactions/${payment.id}/refund`).set(org.auth).send({ amount: 4_000 }));
    expect((await day('2025-06-02')).revenue).toEqual({ USD: 5_000 });
    // The refund rate rule's figures (migration 0019) move with it.
    expect(await rolledUpPayments(t.storage.db, program.id)).toEqual([
      { partner_id: partner.id, day: '2025-06-02', currency: 'USD', payments: 1, refunded: 4_000, revenue: 5_000 },
    ]);

    await ok(resource(t, '/v1/commissions', org).put(reward.id, { created_at: '2025-06-04T10:00:00Z' }));
    const afterMove = await statsOf(program.id, period);
    const commissionsByDay = Object.fromEntries(afterMove.days.map((d) => [d.date, nonZero(d.commissions)]));
    // The reward moved; the refund's entry (−400, written today) stays on its own day, outside the period.
    const expected = await expectedStats(program, period, []);
    expect(afterMove.days.map(comparable)).toEqual(expected.days);
    expect(commissionsByDay['2025-06-04']).toEqual({ USD: 900 });

    await ok(resource(t, '/v1/commissions', org).put(reward.id, { status: 'rejected' }));
    expect((await day('2025-06-04')).commissions).toEqual({});

    await ok(resource(t, '/v1/transactions', org).del(payment.id));
    expect((await day('2025-06-02')).revenue).toEqual({});
    expect(await rolledUpPayments(t.storage.db, program.id)).toEqual([]);

    await ok(resource(t, '/v1/customers', org).del(customer.id));
    expect(await day('2025-06-01')).toMatchObject({ leads: 0 });
    expect(await day('2025-06-02')).toMatchObject({ customers: 0 });
    expect(comparable((await statsOf(program.id, period)).totals)).toEqual(zero());
  });

  it("leaves the figures as they were when a write is refused, and counts only the program's own records", async () => {
    const program = await quietProgram(t, org, { currency_code: 'USD' });
    const neighbour = await createProgram(t, org, { currency_code: 'USD' });
    const partner = await partnerOf(program);
    const customer = await createCustomer(t, org, partner);
    const payment = await createTransaction(t, org, customer, { amount: 3_000, charge_id: 'ch_once' });
    const before = await statsOf(program.id);

    // A repeated charge (409) and a refund of more than is left (400) change nothing.
    const again = await t.request
      .post('/v1/transactions')
      .set(org.auth)
      .send({ amount: 3_000, customer_id: customer.id, charge_id: 'ch_once' });
    expect(again.status).toBe(409);
    const tooMuch = await t.request.put(`/v1/transactions/${payment.id}/refund`).set(org.auth).send({ amount: 3_001 });
    expect(tooMuch.status).toBe(400);
    // Another program's records, of this organization and of another, count there only.
    const neighbourPartner = await partnerOf(neighbour);
    await createClick(t, org, { partner_id: neighbourPartner.id });
    await createTransaction(t, org, await createCustomer(t, org, neighbourPartner), { amount: 1_000 });
    const theirs = await createPartner(t, other);
    await createClick(t, other, { partner_id: theirs.id });
    await createTransaction(t, other, await createCustomer(t, other, theirs), { amount: 1_000 });

    const after = await statsOf(program.id, { start: before.start as string, end: before.end as string });
    expect(after).toEqual(before);
    expect(before.totals).toMatchObject({ leads: 1, customers: 1, revenue: { USD: 3_000 } });
  });

  describe('the partner_id filter', () => {
    it("answers one partner's figures, null partner_id without it", async () => {
      const program = await quietProgram(t, org, { currency_code: 'USD' });
      const [a, b] = [await partnerOf(program), await partnerOf(program)];
      await Promise.all([apiClick({ partner_id: a.id }), apiClick({ partner_id: b.id }), apiClick({ partner_id: b.id })]);
      const start = addDays(todayUtc(), -1);
      const end = addDays(todayUtc(), 1);
      expect((await statsOf(program.id, { start, end, partner_id: a.id })).totals.clicks).toBe(1);
      expect(await statsOf(program.id, { start, end, partner_id: b.id })).toMatchObject({ partner_id: b.id, totals: { clicks: 2 } });
      expect(await statsOf(program.id, { start, end })).toMatchObject({ partner_id: null, totals: { clicks: 3 } });
    });

    it('a partner of another program, of another organization, or none at all is a 404 on partner_id', async () => {
      const program = await quietProgram(t, org);
      const elsewhere = await createPartner(t, org);
      expect(elsewhere.program_id).not.toBe(program.id);
      const theirs = await createPartner(t, other);
      for (const id of [elsewhere.id, theirs.id, `part_${randomBase62(24)}`, program.id]) {
        expectError(await stats(program.id, { partner_id: id }), 404, 'not_found_error', 'partner_id');
      }
    });

    it("another organization's program, or none, is a 404", async () => {
      expectError(await stats(other.program_id), 404, 'not_found_error');
      expectError(await stats(org.program_id, {}, other), 404, 'not_found_error');
      expectError(await stats(`prg_${randomBase62(24)}`), 404, 'not_found_error');
      // The partner filter does not reveal the other organization's program either.
      expectError(await stats(other.program_id, { partner_id: (await createPartner(t, other)).id }), 404, 'not_found_error');
    });
  });

  describe('the period', () => {
    it.each([
      ['start after end', { start: '2026-03-02', end: '2026-03-01' }, 'start'],
      ['367 days', { start: '2025-01-01', end: '2026-01-02' }, 'start'],
      ['a start in the future without end', { start: addDays(todayUtc(), 2) }, 'start'],
      ['more than 366 days before today without end', { start: addDays(todayUtc(), -366) }, 'start'],
      ['30 February', { start: '2026-02-30', end: '2026-03-01' }, 'start'],
      ['29 February of a common year', { start: '2025-02-01', end: '2025-02-29' }, 'end'],
      ['month 13', { start: '2026-13-01' }, 'start'],
      ['day 00', { end: '2026-01-00' }, 'end'],
      ['no zero padding', { start: '2026-1-01' }, 'start'],
      ['a timestamp', { end: '2026-01-01T00:00:00Z' }, 'end'],
      ['a year before 1000', { start: '0999-12-31', end: '1000-01-01' }, 'start'],
      ['a year after 8999', { start: '8999-12-31', end: '9000-01-01' }, 'end'],
      ['an empty date', { start: '' }, 'start'],
    ])('refuses %s (400 on the parameter)', async (_label, query, param) => {
      expectError(await stats(org.program_id, query as Record<string, string>), 400, 'invalid_request_error', param);
    });

    it('refuses unknown and repeated parameters (400)', async () => {
      expectError(await stats(org.program_id, { period: '30d' }), 400, 'invalid_request_error', 'period');
      expectError(await stats(org.program_id, { start: '2026-01-01', limit: '10' }), 400, 'invalid_request_error', 'limit');
      const twice = await t.request.get(`/v1/programs/${org.program_id}/stats?start=2026-01-01&start=2026-01-02`).set(org.auth);
      expectError(twice, 400, 'invalid_request_error', 'start');
    });

    it('takes a period of exactly 366 days (a leap year) and of one day', async () => {
      const leap = await statsOf(org.program_id, { start: '2024-01-01', end: '2024-12-31' });
      expect(leap.days).toHaveLength(366);
      expect(leap.days[59].date).toBe('2024-02-29');
      const spanning = await statsOf(org.program_id, { start: '2025-03-01', end: '2026-03-01' });
      expect(spanning.days).toHaveLength(366);
      const one = await statsOf(org.program_id, { start: '1000-01-01', end: '1000-01-01' });
      expect(one.days).toEqual([{ date: '1000-01-01', ...zero() }]);
      expect((await statsOf(org.program_id, { start: '8999-12-31', end: '8999-12-31' })).days).toHaveLength(1);
    });

    /** The answer of a request whose UTC day did not change while it ran (repeated otherwise), with that day. */
    async function onOneDay(query: Record<string, string>, programId: string) {
      for (;;) {
        const before = todayUtc();
        const data = await statsOf(programId, query);
        if (todayUtc() === before) return { today: before, data };
      }
    }

    it('defaults to the 30 days ending today, zeros included, and fills in whichever end is missing', async () => {
      const program = await quietProgram(t, org, { currency_code: 'USD' });
      const { today, data } = await onOneDay({}, program.id);
      expect(data).toEqual({
        program_id: program.id,
        partner_id: null,
        start: addDays(today, -29),
        end: today,
        totals: zero(),
        days: Array.from({ length: 30 }, (_, i) => ({ date: addDays(today, i - 29), ...zero() })),
      });

      const onlyEnd = await statsOf(program.id, { end: '2025-03-01' });
      expect(onlyEnd).toMatchObject({ start: '2025-01-31', end: '2025-03-01' });
      expect(onlyEnd.days).toHaveLength(30);

      const fromStart = await onOneDay({ start: addDays(todayUtc(), -6) }, program.id);
      expect(fromStart.data).toMatchObject({ start: addDays(fromStart.today, -6), end: fromStart.today });
      expect(fromStart.data.days).toHaveLength(7);

      // Today's figures are in the default period.
      const partner = await partnerOf(program);
      await apiClick({ partner_id: partner.id });
      const withClick = await onOneDay({}, program.id);
      const clicksToday = withClick.data.days.at(-1)!.clicks;
      // A click recorded just before midnight belongs to the day before.
      expect(clicksToday + (withClick.data.days.at(-2)?.clicks ?? 0)).toBe(1);
      expect(withClick.data.totals.clicks).toBe(1);
    });
  });

  it('stays exact under concurrent writers, on several connections and two processes', async () => {
    const second = await createTestApp({ storage: t.storage });
    try {
      await warmPool(t);
      const program = await createProgram(t, org, { currency_code: 'USD' });
      const partners = await Promise.all(Array.from({ length: 4 }, () => partnerOf(program)));
      const customers = await Promise.all(partners.map((p) => createCustomer(t, org, p)));
      const apps = [t, second];
      const clicks: ClickFact[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const app = apps[i % 2];
          const res = await app.request
            .post('/v1/clicks')
            .set(org.auth)
            .send({ partner_id: partners[i % 4].id });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          clicks.push(res.body.data[0]);
        }),
      );
      const first = addDays(todayUtc(), -20);
      const at = (i: number) => new Date(Date.parse(`${first}T00:00:00Z`) + (i % 3) * DAY_MS + i * 60_000).toISOString();
      await Promise.all(
        Array.from({ length: 24 }, async (_, i) => {
          const app = apps[i % 2];
          const res = await app.request
            .post('/v1/transactions')
            .set(org.auth)
            .send({ amount: 1_000 + i, customer_id: customers[i % 4].id, created_at: at(i) });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
        }),
      );
      await expectStatsMatch(program, { start: first, end: todayUtc() }, clicks);
      expect(await rolledUpPayments(t.storage.db, program.id)).toEqual(await countedPayments(t.storage.db, program.id));
      const paid = await statsOf(program.id, { start: first, end: addDays(first, 2) });
      expect(paid.totals.revenue).toEqual({ USD: Array.from({ length: 24 }, (_, i) => 1_000 + i).reduce((a, b) => a + b, 0) });
      expect(paid.totals.customers).toBe(4);
    } finally {
      await second.close();
    }
  });
});
