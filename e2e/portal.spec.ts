import type { Browser, Page } from '@playwright/test';
import { type Api, type DemoState, expect, type SvcData, test, unique, uniqueEmail } from './support/fixtures.js';
import { emailCausedBy } from './support/outbox.js';
import { askSignInLink, signInToPortal as signIn } from './support/portal.js';

/**
 * The partner portal (ingest/docs/partner-portal.md) in real Chromium, on the embedded demo
 * instance: a partner joins the demo program, is approved, signs in by the link e-mailed to them
 * (read from ingest's .eml outbox), shares their link and follows a visitor's signup and payment
 * to the payout; one-time links; another partner's records; rejected and suspended partners; the
 * portal embedded on another origin. Server-side rules in detail: ingest/test/portal/.
 */

const usd = (cents: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(cents / 100);

/** A partner of the demo program made through the API, in a given status. */
async function partnerOf(api: Api, demo: DemoState, fields: Record<string, unknown> = {}) {
  const first = unique('Pat');
  return (
    await api.post('/v1/partners', {
      program_id: demo.program_id,
      first_name: first,
      last_name: 'Portal',
      email: `${first}@partners.example`,
      ...fields,
    })
  ).data[0] as { id: string; email: string };
}

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test('a partner joins, is approved, signs in by e-mail and follows a referral from the click to the payout', async ({
  browser,
  visitor,
  api,
  demo,
}) => {
  // Join: the public sign-up form of the demo program.
  const page = await newPage(browser);
  const first = unique('Ada');
  const email = `${first}@partners.example`;
  await emailCausedBy(demo.outboxDir, { to: email, subject: 'Your application to the Acme Partners partner program' }, async () => {
    await page.goto(`${demo.portalUrl}/join`);
    await page.getByLabel('First name').fill(first);
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Country').selectOption('GB');
    await page.getByLabel('How you want to be paid').selectOption('paypal');
    await page.getByRole('button', { name: 'Join' }).click();
    await expect(page.getByRole('heading', { name: 'Thank you' })).toBeVisible();
  });

  // Pending: signed in, the partner sees where they stand and nothing else.
  const partner = (await api.get(`/v1/partners?program_id=${demo.program_id}&email=${encodeURIComponent(email)}`)).data[0];
  expect(partner).toMatchObject({ status: 'pending', country_code: 'GB', payout_method: 'paypal' });
  await signIn(page, demo, email);
  await expect(page.getByRole('heading', { name: 'Your application is being reviewed' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);

  // The merchant approves; the partner's home shows their link.
  await api.put(`/v1/partners/${partner.id}`, { status: 'active' });
  await page.reload();
  await expect(page.getByRole('heading', { name: `Welcome, ${first}` })).toBeVisible();
  const value = first.toLowerCase();
  const link = `${demo.demoUrl}/?ref=${value}`;
  await expect(page.locator('.partner-links code')).toHaveText([link]);
  await expect(page.locator('.partner-links button.copy')).toHaveAttribute('data-copy', link);

  // A visitor lands through the link, signs up and pays on the merchant's site.
  const v = await visitor();
  await v.recordBeforeLeaving();
  await v.arrive(`/?ref=${value}`);
  expect(((await v.clicked()).response!.body.data as SvcData).partner_id).toBe(partner.id);
  const customerEmail = uniqueEmail('jane');
  await v.page.goto('/signup');
  await v.ready();
  await v.page.locator('#email').fill(customerEmail);
  await v.page.getByRole('button', { name: 'Create my account' }).click();
  await v.page.waitForURL('**/account?email=*');
  await v.signedUp();
  await v.page.getByRole('button', { name: 'Pay $49 for Pro' }).click();
  await expect(v.page.locator('#partner-link')).toBeVisible();

  // Home: the figures are the stats API's for the partner.
  const today = new Date().toISOString().slice(0, 10);
  const start = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  const stats = (await api.get(`/v1/programs/${demo.program_id}/stats?start=${start}&end=${today}&partner_id=${partner.id}`)).data as any;
  expect(stats.totals).toMatchObject({ clicks: 1, leads: 1, customers: 1, revenue: { USD: 4900 }, commissions: { USD: 980 } });
  await page.goto(`${demo.portalUrl}/?days=30`);
  const figure = (label: string) =>
    page
      .getByTestId('figures')
      .locator('.figure', { has: page.getByText(label, { exact: true }) })
      .locator('.value');
  await expect(figure('Clicks')).toHaveText('1');
  await expect(figure('Leads')).toHaveText('1');
  await expect(figure('Paying customers')).toHaveText('1');
  await expect(figure('Revenue')).toHaveText(usd(4900));
  await expect(figure('Commissions')).toHaveText(usd(980));
  await expect(page.locator('#chart canvas')).toBeVisible();

  // Referrals: the customer masked, the commission pending.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Referrals' }).click();
  const masked = `${customerEmail[0]}•••@customers.example`;
  await expect(page.locator('#customers')).toContainText(masked);
  await expect(page.locator('#customers')).not.toContainText(customerEmail);
  await expect(page.locator('#commissions')).toContainText(usd(980));
  await expect(page.locator('#commissions')).toContainText('pending');

  // Settings: the PayPal address a payout needs (a payout skips a PayPal partner without one).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('PayPal e-mail address').fill(`${first}@paypal.example`);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status')).toBeVisible();
  expect((await api.get(`/v1/partners/${partner.id}`)).data.payout_details).toEqual({ email: `${first}@paypal.example` });

  // The merchant approves the commission and pays it in a payout: the portal shows the payout.
  const commission = (await api.get(`/v1/commissions?program_id=${demo.program_id}&partner_id=${partner.id}`)).data[0];
  await api.put(`/v1/commissions/${commission.id}`, { status: 'approved' });
  const generated = ((await api.post('/v1/payouts/generate', { program_id: demo.program_id, partner_ids: [partner.id] })) as any).data;
  const payout = generated.payouts[0];
  await api.put(`/v1/payouts/${payout.id}`, { status: 'paid', reference: 'PP-E2E-1' });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Referrals' }).click();
  await expect(page.locator('#payouts')).toContainText(usd(980));
  await expect(page.locator('#payouts')).toContainText('paid');
  await page.locator('#payouts').getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/payouts/${payout.id}$`));
  await expect(page.getByRole('main')).toContainText('PP-E2E-1');
});

test('a sign-in link works once and not once expired', async ({ browser, api, demo }) => {
  const partner = await partnerOf(api, demo);
  const page = await newPage(browser);
  const link = await signIn(page, demo, partner.email);
  await expect(page.getByRole('heading', { name: /^Welcome, / })).toBeVisible();

  // Used: another browser cannot use it again.
  const other = await newPage(browser);
  await other.goto(link);
  await expect(other.getByRole('heading', { name: 'This link has expired' })).toBeVisible();

  // Expired: a fresh link made old by the test hook.
  const fresh = await askSignInLink(other, demo, partner.email);
  expect(fresh).not.toBe(link);
  await other.goto(fresh);
  await expect(other.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect((await other.request.post(`${demo.ingestUrl}/__test/partners/${partner.id}/expire-access`)).status()).toBe(204);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await expect(other.getByRole('heading', { name: 'This link has expired' })).toBeVisible();
  // The hook ended the first session as well.
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in$/);

  // Signing out.
  await signIn(page, demo, partner.email);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto(`${demo.portalUrl}/referrals`);
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("a partner cannot open another partner's payout; rejected and suspended partners see their state only", async ({
  browser,
  api,
  demo,
}) => {
  // Another partner with a payout.
  const rich = await partnerOf(api, demo, { payout_method: 'paypal', payout_details: { email: uniqueEmail('rich-paypal') } });
  const customer = (await api.post('/v1/customers', { partner_id: rich.id, email: uniqueEmail('r') })).data[0];
  await api.post('/v1/transactions', { customer_id: customer.id, amount: 10_000 });
  const commission = (await api.get(`/v1/commissions?program_id=${demo.program_id}&partner_id=${rich.id}`)).data[0];
  await api.put(`/v1/commissions/${commission.id}`, { status: 'approved' });
  const payout = ((await api.post('/v1/payouts/generate', { program_id: demo.program_id, partner_ids: [rich.id] })) as any).data.payouts[0];

  const nosy = await partnerOf(api, demo);
  const page = await newPage(browser);
  await signIn(page, demo, nosy.email);
  const answer = await page.goto(`${demo.portalUrl}/payouts/${payout.id}`);
  expect(answer!.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();

  for (const [status, field, note, heading] of [
    ['rejected', 'rejection_note', 'Your site is about something else.', 'Your application was declined'],
    ['suspended', 'suspension_reason', 'Ads on our brand name are not allowed.', 'Your partnership is suspended'],
  ] as const) {
    const partner = await partnerOf(api, demo, { status, [field]: note });
    const p = await newPage(browser);
    await signIn(p, demo, partner.email);
    await expect(p.getByRole('heading', { name: heading })).toBeVisible();
    await expect(p.getByRole('main')).toContainText(note);
    await expect(p.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
    await p.goto(`${demo.portalUrl}/referrals`);
    await expect(p.getByRole('heading', { name: heading })).toBeVisible();
  }
});

test("an embed token opens the portal in the merchant's page on another site, until it expires", async ({ page, api, demo }) => {
  const partner = await partnerOf(api, demo);
  // The demo's partner area (another site: app.shop.test resolves to this machine) makes an
  // embed token with the secret key on each view and frames the portal with it.
  const appUrl = `http://app.shop.test:${new URL(demo.demoUrl).port}/partner-portal?id=${partner.id}`;
  await page.goto(appUrl);
  const frame = page.frameLocator('iframe[title="Partner portal"]');
  await expect(frame.getByRole('heading', { name: /^Welcome, / })).toBeVisible();
  await expect(frame.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
  // Its links stay in the embed: Referrals opens inside the frame, without a sign-in.
  await frame.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Referrals' }).click();
  await expect(frame.getByRole('heading', { name: 'Referrals', level: 1 })).toBeVisible();
  // No cookie was set for svc: the token in the frame's address is all there is.
  expect((await page.context().cookies(demo.ingestUrl)).filter((c) => c.name.includes('svc_portal'))).toEqual([]);

  // Expired: the frame says so; the app's next view makes a new token.
  expect((await page.request.post(`${demo.ingestUrl}/__test/partners/${partner.id}/expire-access`)).status()).toBe(204);
  await frame.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
  await expect(frame.getByRole('heading', { name: 'Signed out' })).toBeVisible();
  await expect(frame.getByText('This view has expired')).toBeVisible();
  await page.goto(appUrl);
  await expect(frame.getByRole('heading', { name: /^Welcome, / })).toBeVisible();
});
