import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/money.js';
import { count, moneyList } from '../../src/pages/format.js';
import { addDays, todayUtc } from '../../src/resources/stats/stats.schema.js';
import {
  type ApiObject,
  createClick,
  createCustomer,
  createFlow,
  createLink,
  createPartner,
  createProgram,
  createTransaction,
  quietProgram,
  type TestOrg,
  uniqueLinkValue,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';
import { csrfOf, portalAgent } from '../support/portal.js';

/**
 * The portal's home page (ingest/docs/partner-portal.md): the partner's links, the link builder,
 * their first link, their figures (the stats API's) and their balance, in a tab and embedded.
 * Access rules are in portal-access.test.ts.
 */

/** Text or an attribute value as the page has it, unescaped. */
const fromHtml = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Every copy button's text to copy. */
const copies = (html: string) => [...html.matchAll(/data-copy="([^"]*)"/g)].map((m) => fromHtml(m[1]));

/** The link the builder made, or undefined. */
const built = (html: string) => {
  const m = /<code id="built-link">([^<]*)<\/code>/.exec(html);
  return m ? fromHtml(m[1]) : undefined;
};

/** The figure shown under a label of the results. */
const figure = (html: string, label: string) => {
  const m = new RegExp(`<dt>${label}</dt><dd><span class="value">([^<]*)</span>`).exec(html);
  expect(m, `figure ${label}`).not.toBeNull();
  return fromHtml(m![1]);
};

const mainOf = (html: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(html)![1];

/** A partner of the program with a link (param ref), signed in to the portal. */
async function signedInPartner(t: TestApp, org: TestOrg, program: ApiObject, overrides: Record<string, unknown> = {}) {
  const partner = await createPartner(t, org, { program_id: program.id, ...overrides });
  return { partner, ...(await portalAgent(t, program, partner.email)) };
}

describe('partner portal home', () => {
  const { t, orgs } = useTestApp({ orgs: 1 });

  it("lists the partner's own links as full addresses of the site, each with a copy button", async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { website_url: 'https://acme.example/' });
    const partner = await createPartner(t, org, { program_id: program.id });
    const first = await createLink(t, org, partner);
    const second = await createLink(t, org, partner, { param: 'via' });
    const other = await createPartner(t, org, { program_id: program.id });
    const theirs = await createLink(t, org, other);

    const { base, home } = await portalAgent(t, program, partner.email);
    const urls = [`https://acme.example/?ref=${first.value}`, `https://acme.example/?via=${second.value}`];
    for (const url of urls) {
      expect(home).toContain(`>${url}</code>`);
      expect(copies(home)).toContain(url);
    }
    expect(home).toContain('Your links');
    expect(home).not.toContain(theirs.value);
    // No inline script or style anywhere (the CSP forbids them), and every link stays in the portal.
    expect(home).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(home).not.toMatch(/\bstyle=/);
    for (const [, target] of home.matchAll(/(?:href|action)="(\/[^"]*)"/g)) {
      if (!target.startsWith('/dashboard/assets/')) expect(target.startsWith(`${base}/`), target).toBe(true);
    }

    // A program that has not given its site: a sentence where the link would be, never `?ref=…` alone (shareableLink).
    const bare = await createProgram(t, org);
    const p2 = await createPartner(t, org, { program_id: bare.id });
    const l2 = await createLink(t, org, p2);
    const page = (await portalAgent(t, bare, p2.email)).home;
    expect(page).toContain("Your link appears here once the program's website address is set.");
    expect(page).not.toContain(`?ref=${l2.value}</code>`);
    expect(copies(page)).toEqual([]);
  });

  it('builds a link to any page of the site without JavaScript, and refuses another site', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { website_url: 'https://www.acme.example/shop' });
    const partner = await createPartner(t, org, { program_id: program.id });
    const first = await createLink(t, org, partner);
    const second = await createLink(t, org, partner, { param: 'via' });
    const { agent, base, home } = await portalAgent(t, program, partner.email);
    expect(home).toContain(`<form method="get" action="${base}/" class="stack builder">`);
    expect(home).toContain(`<option value="${second.id}">?via=${second.value}</option>`);
    expect(built(home)).toBeUndefined();

    const build = async (page: string, extra: Record<string, string> = {}) => agent.get(`${base}/`).query({ page, ...extra });

    // A path of the site, a full address on it or a subdomain, a bare host: the query (their parameter replaced) and hash kept.
    const cases: [string, string][] = [
      ['/pricing', `https://www.acme.example/pricing?ref=${first.value}`],
      ['pricing', `https://www.acme.example/pricing?ref=${first.value}`],
      ['https://shop.acme.example/a/b?x=1&ref=someone&y=%20z#plans', `https://shop.acme.example/a/b?x=1&y=%20z&ref=${first.value}#plans`],
      ['acme.example/?q=a+b', `https://acme.example/?q=a+b&ref=${first.value}`],
      ['/blog?utm_source=news#top', `https://www.acme.example/blog?utm_source=news&ref=${first.value}#top`],
    ];
    for (const [page, url] of cases) {
      const res = await build(page);
      expect(res.status, page).toBe(200);
      expect(built(res.text), page).toBe(url);
      expect(copies(res.text), page).toContain(url);
      // The form shows what was asked, to change it.
      expect(res.text).toContain(`value="${page.replace(/&/g, '&amp;')}"`);
    }
    // The link chosen in the select.
    const via = await build('/pricing', { link: second.id });
    expect(built(via.text)).toBe(`https://www.acme.example/pricing?via=${second.value}`);
    expect(via.text).toContain(`<option value="${second.id}" selected>`);

    // Another host (a look-alike too), another scheme: refused beside the field, what was typed kept, with 400.
    for (const [page, message] of [
      ['https://evil.example/acme', 'evil.example is not acme.example'],
      ['https://acme.example.evil.example/', 'acme.example.evil.example is not acme.example'],
      ['evil.example/x', 'evil.example is not acme.example'],
      ['javascript:alert(1)', 'not a web address'],
      ['ftp://acme.example/file', 'starts with https://'],
    ]) {
      const res = await build(page);
      expect(res.status, page).toBe(400);
      expect(res.text, page).toContain(message);
      expect(built(res.text), page).toBeUndefined();
      expect(res.text).toMatch(/<input id="page" aria-invalid="true" aria-describedby="page-error" name="page"/);
      expect(res.text).toMatch(/<span class="field-error" id="page-error">[^<]+<\/span>/);
      expect(res.text).toContain(`value="${page}"`);
    }

    // Without the site's address, a path cannot be resolved; a full address can.
    const bare = await createProgram(t, org);
    const p2 = await createPartner(t, org, { program_id: bare.id });
    const l2 = await createLink(t, org, p2);
    const { agent: a2, base: b2 } = await portalAgent(t, bare, p2.email);
    const path = await a2.get(`${b2}/`).query({ page: '/pricing' });
    expect(path.status).toBe(400);
    expect(path.text).toContain('enter the full address of the page');
    const full = await a2.get(`${b2}/`).query({ page: 'https://any.example/p?a=1#h' });
    expect(built(full.text)).toBe(`https://any.example/p?a=1&ref=${l2.value}#h`);
  });

  it('lets a partner without a link create one, once, refusing a taken or bad value', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { website_url: 'https://acme.example', url_params: ['via', 'ref'] });
    const rival = await createPartner(t, org, { program_id: program.id });
    const taken = await createLink(t, org, rival, { param: 'via', value: 'zoe' });
    const { partner, agent, csrf, base, home } = await signedInPartner(t, org, program, { first_name: 'Zoë' });

    // The form, with a free value from their first name (zoe is taken).
    expect(home).toContain(`<form method="post" action="${base}/links" class="stack">`);
    expect(home).toMatch(/name="value" [^>]*value="zoe2"/);
    expect(home).toContain('https://acme.example/?via=zoe2');
    expect(home).not.toContain('class="stack builder"');

    const create = (value: string, token = csrf) => agent.post(`${base}/links`).type('form').send({ _csrf: token, value });
    // Refused beside the field, in plain words, with what was typed.
    const clash = await create(taken.value.toUpperCase());
    expect(clash.status).toBe(409);
    expect(clash.text).toContain(
      '<span class="field-error" id="link-value-error">“ZOE” is taken by another partner: choose another value.</span>',
    );
    expect(clash.text).toMatch(/id="link-value" aria-invalid="true"[^>]*name="value" [^>]*value="ZOE"/);
    const bad = await create('not allowed!');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('<span class="field-error" id="link-value-error">Must be 1–64 characters of A-Z');
    expect(bad.text).not.toContain('Invalid value');
    expect(bad.text).toMatch(/name="value" [^>]*value="not allowed!"/);
    expect((await create('zoe-ok', 'wrong-token')).status).toBe(403);

    const value = uniqueLinkValue('zoe');
    const made = await create(value);
    expect(made.status, made.text).toBe(303);
    expect(made.headers.location).toBe(`${base}/?notice=link-created`);
    const after = await agent.get(made.headers.location);
    expect(after.text).toContain('Your link is ready');
    expect(copies(after.text)).toContain(`https://acme.example/?via=${value}`);
    expect(after.text).not.toContain(`action="${base}/links"`);

    // One link only: a second creation is refused, and the API has the one.
    const again = await create(uniqueLinkValue('zoe'));
    expect(again.status).toBe(409);
    expect(again.text).toContain('You have a link already');
    const links = await t.request.get('/v1/links').set(org.auth).query({ program_id: program.id, partner_id: partner.id });
    expect(links.body.data.map((l: ApiObject) => [l.param, l.value])).toEqual([['via', value]]);
  });

  it("shows the partner's figures of a period, the stats API's for them, without another partner's", async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { website_url: 'https://acme.example' });
    const { partner, agent, base } = await signedInPartner(t, org, program);
    const link = await createLink(t, org, partner);
    const other = await createPartner(t, org, { program_id: program.id });
    const otherLink = await createLink(t, org, other);

    for (let i = 0; i < 3; i++) await createClick(t, org, { param: link.param, value: link.value });
    const customer = await createCustomer(t, org, partner);
    await createTransaction(t, org, customer, { amount: 12_345 });
    await createCustomer(t, org, partner);
    await createClick(t, org, { param: otherLink.param, value: otherLink.value });
    await createTransaction(t, org, await createCustomer(t, org, other), { amount: 50_000 });

    const end = todayUtc();
    const start = addDays(end, -6);
    const api = await t.request.get(`/v1/programs/${program.id}/stats`).set(org.auth).query({ start, end, partner_id: partner.id });
    expect(api.status).toBe(200);
    const totals = api.body.data.totals;
    expect(totals).toMatchObject({ clicks: 3, leads: 2, customers: 1, revenue: { USD: 12_345 } });

    const page = await agent.get(`${base}/`).query({ days: '7' });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`${start} – ${end} (UTC days)`);
    expect(page.text).toContain(`href="${base}/?days=7" aria-current="true"`);
    expect(figure(page.text, 'Clicks')).toBe(count(totals.clicks));
    expect(figure(page.text, 'Leads')).toBe(count(totals.leads));
    expect(figure(page.text, 'Paying customers')).toBe(count(totals.customers));
    expect(figure(page.text, 'Revenue')).toBe(moneyList(totals.revenue, 'USD'));
    expect(figure(page.text, 'Commissions')).toBe(moneyList(totals.commissions, 'USD'));
    expect(totals.commissions.USD).toBeGreaterThan(0);
    expect(page.text).not.toContain('No clicks yet');

    // The program's figures are larger: the other partner's are not on the page.
    const all = (await t.request.get(`/v1/programs/${program.id}/stats`).set(org.auth).query({ start, end })).body.data.totals;
    expect(all.clicks).toBe(4);
    expect(page.text).not.toContain(formatMoney(all.revenue.USD, 'USD'));

    // The chart's data (drawn by dashboard.js with uPlot) and the table: every day of the period.
    const series = JSON.parse(fromHtml(/data-series="([^"]*)"/.exec(page.text)![1]));
    expect(series.dates).toEqual(api.body.data.days.map((d: ApiObject) => d.date));
    expect(series.clicks).toEqual(api.body.data.days.map((d: ApiObject) => d.clicks));
    expect(series.revenue).toEqual(api.body.data.days.map((d: ApiObject) => d.revenue.USD ?? 0));
    expect(page.text).toMatch(/<script defer src="\/dashboard\/assets\/uplot\.js\?v=\w+"><\/script>/);
    expect(page.text).toContain('<th scope="col" class="num">Commissions</th>');
    const busy = api.body.data.days.find((d: ApiObject) => d.clicks > 0);
    expect(page.text).toContain(
      `<th scope="row">${busy.date}</th><td class="num">3</td><td class="num">2</td><td class="num">1</td><td class="num">${formatMoney(12_345, 'USD')}</td>`,
    );

    // A custom period before anything happened: zeros, and what to do next.
    const quiet = await agent.get(`${base}/`).query({ start: '2024-01-01', end: '2024-01-03' });
    expect(quiet.status).toBe(200);
    expect(figure(quiet.text, 'Clicks')).toBe('0');
    expect(quiet.text).toContain('No clicks in these days');
    expect(quiet.text).toContain('Share your link');
    expect(quiet.text).toContain('value="2024-01-01"');
    // A period the stats API refuses: the message beside its field, the days as typed, the default period's figures, and 400.
    const wrong = await agent.get(`${base}/`).query({ start: '2024-02-01', end: '2024-01-01' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('<span class="field-error" id="start-error">Must not be after end.</span>');
    expect(wrong.text).toMatch(/id="start" aria-invalid="true"[^>]*value="2024-02-01"/);
    expect(figure(wrong.text, 'Clicks')).toBe('3');
    for (const days of ['5', 'week']) {
      const res = await agent.get(`${base}/`).query({ days });
      expect(res.status, days).toBe(400);
      expect(res.text).toContain('A period is 7, 30 or 90 days, or the days you type.');
      expect(res.text).not.toContain('Invalid days');
    }

    // The builder keeps the period, and the period keeps the builder's page.
    const both = await agent.get(`${base}/`).query({ days: '90', page: '/pricing' });
    expect(both.text).toContain('<input type="hidden" name="days" value="90"/>');
    expect(both.text).toContain(`href="${base}/?days=7&amp;page=%2Fpricing"`);
    expect(built(both.text)).toBe(`https://acme.example/pricing?ref=${link.value}`);
  });

  it('shows the balance per status and what the next payout brings against the minimum', async () => {
    const [org] = orgs;
    const program = await quietProgram(t, org, { minimum_payout: 5_000 });
    await createFlow(t, org, { program_id: program.id, reward: { type: 'percentage', value: 10 }, approval: { type: 'immediate' } });
    const { partner, agent, base, home } = await signedInPartner(t, org, program, {
      payout_method: 'paypal',
      payout_details: { email: 'pay@example.com' },
    });
    expect(home).toContain('No commissions yet');
    expect(home).toContain('No clicks yet in the last 30 days');

    const customer = await createCustomer(t, org, partner);
    await createTransaction(t, org, customer, { amount: 10_000 });
    const balances = async () => {
      const res = await t.request.get(`/v1/programs/${program.id}/balances`).set(org.auth).query({ partner_id: partner.id });
      expect(res.status).toBe(200);
      return res.body.data[0].amounts[0];
    };
    const row = (b: ApiObject) =>
      `<th scope="row">USD</th><td class="num">${formatMoney(b.pending, 'USD')}</td><td class="num">${formatMoney(b.payable, 'USD')}</td>` +
      `<td class="num">${formatMoney(b.in_payouts, 'USD')}</td><td class="num">${formatMoney(b.paid, 'USD')}</td>`;

    const below = await agent.get(`${base}/`);
    const b1 = await balances();
    expect(b1).toMatchObject({ payable: 1_000 });
    expect(below.text).toContain(row(b1));
    expect(below.text).toContain('$40.00 more to reach the minimum payout of $50.00 ($10.00 approved so far).');
    expect(below.text).not.toContain('in the next payout');

    await createTransaction(t, org, customer, { amount: 50_000 });
    const above = await agent.get(`${base}/`);
    const b2 = await balances();
    expect(b2).toMatchObject({ payable: 6_000 });
    expect(above.text).toContain(row(b2));
    expect(above.text).toContain('You will be paid $60.00 in the next payout.');

    // Once in a payout, it is on its way.
    const generated = await t.request.post('/v1/payouts/generate').set(org.auth).send({ program_id: program.id });
    expect(generated.status).toBe(201);
    expect(generated.body.data.payouts).toMatchObject([{ partner_id: partner.id, amount: 6_000 }]);
    const paying = await agent.get(`${base}/`);
    expect(paying.text).toContain(row(await balances()));
    expect(paying.text).toContain('Nothing to pay for now. $60.00 is in a payout on its way to you.');

    // No payout method: where to set one.
    const { partner: p2, agent: a2, base: b2Base } = await signedInPartner(t, org, program, { payout_method: 'none' });
    await createTransaction(t, org, await createCustomer(t, org, p2), { amount: 100_000 });
    const noMethod = await a2.get(`${b2Base}/`);
    expect(noMethod.text).toContain(`$100.00 is approved: choose how you are paid in <a href="${b2Base}/settings">Settings</a>`);
  });

  it('shows the same page in an embed, every link and form under the embed address', async () => {
    const [org] = orgs;
    const program = await createProgram(t, org, { website_url: 'https://acme.example' });
    const { partner, agent, base } = await signedInPartner(t, org, program);
    const link = await createLink(t, org, partner);
    await createClick(t, org, { param: link.param, value: link.value });
    const made = await t.request.post(`/v1/partners/${partner.id}/embed-tokens`).set(org.auth).send({});
    expect(made.status).toBe(201);
    const path = new URL(made.body.data[0].url).pathname;

    const inTab = await agent.get(`${base}/`).query({ days: '7', page: '/pricing' });
    const embedded = await t.request.get(`${path}/`).query({ days: '7', page: '/pricing' });
    expect(embedded.status).toBe(200);
    expect(embedded.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(mainOf(embedded.text)).toBe(mainOf(inTab.text).replaceAll(`${base}/`, `${path}/`));
    expect(embedded.text).toContain(`action="${path}/"`);
    expect(embedded.text).toContain(`href="${path}/?days=30&amp;page=%2Fpricing"`);
    expect(built(embedded.text)).toBe(`https://acme.example/pricing?ref=${link.value}`);
    expect(copies(embedded.text)).toContain(`https://acme.example/?ref=${link.value}`);
    for (const [, target] of embedded.text.matchAll(/(?:href|action)="(\/[^"]*)"/g)) {
      if (!target.startsWith('/dashboard/assets/')) expect(target.startsWith(`${path}/`), target).toBe(true);
    }

    // A partner without a link creates it from the embed, and is sent back to the embed.
    const newcomer = await createPartner(t, org, { program_id: program.id });
    const token = await t.request.post(`/v1/partners/${newcomer.id}/embed-tokens`).set(org.auth).send({});
    const embedPath = new URL(token.body.data[0].url).pathname;
    const page = await t.request.get(`${embedPath}/`);
    expect(page.text).toContain(`action="${embedPath}/links"`);
    const value = uniqueLinkValue('emb');
    const created = await t.request
      .post(`${embedPath}/links`)
      .type('form')
      .send({ _csrf: csrfOf(page.text), value });
    expect(created.status, created.text).toBe(303);
    expect(created.headers.location).toBe(`${embedPath}/?notice=link-created`);
    expect(copies((await t.request.get(created.headers.location)).text)).toContain(`https://acme.example/?ref=${value}`);
  });
});
