import type { Page } from '@playwright/test';
import { expectAxeClean, PHONE } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { type Api, expect, test, unique, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's partners and payouts pages in real Chromium (ingest/docs/dashboard.md): a
 * manager approves two pending partners at once and the navigation's count drops; a refused new
 * partner keeps what was typed; axe finds nothing on the list, a partner, the payouts and a
 * refused form, at desktop and phone width. Server-side rules: ingest/test/dashboard/partners-pages.test.ts.
 */

const DESKTOP = { width: 1280, height: 900 };

/** No axe violation at desktop width and (unless told) at a phone's. */
async function expectAxeCleanAt(page: Page, widths: readonly { width: number; height: number }[] = [DESKTOP, PHONE]) {
  for (const size of widths) {
    await page.setViewportSize(size);
    await expectAxeClean(page, `${page.url()} at ${size.width}px`);
  }
  await page.setViewportSize(DESKTOP);
}

/** Screenshots for whoever changes these pages to look at, where SCREENSHOTS_DIR says (none otherwise). */
async function screenshot(page: Page, name: string) {
  if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/${name}.png`, fullPage: true });
}

/** A partner of the program, in the status given. */
const partnerOf = async (api: Api, programId: string, first_name: string, last_name: string, fields: Record<string, unknown> = {}) =>
  (
    await api.post('/v1/partners', {
      program_id: programId,
      first_name,
      last_name,
      email: uniqueEmail(first_name.toLowerCase()),
      ...fields,
    })
  ).data[0];

test('a manager approves two pending partners at once, the count in the navigation drops, and a refused new partner keeps its name', async ({
  browser,
  api,
  demo,
}) => {
  test.slow(); // Several pages, each checked by axe at two widths.
  const program = await ownProgram(api);
  const tag = unique('Tag');
  const [pia, quinn] = [
    await partnerOf(api, program.id, 'Pia', tag, { status: 'pending' }),
    await partnerOf(api, program.id, 'Quinn', tag, { status: 'pending' }),
  ];
  await partnerOf(api, program.id, 'Rex', tag, { status: 'pending' });
  const active = await partnerOf(api, program.id, 'Sam', tag);

  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/partners?status=pending`);
  const partnersLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Partners/ });
  await expect(partnersLink).toHaveAccessibleName('Partners (3 partners awaiting review)');
  await expect(partnersLink.locator('.nav-count')).toHaveText('3');
  // The program has no website address yet: its pages ask for one.
  await expect(page.getByRole('link', { name: 'Add your website address in Settings so partners get links they can share' })).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(4);
  await expectAxeCleanAt(page);
  await screenshot(page, 'partners-list');

  await page.getByRole('checkbox', { name: `Choose Pia ${tag}` }).check();
  await page.getByRole('checkbox', { name: `Choose Quinn ${tag}` }).check();
  await page.getByRole('form', { name: 'Change the chosen partners' }).getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status')).toHaveText('2 partners approved.');
  await expect(partnersLink).toHaveAccessibleName('Partners (1 partner awaiting review)');
  // Back on the same filter: the one still pending.
  await expect(page.getByRole('row')).toHaveCount(2);
  for (const p of [pia, quinn]) expect((await api.get(`/v1/partners/${p.id}`)).data.status).toBe('active');

  // A new partner with an e-mail the program has: the form comes back open, the name as typed, the reason beside the e-mail.
  await page.getByText('Add a partner').click();
  const form = page.locator('details.add form');
  await form.getByLabel('First name').fill('Tess');
  await form.getByLabel('Last name').fill(tag);
  await form.getByLabel('E-mail').fill(active.email);
  await form.getByRole('button', { name: 'Create partner' }).click();
  await expect(page.getByText('Another partner of this program has this e-mail address.')).toBeVisible();
  await expect(form.getByLabel('First name')).toHaveValue('Tess');
  await expect(form.getByLabel('Last name')).toHaveValue(tag);
  await expect(form.getByLabel('E-mail')).toHaveAttribute('aria-invalid', 'true');
  await expectAxeCleanAt(page, [DESKTOP]);
  await screenshot(page, 'partners-refused-form');
  expect((await api.get(`/v1/partners?program_id=${program.id}&search=Tess`)).data).toEqual([]);
});

test('a partner’s page and the payouts page: ids behind copy buttons only, axe clean', async ({ browser, api, demo }) => {
  test.slow();
  const program = (await api.post('/v1/programs', { name: unique('Shop '), website_url: 'https://shop.example/' })).data[0];
  const partner = await partnerOf(api, program.id, 'Uma', unique('Page'), {
    payout_method: 'paypal',
    payout_details: { email: uniqueEmail('uma-paypal') },
  });
  await api.post('/v1/links', { param: 'ref', value: unique('uma'), partner_id: partner.id });
  const customer = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('buyer') })).data[0];
  await api.post('/v1/transactions', { customer_id: customer.id, amount: 4900, product_name: 'Pro plan' });
  for (const amount of [1500, 2500]) {
    await api.post('/v1/commissions', { program_id: program.id, partner_id: partner.id, amount, status: 'approved' });
  }
  await api.post('/v1/payouts/generate', { program_id: program.id });

  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/partners/${partner.id}`);
  await expect(page.getByRole('heading', { name: new RegExp(`^Uma ${partner.last_name}`), level: 1 })).toBeVisible();
  // The link to share, whole; the partner's id once, with its copy button; no id in the rows.
  await expect(page.getByText(/^https:\/\/shop\.example\/\?ref=uma/)).toBeVisible();
  await expect(page.getByText(partner.id, { exact: true })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Copy the id' })).toBeVisible();
  expect((await page.locator('tbody').allTextContents()).join(' ')).not.toMatch(/\b(part|cust|comm|po|lnk)_/);
  await expect(page.getByRole('link', { name: /Add your website address/ })).toHaveCount(0);
  await expectAxeCleanAt(page);
  await screenshot(page, 'partner');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts' }).click();
  await expect(page.getByRole('heading', { name: 'Payouts', level: 1 })).toBeVisible();
  const row = page.getByRole('row', { name: new RegExp(`Uma ${partner.last_name}`) });
  await expect(row).toContainText('$40.00');
  expect((await page.locator('tbody').allTextContents()).join(' ')).not.toMatch(/\b(part|po)_/);
  await expect(page.getByRole('link', { name: 'Download CSV' })).toHaveAttribute('href', `/dashboard/programs/${program.id}/payouts.csv`);
  await expectAxeCleanAt(page);
  await screenshot(page, 'payouts');

  // A generation's day that is no day: the form comes back open with the day as typed and the reason beside it.
  await page.locator('summary', { hasText: 'Generate payouts' }).click();
  await page.getByLabel(/^Commissions made up to/).fill('2026-02-30');
  await page.locator('details.add form').getByRole('button', { name: 'Generate payouts' }).click();
  await expect(page.locator('#filter-up_to_day-error')).toBeVisible();
  await expect(page.getByLabel(/^Commissions made up to/)).toHaveValue('2026-02-30');
  await expectAxeCleanAt(page, [DESKTOP]);
  await screenshot(page, 'payouts-refused-day');
});
