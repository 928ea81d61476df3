import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expectAxeClean, PHONE } from './support/axe.js';
import { ownerPage } from './support/dashboard.js';
import { expect, type SvcData, test, unique, uniqueEmail } from './support/fixtures.js';
import { signInToPortal } from './support/portal.js';

/**
 * Fraud and risk in real Chromium (ingest/docs/risk.md, ingest/docs/dashboard.md#risk): a partner
 * joins the demo program in the portal, then, in the same browser, follows their own link to the
 * merchant's site and signs up as a customer there. The self-referral rule knows that browser
 * from the partner's portal session; the merchant sees the event on the Risk page (reached by the
 * partner's badge) and bans the partner, who is then suspended. The Risk page and Settings › Risk
 * rules are checked by axe at a desktop's and a phone's width; screenshots of both go to the
 * system's temporary directory. The pages' rules through HTTP: ingest/test/dashboard/risk-pages.test.ts.
 */

const DESKTOP = { width: 1280, height: 900 };

/** No axe violation at a desktop's and a phone's width, with a picture of each, full length. */
async function checkAndShoot(page: Page, name: string) {
  for (const [width, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await expectAxeClean(page, `${page.url()} at ${size.width}px`);
    await page.screenshot({ path: path.join(os.tmpdir(), `risk-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

test('a partner who signs up on the merchant site from their own portal browser is flagged, and the merchant bans them', async ({
  browser,
  visitor,
  api,
  demo,
}) => {
  // A page spec at heart: the flow's tracking path runs on both storage setups in the other specs,
  // and the pages' server side on PostgreSQL in the API suite (e2e/playwright.config.ts, PAGE_SPECS).
  test.skip(test.info().project.name !== 'embedded', 'the pages run on the embedded demo instance only');

  // The partner joins in the portal, is approved, and signs in there: the portal now knows this browser.
  const v = await visitor();
  await v.recordBeforeLeaving();
  const first = unique('Risa');
  const email = `${first}@partners.example`;
  await v.page.goto(`${demo.portalUrl}/join`);
  await v.page.getByLabel('First name').fill(first);
  await v.page.getByLabel('Last name').fill('Selfref');
  await v.page.getByLabel('E-mail').fill(email);
  await v.page.getByLabel('Country').selectOption('DE');
  await v.page.getByLabel('How you want to be paid').selectOption('paypal');
  await v.page.getByRole('button', { name: 'Join' }).click();
  await expect(v.page.getByRole('heading', { name: 'Thank you' })).toBeVisible();
  const partner = (await api.get(`/v1/partners?program_id=${demo.program_id}&email=${encodeURIComponent(email)}`)).data[0];
  await api.put(`/v1/partners/${partner.id}`, { status: 'active' });
  await signInToPortal(v.page, demo, email);
  await expect(v.page.getByRole('heading', { name: `Welcome, ${first}` })).toBeVisible();
  const link = (await v.page.locator('.partner-links code').first().textContent())!.trim();

  // In the same browser: through their own link to the merchant's site, and a signup there.
  await v.arrive(link);
  expect(((await v.clicked()).response!.body.data as SvcData).partner_id).toBe(partner.id);
  await v.page.goto('/signup');
  await v.ready();
  await v.page.locator('#email').fill(uniqueEmail('selfref'));
  await v.page.getByRole('button', { name: 'Create my account' }).click();
  await v.page.waitForURL('**/account?email=*');
  expect((await v.signedUp()).response!.status).toBe(201);
  // The risk events are beyond the Partnership Program API, which the client types.
  const [event] = ((await api.get(`/v1/risk-events?partner_id=${partner.id}`)) as { data: any[] }).data;
  expect(event).toMatchObject({ rule: 'self_referral', status: 'open', evidence: { matched: ['browser'] } });
  // The customer pays (the merchant's server reports it): the event holds the commission.
  await api.post('/v1/transactions', { customer_id: event.customer_id, amount: 4900 });

  // The merchant: the partner's badge leads to their event on the Risk page.
  const owner = await ownerPage(browser, demo, { viewport: DESKTOP });
  await owner.goto(`${demo.ingestUrl}/dashboard/programs/${demo.program_id}/partners/${partner.id}`);
  await owner.getByRole('link', { name: 'Flagged: 1 open risk event' }).click();
  await expect(owner.getByRole('heading', { name: 'Risk', level: 1 })).toBeVisible();
  const shown = owner.locator(`#event-${event.id}`);
  await expect(shown).toContainText('The customer signed up from the browser the partner uses for the partner portal');
  await expect(shown).toContainText('$9.80 in 1 commission');
  await checkAndShoot(owner, 'page');

  // Ban the partner, with the reason they will see.
  await shown.getByText('Ban partner…').click();
  await shown.getByLabel('Reason (required)').last().fill('Referred themselves');
  await owner.screenshot({ path: path.join(os.tmpdir(), 'risk-ban-form-desktop.png'), fullPage: true });
  owner.once('dialog', (dialog) => dialog.accept());
  await shown.getByRole('button', { name: /^Ban / }).click();
  await expect(owner.getByRole('status')).toContainText('Partner banned');
  await expect(owner.locator(`#event-${event.id}`)).toHaveCount(0);
  expect((await api.get(`/v1/partners/${partner.id}`)).data).toMatchObject({
    status: 'suspended',
    suspension_reason: 'Referred themselves',
  });
  expect(((await api.get(`/v1/risk-events/${event.id}`)) as { data: unknown }).data).toMatchObject({
    status: 'resolved',
    resolution: 'ban_partner',
  });

  // Settings › Risk rules.
  await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await owner.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Risk rules' }).click();
  await expect(owner.getByLabel('Clicks per hour from one browser, at most')).toHaveValue(/^\d+$/);
  await checkAndShoot(owner, 'rules');
  await owner.context().close();
});

test('an unpaid payout whose money a later risk event holds is marked in the list, says so above its buttons, and is canceled from there', async ({
  browser,
  api,
  demo,
}) => {
  test.skip(test.info().project.name !== 'embedded', 'the pages run on the embedded demo instance only');
  // A partner with an approved commission in a payout; then a second partner paid into the same
  // PayPal account: the shared payout account rule holds the money already in that payout.
  const program = (await api.post('/v1/programs', { name: unique('Risky payouts '), currency_code: 'USD' })).data[0];
  const paypal = { payout_method: 'paypal', payout_details: { email: uniqueEmail('shared-paypal') } } as const;
  const partner = (
    await api.post('/v1/partners', {
      program_id: program.id,
      first_name: 'Ada',
      last_name: unique('Held'),
      email: uniqueEmail('ada'),
      ...paypal,
    })
  ).data[0];
  await api.post('/v1/commissions', { program_id: program.id, partner_id: partner.id, amount: 2000, status: 'approved' });
  const [payout] = ((await api.post('/v1/payouts/generate', { program_id: program.id })) as { data: { payouts: { id: string }[] } }).data
    .payouts;
  await api.post('/v1/partners', {
    program_id: program.id,
    first_name: 'Bo',
    last_name: unique('Held'),
    email: uniqueEmail('bo'),
    ...paypal,
  });

  // The payouts list marks it; its badge leads to the payout.
  const owner = await ownerPage(browser, demo, { viewport: DESKTOP });
  await owner.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/payouts`);
  await checkAndShoot(owner, 'payouts');
  await owner.getByRole('link', { name: 'Under review: $20.00 in 1 commission' }).click();
  await expect(owner).toHaveURL(new RegExp(`/payouts/${payout.id}$`));
  const note = owner.locator('.under-review');
  await expect(note).toContainText('Under review: $20.00 in 1 commission of this payout.');
  await checkAndShoot(owner, 'payout');

  // The link leads to the partner's events; cancelling the payout holds the money back.
  await note.getByRole('link', { name: "Review the partner's events on the Risk page" }).click();
  await expect(owner.getByRole('heading', { name: 'Risk', level: 1 })).toBeVisible();
  await expect(owner.locator('.risk-partner')).toContainText('Shares a payout account');
  await owner.goBack();
  // Mark paid asks first, naming the money under review; dismissed, nothing changes.
  await owner.getByText('Mark paid…').click();
  const asked = owner.waitForEvent('dialog').then(async (dialog) => {
    const message = dialog.message();
    await dialog.dismiss();
    return message;
  });
  await owner.getByRole('button', { name: 'Mark paid' }).click();
  expect(await asked).toBe(
    'Mark $20.00 paid? $20.00 in 1 commission of it is under review. Its commissions become paid; this cannot be undone.',
  );
  expect(((await api.get(`/v1/payouts/${payout.id}`)) as { data: { status: string } }).data.status).toBe('pending');
  await owner.getByText('Cancel…').click();
  owner.once('dialog', (dialog) => dialog.accept());
  await owner.getByRole('button', { name: 'Cancel payout' }).click();
  await expect(owner.getByRole('status')).toContainText('Payout canceled');
  await expect(note).toHaveCount(0);
  await owner.context().close();
});
