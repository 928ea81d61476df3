import { ownerPage, ownProgram } from './support/dashboard.js';
import { expect, test, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's program settings in real Chromium (ingest/docs/dashboard.md): a commission flow
 * made in the browser pays the next payment reported through the API, and the preview said so.
 * Server-side rules in detail: ingest/test/dashboard/settings.test.ts.
 */

test('create a flow and see the next payment follow it', async ({ browser, api, demo }) => {
  const program = await ownProgram(api);
  const email = uniqueEmail('flat');
  const partner = (await api.post('/v1/partners', { program_id: program.id, first_name: 'Flora', last_name: 'Flat', email })).data[0];
  const page = await ownerPage(browser, demo);

  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/settings`);
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Commission flows' }).click();
  await page.getByRole('link', { name: 'New flow' }).click();
  await page.getByLabel('Name').fill('Flat 5.00 per payment');
  await page.getByLabel('Reward type').selectOption('fixed');
  await page.getByLabel('Reward value').fill('5.00');
  await page.getByLabel('Approve', { exact: true }).selectOption('immediate');
  await page.getByRole('button', { name: 'Create flow' }).click();
  await expect(page.getByRole('status')).toHaveText('Commission flow created. It applies to payments from now on.');

  // The program's first flow (20 %) is switched off, so the new one alone pays.
  await page.getByRole('link', { name: 'Commission flows' }).first().click();
  await page.getByRole('link', { name: 'Default: 20% of every payment' }).click();
  await page.getByLabel('Active', { exact: true }).uncheck();
  await page.getByRole('button', { name: 'Save flow' }).click();
  await expect(page.getByRole('status')).toHaveText('Commission flow saved. Commissions already created keep their amounts.');

  // The preview, in the browser: a payment of 49.00 by this partner's customer.
  await page.getByRole('link', { name: 'Commission flows' }).first().click();
  await page.getByLabel(/^Payment \(/).fill('49.00');
  await page.getByLabel("Partner's e-mail").fill(email);
  await page.getByRole('button', { name: 'Preview' }).click();
  const preview = page.getByRole('region', { name: 'Preview a payment' });
  await expect(preview.getByText('Pays $5.00 in commission')).toBeVisible();
  await expect(preview.getByRole('row', { name: /Flat 5\.00 per payment/ })).toContainText('$5.00');

  // The real payment, reported through the API, earns what the preview showed.
  const customer = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('c') })).data[0];
  const transaction = (await api.post('/v1/transactions', { customer_id: customer.id, amount: 4900 })).data[0];
  const commissions = (await api.get(`/v1/commissions?program_id=${program.id}&transaction_id=${transaction.id}`)).data;
  expect(commissions.map((c) => ({ amount: c.amount, status: c.status }))).toEqual([{ amount: 500, status: 'approved' }]);
});
