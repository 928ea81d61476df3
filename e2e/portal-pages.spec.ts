import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { pngOf } from '../ingest/test/support/images.js';
import { expectAxeClean, PHONE } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { type Api, type DemoState, expect, test, unique, uniqueEmail } from './support/fixtures.js';
import { signInToPortal } from './support/portal.js';

/**
 * The partner portal's pages on the page kit (ingest/docs/partner-portal.md#what-partners-do-there),
 * in real Chromium: a branded program's home and referrals with every table filled, clean under axe
 * at a desktop's and a phone's width, with under 30 KB of JavaScript; a refused settings form that
 * keeps what was typed with the message beside its field; a form from an earlier session answered
 * by the portal's expired-form page. Screenshots to look at go to the system's temporary directory.
 * The same rules through HTTP: ingest/test/portal/.
 */

const ACCENT = '#7c3aed';

/** A picture of the page, full length, named for the test's storage setup. */
const shoot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(os.tmpdir(), `portal-pages-${name}-${test.info().project.name}.png`), fullPage: true });

/** A program of the test's own with a logo and an accent color, set on the dashboard's Portal branding page; answers its portal's address. */
async function brandedProgram(browser: Browser, api: Api, demo: DemoState): Promise<{ id: string; name: string; portalUrl: string }> {
  const program = await ownProgram(api, { website_url: 'https://www.acme.example' });
  const owner = await ownerPage(browser, demo);
  await owner.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/settings`);
  await owner.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Portal branding' }).click();
  await owner.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: pngOf(180, 48, ['#7c3aed', '#a78bfa']) });
  await owner.getByLabel('Accent color as text (#rrggbb)').fill(ACCENT);
  await owner.getByRole('button', { name: 'Save branding' }).click();
  await expect(owner.getByRole('status')).toHaveText('Portal branding saved.');
  await owner.context().close();
  const { subdomain } = (await api.get(`/v1/programs/${program.id}`)).data;
  return { ...program, portalUrl: `${demo.ingestUrl}/p/${subdomain}` };
}

/** An active partner of the program paid by PayPal, with a link, clicks, two customers, a pending commission and a paid payout. */
async function busyPartner(api: Api, programId: string) {
  const first = unique('Mia');
  const partner = (
    await api.post('/v1/partners', {
      program_id: programId,
      first_name: first,
      last_name: 'Pages',
      email: `${first}@partners.example`,
      status: 'active',
      payout_method: 'paypal',
      payout_details: { email: `${first}@paypal.example` },
    })
  ).data[0];
  await api.post('/v1/links', { param: 'ref', value: first.toLowerCase(), partner_id: partner.id });
  for (let i = 0; i < 3; i++) await api.post('/v1/clicks', { partner_id: partner.id });
  const paying = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('paying') })).data[0];
  await api.post('/v1/transactions', { customer_id: paying.id, amount: 25_000 });
  const commission = (await api.get(`/v1/commissions?program_id=${programId}&partner_id=${partner.id}`)).data[0];
  await api.put(`/v1/commissions/${commission.id}`, { status: 'approved' });
  const payout = ((await api.post('/v1/payouts/generate', { program_id: programId, partner_ids: [partner.id] })) as any).data.payouts[0];
  await api.put(`/v1/payouts/${payout.id}`, { status: 'paid', reference: 'PP-2026-0412' });
  const later = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('later') })).data[0];
  await api.post('/v1/transactions', { customer_id: later.id, amount: 9_900 });
  return { partner: partner as { id: string; email: string }, payout: payout as { id: string } };
}

test("a branded program's portal home and referrals are clean under axe at a desktop's and a phone's width, ids only on a record's page", async ({
  browser,
  api,
  demo,
}) => {
  const program = await brandedProgram(browser, api, demo);
  const { partner, payout } = await busyPartner(api, program.id);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signInToPortal(page, demo, partner.email, program.portalUrl);

  // Home: the logo in the header, the link, the figures and the chart, the earnings as a table.
  await expect(page.getByRole('banner').getByRole('img', { name: program.name })).toBeVisible();
  await expect(page.getByRole('heading', { name: /^Welcome, Mia/ })).toBeVisible();
  await expect(page.locator('.partner-links code')).toHaveText([/^https:\/\/www\.acme\.example\/\?ref=mia/]);
  await expect(page.locator('#chart canvas')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Your commissions by status' })).toBeVisible();
  // Its JavaScript (dashboard.js and uPlot), as svc sends it gzip-compressed: under 30 KB.
  let sent = 0;
  for (const src of await page.locator('script[src]').evaluateAll((tags) => tags.map((tag) => (tag as HTMLScriptElement).src))) {
    const res = await page.request.get(src, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.headers()['content-encoding']).toBe('gzip');
    sent += Number(res.headers()['content-length']);
  }
  expect(sent).toBeGreaterThan(0);
  expect(sent).toBeLessThan(30 * 1024);
  await expectAxeClean(page);
  await shoot(page, 'home');

  // Referrals: the three lists as tables, customers masked, no id as text in any row.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Referrals' }).click();
  const customers = page.getByRole('table', { name: 'Customers you referred, newest first' });
  await expect(customers.getByRole('row')).toHaveCount(3);
  await expect(customers).toContainText('•••@customers.example');
  await expect(page.getByRole('table', { name: 'Your commissions, newest first' }).getByRole('row')).toHaveCount(3);
  const payouts = page.getByRole('table', { name: 'Your payouts, newest first' });
  await expect(payouts).toContainText('PP-2026-0412');
  await expect(page.getByRole('main')).not.toContainText(/\b(?:po|comm|cust|part)_\w{8,}/);
  await expectAxeClean(page);
  await shoot(page, 'referrals');

  // A payout's page: its id once, with the button that copies it.
  await payouts.getByRole('link').first().click();
  await expect(page.getByRole('main').locator('.record-id code')).toHaveText(payout.id);
  await expect(page.getByRole('button', { name: 'Copy the payout id' })).toBeVisible();
  await expectAxeClean(page);

  // At a phone's width: the same pages, tables scrolling sideways in their focusable frames.
  await page.setViewportSize(PHONE);
  for (const where of ['/', '/referrals']) {
    await page.goto(`${program.portalUrl}${where}`);
    await expectAxeClean(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  }
  await shoot(page, 'referrals-phone');
});

test('a refused settings form keeps what was typed with the message beside its field; a form from an earlier session gets the expired-form page', async ({
  browser,
  api,
  demo,
}) => {
  const first = unique('Sam');
  const partner = (
    await api.post('/v1/partners', {
      program_id: demo.program_id,
      first_name: first,
      last_name: 'Settings',
      email: `${first}@partners.example`,
      status: 'active',
      payout_method: 'paypal',
    })
  ).data[0];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signInToPortal(page, demo, partner.email);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();

  // An address the browser lets through (no dot in its domain) that the API refuses.
  await page.getByLabel('Last name').fill('Typed-Again');
  await page.getByLabel('PayPal e-mail address').fill(`${first}@paypal`);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('alert')).toHaveText('This form was not saved: see the message beside the field.');
  const email = page.getByLabel('PayPal e-mail address');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveValue(`${first}@paypal`);
  await expect(email).toHaveAccessibleDescription('Must be an e-mail address.');
  await expect(page.getByLabel('Last name')).toHaveValue('Typed-Again');
  expect((await api.get(`/v1/partners/${partner.id}`)).data).toMatchObject({ last_name: 'Settings', payout_details: {} });
  await expectAxeClean(page);
  await shoot(page, 'settings-refused');

  // Signing out and in again in another tab makes a new session: the form left open in this one has expired.
  const other = await context.newPage();
  await other.goto(`${demo.portalUrl}/`);
  await other.getByRole('button', { name: 'Sign out' }).click();
  await signInToPortal(other, demo, partner.email);
  await email.fill(`${first}@paypal.example`);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('heading', { name: 'This form has expired', level: 1 })).toBeVisible();
  expect((await api.get(`/v1/partners/${partner.id}`)).data.payout_details).toEqual({});
  await expectAxeClean(page);
  await shoot(page, 'stale-form');
  await page.getByRole('link', { name: 'Open the page again' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await page.getByLabel('PayPal e-mail address').fill(`${first}@paypal.example`);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status')).toHaveText('Settings saved.');
  expect((await api.get(`/v1/partners/${partner.id}`)).data.payout_details).toEqual({ email: `${first}@paypal.example` });
});
