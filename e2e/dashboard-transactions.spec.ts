import { ownerPage } from './support/dashboard.js';
import { expect, test, unique, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's customers and transactions pages in real Chromium: a manager finds a payment,
 * previews a partial refund's effect on the partner's commission, confirms it, and the API shows
 * the refund and the clawed-back commission. Server-side rules: ingest/test/dashboard/customers-transactions.test.ts.
 */

test('a manager refunds part of a payment after seeing its effect on the commission', async ({ browser, api, demo }) => {
  test.slow(); // Three pages and a dozen API calls: more than the default timeout on a loaded machine.
  // A program of its own (tests run in parallel on one organization): its default flow pays 20 %, pending 30 days.
  const program = (await api.post('/v1/programs', { name: unique('Refunds ') })).data[0];
  const partner = (
    await api.post('/v1/partners', { program_id: program.id, first_name: 'Rita', last_name: 'Refund', email: uniqueEmail('rita') })
  ).data[0];
  const customer = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('buyer') })).data[0];
  const payment = (await api.post('/v1/transactions', { customer_id: customer.id, amount: 10_000, product_name: 'Pro plan' })).data[0];
  const [reward] = (await api.get(`/v1/commissions?program_id=${program.id}&transaction_id=${payment.id}`)).data;
  expect([reward.amount, reward.status]).toEqual([2000, 'pending']);

  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/customers`);
  await page.getByLabel('Search').fill(customer.email!.split('@')[0]);
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByRole('row', { name: new RegExp(customer.email!) })).toContainText('Rita Refund');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Transactions' }).click();
  await page
    .getByRole('row', { name: /Pro plan/ })
    .getByRole('link')
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('$100.00');

  // A partial refund of $30.00: previewed first, nothing changes until it is confirmed.
  await page.getByLabel(/Amount to refund/).fill('30');
  await page.getByRole('button', { name: 'Preview refund' }).click();
  await expect(page.getByRole('heading', { name: 'Refund $30.00 of $100.00?' })).toBeVisible();
  const effect = page.getByRole('row', { name: /The \$20\.00 reward/ });
  await expect(effect.getByRole('cell')).toHaveText(['pending', '$20.00', '$6.00', '$14.00', /refund entry of -\$6\.00, pending/]);
  expect((await api.get(`/v1/transactions/${payment.id}`)).data.refunded_amount).toBe(0);

  await page.getByRole('button', { name: 'Refund $30.00' }).click();
  await expect(page.getByRole('status')).toHaveText('Refund recorded. Its effect on the commissions is listed below.');
  await expect(page.getByRole('row', { name: /Refund entry of the \$20\.00 reward/ })).toContainText('-$6.00');
  await expect(page.getByLabel(/Amount to refund/)).toHaveValue('70.00');

  const after = (await api.get(`/v1/transactions/${payment.id}`)).data;
  expect([after.status, after.refunded_amount]).toEqual(['partially_refunded', 3000]);
  const commissions = (await api.get(`/v1/commissions?program_id=${program.id}&transaction_id=${payment.id}`)).data;
  const entries = commissions.filter((c) => c.id !== reward.id);
  expect(entries.map((c) => [c.amount, c.status, c.revenue])).toEqual([[-600, 'pending', -3000]]);
  expect(commissions.find((c) => c.id === reward.id)!.status).toBe('pending');
});
