import type { Page } from '@playwright/test';
import { expectAxeClean } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { expect, test, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's lists in real Chromium (ingest/docs/dashboard.md#list-filters): a
 * manager filters commissions by typing a partner's name, sees the chosen partner as a chip, and
 * downloads the filtered list as CSV; axe finds nothing at desktop and phone width. Server-side
 * rules in detail: ingest/test/dashboard/list-filters.test.ts.
 */

/** Screenshots for whoever changes these pages to look at, where SCREENSHOTS_DIR says (none otherwise). */
async function screenshot(page: Page, name: string) {
  if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/${name}.png`, fullPage: true });
}

test('a manager filters commissions by typing a partner’s name, sees the chip, and downloads that list as CSV', async ({
  browser,
  api,
  demo,
}) => {
  test.slow(); // Several pages, two widths and four axe runs: more than the default timeout on a loaded machine.
  const program = await ownProgram(api);
  const partner = async (first_name: string, last_name: string) =>
    (await api.post('/v1/partners', { program_id: program.id, first_name, last_name, email: uniqueEmail(last_name.toLowerCase()) }))
      .data[0];
  const stone = await partner('Emma', 'Stone');
  const watson = await partner('Emma', 'Watson');
  for (const [p, amount, name] of [
    [stone, 4900, 'Zoë Quinn'],
    [watson, 12_000, 'Yann Tiersen'],
  ] as const) {
    const customer = (await api.post('/v1/customers', { partner_id: p.id, email: uniqueEmail('buyer'), name })).data[0];
    await api.post('/v1/transactions', { customer_id: customer.id, amount, product_name: 'Pro plan' });
  }

  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/commissions`);
  await expect(page.getByRole('row')).toHaveCount(3);
  await expectAxeClean(page);

  // Typed, not pasted: part of a name finds the one partner, who becomes a removable chip.
  const filters = page.getByRole('form', { name: 'Filter commissions' });
  await filters.getByLabel('Partner').fill('stone');
  await filters.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(new RegExp(`partner_id=${stone.id}`));
  await expect(filters.getByText('Partner: Emma Stone')).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(2);
  await expect(page.getByRole('row', { name: /Emma Stone/ })).toContainText('$9.80');
  // No id stands in the rows.
  expect(await page.locator('tbody').textContent()).not.toMatch(/\b(comm|cust|part|txn)_/);

  // The CSV link carries the filter, as the API's parameter, and the file holds that partner's commission alone.
  const csv = page.getByRole('link', { name: 'Download CSV' });
  await expect(csv).toHaveAttribute('href', `/dashboard/programs/${program.id}/commissions.csv?partner_id=${stone.id}`);
  const file = await page.request.get(`${demo.ingestUrl}${await csv.getAttribute('href')}`);
  expect(file.status()).toBe(200);
  const lines = (await file.text()).trim().split('\r\n');
  expect(lines).toHaveLength(2);
  const [hers] = (await api.get(`/v1/commissions?program_id=${program.id}&partner_id=${stone.id}`)).data;
  expect(lines[1]).toMatch(new RegExp(`^${hers.id},980,`));
  await screenshot(page, 'lists-commissions-filtered');

  // A status keeps the chip: its hidden field goes with the form.
  await filters.getByLabel('Status').selectOption('pending');
  await filters.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(new RegExp(`status=pending&partner_id=${stone.id}`));
  await expect(csv).toHaveAttribute('href', `/dashboard/programs/${program.id}/commissions.csv?status=pending&partner_id=${stone.id}`);

  // Removing the chip, then a name two partners share: both are offered, one click chooses.
  await page.getByRole('link', { name: 'Remove the filter Partner: Emma Stone' }).click();
  await expect(page.getByRole('row')).toHaveCount(3);
  await filters.getByLabel('Partner').fill('Emma');
  await filters.getByRole('button', { name: 'Filter' }).click();
  const choices = page.getByRole('region', { name: /Which partner\?/ });
  await expect(choices.getByRole('link')).toHaveText(['Emma Watson', 'Emma Stone'], { useInnerText: true });
  await expectAxeClean(page);
  await screenshot(page, 'lists-commissions-choices');
  await choices.getByRole('link', { name: 'Emma Watson' }).click();
  await expect(filters.getByText('Partner: Emma Watson')).toBeVisible();
  await expect(page.getByRole('row', { name: /Emma Watson/ })).toContainText('$24.00');

  // A day typed as the browser's locale would: the field's pattern stops the form in the browser
  // (the server refuses it beside the field too, list-filters.test.ts).
  const from = filters.getByLabel('From (YYYY-MM-DD)');
  await from.fill('03/01/2026');
  await filters.getByRole('button', { name: 'Filter' }).click();
  expect(await from.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true);
  await expect(page).not.toHaveURL(/from=/);
  await from.fill('2026-01-01');
  await filters.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/from=2026-01-01/);
  await expect(csv).toHaveAttribute('href', new RegExp(`partner_id=${watson.id}&created_gte=2026-01-01T00%3A00%3A00.000Z$`));

  // At a phone's width, the list and a customer's page.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/commissions?partner_id=${stone.id}`);
  await expectAxeClean(page);
  await screenshot(page, 'lists-commissions-phone');
  await page.getByRole('link', { name: /^buyer/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('buyer');
  await expect(page.getByRole('button', { name: 'Copy the id' })).toBeVisible();
  await expectAxeClean(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, 'lists-customer');
});
