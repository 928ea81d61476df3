import { expectAxeClean, PHONE } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { expect, test, uniqueEmail } from './support/fixtures.js';

/**
 * The dashboard's program settings in real Chromium (ingest/docs/dashboard.md): a refused form
 * keeps what was typed with the reason beside the field, every settings page is clean for axe at a
 * desktop's and a phone's width, and a commission flow made in the browser pays the next payment
 * reported through the API, as the preview said. Server-side rules in detail:
 * ingest/test/dashboard/settings.test.ts.
 */

test('a cookie duration of 0 is refused beside its field, with everything typed kept', async ({ browser, api, demo }) => {
  const program = await ownProgram(api);
  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/settings`);
  // Without a website address the form says why it matters.
  await expect(page.getByRole('group', { name: 'Your website' })).toContainText('Not set yet: partners have no link to share.');

  await page.getByLabel('Name', { exact: true }).fill(`${program.name} renamed`);
  await page.getByLabel('Cookie duration (days)').fill('0');
  await page.getByLabel('Website address').fill('https://shop.example/');
  await page.getByRole('button', { name: 'Save settings' }).click();

  await expect(page.getByRole('alert')).toHaveText('This form was not saved: see the message beside the field.');
  const duration = page.getByLabel('Cookie duration (days)');
  await expect(duration).toHaveValue('0');
  await expect(duration).toHaveAttribute('aria-invalid', 'true');
  await expect(duration).toHaveAccessibleDescription(/Must be at least 1\./);
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(`${program.name} renamed`);
  await expect(page.getByLabel('Website address')).toHaveValue('https://shop.example/');
  await expectAxeClean(page, 'refused settings (desktop)');
  await page.setViewportSize(PHONE);
  await expectAxeClean(page, 'refused settings (phone)');
  expect((await api.get(`/v1/programs/${program.id}`)).data).toMatchObject({ cookie_duration: 30, website_url: null, name: program.name });

  // Corrected, it saves all of it.
  await duration.fill('45');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status')).toHaveText('Program settings saved.');
  expect((await api.get(`/v1/programs/${program.id}`)).data).toMatchObject({
    cookie_duration: 45,
    website_url: 'https://shop.example/',
    name: `${program.name} renamed`,
  });
  await page.context().close();
});

// One test a page, so that they share the workers: two widths of axe each.
for (const [page_, path] of [
  ['General', ''],
  ['Commission flows', '/flows'],
  ['New flow', '/flows/new'],
  ['Groups', '/groups'],
  ['Promotion codes', '/promotion-codes'],
  ['Portal branding', '/branding'],
]) {
  test(`the settings page ${page_} is clean for axe at a desktop and a phone width`, async ({ browser, api, demo }) => {
    const program = await ownProgram(api);
    const page = await ownerPage(browser, demo);
    await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/settings${path}`);
    const current = page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: page_ === 'New flow' ? 'Commission flows' : page_ });
    await expect(current).toHaveAttribute('aria-current', 'page');
    // The forms folded away are opened: their fields are checked too.
    for (const summary of await page.locator('details.add:not([open]) > summary').all()) await summary.click();
    await expectAxeClean(page, `${page_} (desktop)`);
    await page.setViewportSize(PHONE);
    await expectAxeClean(page, `${page_} (phone)`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.context().close();
  });
}

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
