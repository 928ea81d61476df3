import { readFile } from 'node:fs/promises';
import { ownerPage } from './support/dashboard.js';
import { type Api, expect, test, unique, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's Payouts pages (ingest/docs/payouts.md) in real Chromium: a manager with approved
 * commissions (made through the API) generates payouts, downloads the PayPal file and marks the
 * payout paid, and the API shows it paid. Server-side rules: ingest/test/dashboard/payouts-pages.test.ts.
 */

/** Lists the client does not type by their path (balances, a payout's commissions): the fields read here. */
async function listOf<T>(api: Api, path: string): Promise<T[]> {
  return ((await api.get(path)) as unknown as { data: T[] }).data;
}
const usd = (cents: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(cents / 100);
type Balance = { amounts: { currency: string; pending: number; payable: number; in_payouts: number; paid: number }[] };

/** A program of the test's own, with a partner paid by PayPal and two approved commissions (no approving by hand). */
async function owedProgram(api: Api) {
  const program = (await api.post('/v1/programs', { name: unique('Payouts '), currency_code: 'USD' })).data[0];
  const paypalEmail = uniqueEmail('paypal');
  const partner = (
    await api.post('/v1/partners', {
      program_id: program.id,
      first_name: 'Paula',
      last_name: unique('Pay'),
      email: uniqueEmail('paula'),
      payout_method: 'paypal',
      payout_details: { email: paypalEmail },
    })
  ).data[0];
  const commissions = [];
  for (const amount of [1500, 2500]) {
    commissions.push(
      (await api.post('/v1/commissions', { program_id: program.id, partner_id: partner.id, amount, status: 'approved' })).data[0],
    );
  }
  return { program, partner, paypalEmail, commissions };
}

test('generates payouts, downloads the PayPal file and marks the payout paid', async ({ browser, api, demo }) => {
  const { program, partner, paypalEmail, commissions } = await owedProgram(api);
  const name = `${partner.first_name} ${partner.last_name}`;
  const page = await ownerPage(browser, demo, { acceptDownloads: true });
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts' }).click();
  await expect(page.getByRole('heading', { name: 'Payouts', level: 1 })).toBeVisible();
  await expect(page.getByText(/^No payouts yet\. Approve commissions/)).toBeVisible();

  // What the partner is owed, as the balances API says.
  await page.getByRole('navigation', { name: 'Payouts views' }).getByRole('link', { name: 'Balances' }).click();
  const [balance] = await listOf<Balance>(api, `/v1/programs/${program.id}/balances`);
  expect(balance.amounts).toEqual([{ currency: 'USD', pending: 0, payable: 4000, in_payouts: 0, paid: 0, on_hold: 0 }]);
  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row.getByRole('cell')).toHaveText(['paypal', '$0.00', 'USD', '$0.00', '$40.00', '$0.00', '$0.00', '$0.00']);

  // Generate: one payout, nobody left out.
  await page.locator('summary', { hasText: 'Generate payouts' }).click();
  await page.locator('form').getByRole('button', { name: 'Generate payouts' }).click();
  await expect(page.getByRole('heading', { name: 'Payouts generated' })).toBeVisible();
  await expect(page.getByRole('heading', { name: '1 payout made' })).toBeVisible();
  const payout = (await api.get(`/v1/payouts?program_id=${program.id}`)).data[0];
  expect(payout).toMatchObject({ status: 'pending', amount: 4000, currency: 'USD', partner_id: partner.id, commission_count: 2 });
  await expect(page.getByRole('row', { name: new RegExp(name) })).toContainText('$40.00');

  // The PayPal Payouts file: no header, the partner's PayPal e-mail, the amount in dollars.
  const downloading = page.waitForEvent('download');
  await page.getByRole('link', { name: 'PayPal file' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^payouts-.+-pending-\d{4}-\d{2}-\d{2}-paypal\.csv$/);
  const file = await readFile((await download.path())!, 'utf8');
  expect(file).toBe(`${paypalEmail},40.00,USD,${payout.id},Partner payout ${payout.id},PAYPAL\r\n`);
  // Byte for byte what the API exports.
  expect(await api.get(`/v1/payouts/export?program_id=${program.id}&format=paypal`)).toBe(file);

  // The payout's page: its commissions, then mark it paid with the PayPal batch id.
  await page.getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { name: new RegExp(`^\\$40\\.00 to ${name}`) })).toBeVisible();
  // Its commissions by their amounts (rows show no ids: ingest/docs/dashboard.md#list-filters).
  for (const c of commissions) await expect(page.getByRole('cell', { name: usd(Number(c.amount)), exact: true })).toBeVisible();
  await page.locator('summary', { hasText: 'Mark paid…' }).click();
  await page.getByLabel(/^Payment reference/).fill('PAYPAL-BATCH-4711');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Mark paid', exact: true }).click();
  await expect(page.getByRole('status')).toHaveText('Payout marked paid: its commissions are paid.');
  await expect(page.getByText('A paid payout is final: it cannot change.')).toBeVisible();

  expect((await api.get(`/v1/payouts/${payout.id}`)).data).toMatchObject({ status: 'paid', reference: 'PAYPAL-BATCH-4711' });
  const paid = await listOf<{ status: string }>(api, `/v1/payouts/${payout.id}/commissions`);
  expect(paid.map((c) => c.status)).toEqual(['paid', 'paid']);
  expect((await listOf<Balance>(api, `/v1/programs/${program.id}/balances`))[0].amounts).toEqual([
    { currency: 'USD', pending: 0, payable: 0, in_payouts: 0, paid: 4000, on_hold: 0 },
  ]);
});
