import { expectAxeClean, PHONE } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { expect, test, unique } from './support/fixtures.js';

/**
 * The Integrations tabs (ingest/docs/dashboard.md#integrations) in real Chromium: every tab clean
 * for axe at a desktop's and a phone's width; an owner adds a webhook endpoint (a refused URL
 * first) and sees its secret once, and connects Stripe for a program and sees the URL to paste
 * into Stripe. The demo runs without SVC_WEBHOOKS_ALLOW_PRIVATE, so endpoints are public https URLs
 * and these tests check the pages and the API's state, not deliveries
 * (ingest/test/dashboard/integrations.test.ts does).
 */

// One test a tab, so that they share the workers: two widths of axe each.
for (const [tab, path] of [
  ['Script tag', 'script-tag'],
  ['API keys', 'api-keys'],
  ['Stripe', 'stripe'],
  ['Webhooks', 'webhooks'],
  ['Users', 'users'],
]) {
  test(`the ${tab} tab of Integrations is its own page, clean for axe at a desktop and a phone width`, async ({ browser, demo }) => {
    const page = await ownerPage(browser, demo);
    await page.getByRole('link', { name: 'Integrations' }).click();
    await expect(page).toHaveURL(/\/dashboard\/integrations\/script-tag$/);
    const tabs = page.getByRole('navigation', { name: 'Integrations' });
    await tabs.getByRole('link', { name: tab, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/integrations/${path}$`));
    await expect(tabs.getByRole('link', { name: tab, exact: true })).toHaveAttribute('aria-current', 'page');
    // A form folded away (adding an endpoint) is opened: its fields are checked too.
    for (const summary of await page.locator('details.add:not([open]) > summary').all()) await summary.click();
    await expectAxeClean(page, `${tab} (desktop)`);
    await page.setViewportSize(PHONE);
    await expectAxeClean(page, `${tab} (phone)`);
    // Nothing wider than the phone's screen but what scrolls inside its own box (tables, code).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.context().close();
  });
}

test('an owner adds a webhook endpoint and sees its signing secret once', async ({ browser, demo, api }) => {
  const program = await ownProgram(api);
  const url = `https://example.com/hooks/${unique('e2e')}`;
  const description = unique('CRM sync ');
  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/integrations/webhooks`);

  const section = page.getByRole('form', { name: 'Add an endpoint' });
  if (!(await section.getByLabel('Endpoint URL').isVisible())) await page.getByText('Add an endpoint', { exact: true }).click();
  // A private address first: the form again, open, what was typed kept, the reason beside the URL.
  await section.getByLabel('Endpoint URL').fill('https://10.0.0.1/hooks');
  await section.getByLabel('Description (optional)').fill(description);
  await section.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(section.getByLabel('Endpoint URL')).toHaveAccessibleDescription(/Must not point at a private, loopback or reserved address/);
  await expect(section.getByLabel('Endpoint URL')).toHaveValue('https://10.0.0.1/hooks');
  await expect(section.getByLabel('Description (optional)')).toHaveValue(description);
  await expectAxeClean(page, 'refused endpoint form');
  await section.getByLabel('Endpoint URL').fill(url);
  await section.getByLabel('Description (optional)').fill(description);
  await section.getByLabel('Events of').selectOption({ label: program.name });
  await section.getByRole('checkbox', { name: 'Every event', exact: true }).uncheck();
  await section.getByRole('checkbox', { name: 'payout.paid', exact: true }).check();
  await section.getByRole('checkbox', { name: 'payout.failed', exact: true }).check();
  await section.getByRole('button', { name: 'Add endpoint' }).click();

  await expect(page.getByRole('heading', { name: /^Webhook endpoint/ })).toBeVisible();
  const secret = (await page.locator('#new-webhook-secret').textContent())!;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await expect(page.getByRole('button', { name: 'Copy the secret' })).toBeVisible();

  // The API's state is what the form said; its secret is redacted there.
  const listed = (await api.get(`/v1/webhook-endpoints?program_id=${program.id}`)).data;
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({ url, description, events: ['payout.paid', 'payout.failed'], program_id: program.id, enabled: true });
  expect(listed[0].redacted_secret.slice(-4)).toBe(secret.slice(-4));
  expect(page.url()).not.toContain('whsec');

  // Opened again, the page shows the endpoint and an empty delivery log, never the secret.
  await page.goto(`${demo.ingestUrl}/dashboard/integrations/webhooks/${listed[0].id}`);
  await expect(page.locator('#new-webhook-secret')).toHaveCount(0);
  await expect(page.getByText(secret)).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Delivery log' })).toBeVisible();
  await expect(page.getByText('Nothing sent yet.')).toBeVisible();
  await page.getByRole('navigation', { name: 'Integrations' }).getByRole('link', { name: 'Webhooks' }).click();
  await expect(page.getByRole('row', { name: new RegExp(description) })).toContainText(program.name);

  // Pausing is the API's enabled: false; then it goes.
  await page.goto(`${demo.ingestUrl}/dashboard/integrations/webhooks/${listed[0].id}`);
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Webhook endpoint paused/);
  expect((await api.get(`/v1/webhook-endpoints/${listed[0].id}`)).data.enabled).toBe(false);
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Webhook endpoint deleted/);
  expect((await api.get(`/v1/webhook-endpoints?program_id=${program.id}`)).data).toHaveLength(0);
  await page.context().close();
});

test('an owner connects Stripe for a program and sees the webhook URL to paste into Stripe', async ({ browser, demo, api }) => {
  const program = await ownProgram(api);
  const page = await ownerPage(browser, demo, { permissions: ['clipboard-read', 'clipboard-write'] });
  await page.goto(`${demo.ingestUrl}/dashboard/integrations/stripe`);
  await page.getByRole('link', { name: `Connect Stripe for ${program.name}` }).click();
  await expect(page.getByRole('heading', { name: `Stripe for ${program.name}` })).toBeVisible();

  const webhookUrl = `${demo.ingestUrl}/v1/integrations/stripe/webhook/${program.id}`;
  await expect(page.locator('#stripe-webhook-url')).toHaveText(webhookUrl);
  // Found by what it copies: its label changes to "Copied".
  const copy = page.locator(`button[data-copy="${webhookUrl}"]`);
  await expect(copy).toHaveText('Copy the URL');
  await copy.click();
  await expect(copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(webhookUrl);
  await expect(page.locator('#stripe-events')).toContainText('checkout.session.completed');
  await expect(page.locator('#stripe-events')).toContainText('charge.refunded');

  const secret = `whsec_${unique('e2e')}${unique('x')}`;
  await page.getByLabel('Signing secret').fill(secret);
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Stripe connected\./);
  expect(page.url()).not.toContain('whsec');

  const state = (await api.get(`/v1/programs/${program.id}/integrations/stripe`)).data;
  expect(state).toMatchObject({ connected: true, webhook_url: webhookUrl, webhook_secret: `whsec_…${secret.slice(-4)}` });
  await expect(page.getByText(state.webhook_secret!, { exact: true })).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);
  await expect(page.getByLabel('Signing secret')).toHaveValue('');
  await expect(page.locator('#stripe-webhook-url')).toHaveText(webhookUrl);
  await expect(page.getByText('No events yet.', { exact: false })).toBeVisible();
  await page.context().close();
});
