import { ownerPage, ownProgram, signIn } from './support/dashboard.js';
import { expect, test, unique, uniqueEmail } from './support/fixtures.js';

/**
 * The merchant dashboard (ingest/docs/dashboard.md) in real Chromium, on ingest's own origin:
 * sign-in, the overview's figures against the stats API, partners, bulk approval, API keys, the
 * script tag, roles and CSRF. Server-side rules in detail: ingest/test/dashboard/.
 */

const usd = (cents: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(cents / 100);

test('signs in, refuses a wrong password, signs out', async ({ page, demo }) => {
  await signIn(page, demo, demo.owner_email!, 'not the password');
  await expect(page.getByRole('alert')).toHaveText('That e-mail and password do not match an account.');
  await expect(page.getByLabel('E-mail')).toHaveValue(demo.owner_email!);

  await page.getByLabel('Password').fill(demo.owner_password!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' })).toHaveAttribute(
    'aria-current',
    'page',
  );

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
  await page.goto(`${demo.ingestUrl}/dashboard/integrations`);
  await expect(page).toHaveURL(/\/dashboard\/sign-in\?next=%2Fdashboard%2Fintegrations$/);
});

test('throttles sign-in attempts for an address', async ({ page, demo }) => {
  // Eleven password hashes (scrypt, about 0.3 s each alone, several times that on a busy machine).
  test.setTimeout(90_000);
  const email = uniqueEmail('attacked');
  await page.goto(`${demo.ingestUrl}/dashboard/sign-in`);
  for (let i = 0; i < 10; i++) {
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(`guess ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('That e-mail and password do not match an account.');
  }
  await page.getByLabel('Password').fill('one more guess');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(/^Too many failed sign-in attempts\. Try again in \d+ minutes?\.$/);
});

test("the overview's figures equal the stats API after clicks, signups, payments and a refund", async ({ browser, api, demo }) => {
  const program = await ownProgram(api);
  const partner = (
    await api.post('/v1/partners', { program_id: program.id, first_name: 'Olive', last_name: 'Overview', email: uniqueEmail('olive') })
  ).data[0];
  const clicks = [];
  for (let i = 0; i < 3; i++) clicks.push((await api.post('/v1/clicks', { partner_id: partner.id })).data[0]);
  const first = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('c'), click_id: clicks[0].id })).data[0];
  const second = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('c'), click_id: clicks[1].id })).data[0];
  await api.post('/v1/transactions', { customer_id: first.id, amount: 4900 });
  const big = (await api.post('/v1/transactions', { customer_id: second.id, amount: 10_000 })).data[0];
  await api.put(`/v1/transactions/${big.id}/refund`, { amount: 1000 });

  const today = new Date().toISOString().slice(0, 10);
  const start = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  const stats = (await api.get(`/v1/programs/${program.id}/stats?start=${start}&end=${today}`)).data as any;
  expect(stats.totals).toMatchObject({ clicks: 3, leads: 2, customers: 2, revenue: { USD: 13_900 } });

  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}?days=7`);
  await expect(page.getByText(`${start} – ${today} (UTC days)`)).toBeVisible();
  const figure = (label: string) =>
    page
      .getByTestId('figures')
      .locator('.figure', { has: page.getByText(label, { exact: true }) })
      .locator('.value');
  await expect(figure('Clicks')).toHaveText(String(stats.totals.clicks));
  await expect(figure('Leads')).toHaveText(String(stats.totals.leads));
  await expect(figure('Paying customers')).toHaveText(String(stats.totals.customers));
  await expect(figure('Revenue')).toHaveText(usd(stats.totals.revenue.USD));
  await expect(figure('Commissions')).toHaveText(usd(stats.totals.commissions.USD));
  // The chart is drawn (uPlot), with the same days.
  await expect(page.locator('#chart canvas')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Olive Overview', exact: true })).toBeVisible();

  // A custom period before anything happened: zeros, and the empty state with the tag.
  await page.getByLabel('From', { exact: true }).fill('2026-01-01');
  await page.getByLabel('to', { exact: true }).fill('2026-01-31');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(figure('Clicks')).toHaveText('0');
  await expect(page.getByRole('heading', { name: 'No clicks yet' })).toBeVisible();
});

test('approves a pending partner', async ({ browser, api, demo }) => {
  const email = uniqueEmail('pending');
  const partner = (
    await api.post('/v1/partners', { program_id: demo.program_id, first_name: 'Penny', last_name: unique('P'), email, status: 'pending' })
  ).data[0];
  const page = await ownerPage(browser, demo);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Partners' }).click();
  await page.getByLabel('Search').fill(partner.last_name);
  await page.getByLabel('Status').selectOption('pending');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('link', { name: `Penny ${partner.last_name}` }).click();
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status')).toHaveText('Partner approved.');
  await expect((await api.get(`/v1/partners/${partner.id}`)).data.status).toBe('active');
});

test('approves several commissions at once', async ({ browser, api, demo }) => {
  const program = await ownProgram(api);
  const partner = (
    await api.post('/v1/partners', { program_id: program.id, first_name: 'Bulk', last_name: 'Partner', email: uniqueEmail('bulk') })
  ).data[0];
  const customer = (await api.post('/v1/customers', { partner_id: partner.id, email: uniqueEmail('c') })).data[0];
  for (const amount of [1000, 2000, 3000]) await api.post('/v1/transactions', { customer_id: customer.id, amount });
  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/commissions?status=pending`);
  await expect(page.getByRole('checkbox', { name: /^Choose the commission of .* to Bulk Partner$/ })).toHaveCount(3);
  await page.getByRole('checkbox', { name: 'Choose every commission on this page' }).check();
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status')).toHaveText('Commissions approved.');
  // Back on the same filter (pending): nothing left.
  await expect(page.getByText('No commission matches these filters.')).toBeVisible();
  const all = (await api.get(`/v1/commissions?program_id=${program.id}`)).data;
  expect(all.map((c) => c.status)).toEqual(['approved', 'approved', 'approved']);
});

test('creates an API key in its tab, shown once at the top, and revokes it: the API refuses it at once', async ({ browser, demo }) => {
  const page = await ownerPage(browser, demo);
  await page.getByRole('link', { name: 'Integrations' }).click();
  await page.getByRole('navigation', { name: 'Integrations' }).getByRole('link', { name: 'API keys' }).click();
  await expect(page).toHaveURL(/\/dashboard\/integrations\/api-keys$/);
  const name = unique('e2e key ');
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create a key' }).click();
  const secret = (await page.locator('#new-secret').textContent())!;
  expect(secret).toMatch(/^sk_[0-9A-Za-z]{32}$/);
  // At the top of the tab, right under the tabs, above the keys and the form: in view without scrolling.
  const shown = page.getByRole('status').filter({ has: page.locator('#new-secret') });
  await expect(shown).toBeInViewport();
  const [once, table] = await Promise.all([shown.boundingBox(), page.getByRole('table').boundingBox()]);
  expect(once!.y).toBeLessThan(table!.y);
  const probe = (key: string) =>
    fetch(`${demo.ingestUrl}/v1/programs`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);
  expect(await probe(secret)).toBe(200);

  // Reloading never shows it again.
  await page.goto(`${demo.ingestUrl}/dashboard/integrations/api-keys`);
  await expect(page.locator('#new-secret')).toHaveCount(0);
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('row', { name }).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByRole('status')).toHaveText('API key revoked. Requests with it are refused from now on.');
  expect(await probe(secret)).toBe(401);
});

test('copies the script tag with the program public key', async ({ browser, demo }) => {
  const page = await ownerPage(browser, demo, { permissions: ['clipboard-read', 'clipboard-write'] });
  await page.goto(`${demo.ingestUrl}/dashboard/integrations`);
  const tag = `<script async src="${demo.ingestUrl}/svc.js" data-key="${demo.public_key}"></script>`;
  await expect(page.getByText(tag, { exact: true })).toBeVisible();
  const button = page.locator('.snippet', { has: page.getByRole('heading', { name: 'Acme Partners' }) }).getByRole('button');
  await button.click();
  await expect(button).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(tag);
  await page.context().close();
});

test('a member cannot open the integrations tab', async ({ browser, demo }) => {
  const owner = await ownerPage(browser, demo);
  await owner.goto(`${demo.ingestUrl}/dashboard/integrations/users`);
  const email = uniqueEmail('member');
  await owner.getByLabel('E-mail').fill(email);
  await owner.getByLabel('Role').selectOption('member');
  await owner.getByRole('button', { name: 'Add user' }).click();
  const password = (await owner.locator('#new-password').textContent())!;

  const member = await (await browser.newContext()).newPage();
  await signIn(member, demo, email, password);
  await expect(member.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(member.getByRole('link', { name: 'Integrations' })).toHaveCount(0);
  const answer = await member.goto(`${demo.ingestUrl}/dashboard/integrations`);
  expect(answer?.status()).toBe(403);
  await expect(member.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
});

test('refuses a form posted from another site (CSRF) and answers 404 for ids that are not ours', async ({ browser, demo, api }) => {
  const page = await ownerPage(browser, demo);
  // A name of its own: other tests add and revoke keys of the organization meanwhile.
  const forged = unique('forged ');
  // The demo site is another origin (another port of the same host: the same site, so the cookie goes along).
  await page.goto(`${demo.demoUrl}/`);
  const response = page.waitForResponse((r) => r.url() === `${demo.ingestUrl}/dashboard/integrations/api-keys`);
  await page.evaluate(
    ({ action, name }) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = action;
      const field = Object.assign(document.createElement('input'), { name: 'name', value: name });
      form.append(field);
      document.body.append(form);
      form.submit();
    },
    { action: `${demo.ingestUrl}/dashboard/integrations/api-keys`, name: forged },
  );
  expect((await response).status()).toBe(403);
  // The refused post is a navigation of its own: let it finish before the next one.
  await page.waitForURL(`${demo.ingestUrl}/dashboard/integrations/api-keys`);
  const keys = await api.get('/v1/api-keys?limit=100');
  expect(keys.has_more).toBe(false);
  expect(keys.data.filter((k) => k.name === forged)).toEqual([]);

  for (const path of [
    '/dashboard/programs/prg_000000000000000000000000',
    `/dashboard/programs/${demo.program_id}/partners/part_000000000000000000000000`,
  ]) {
    expect((await page.goto(`${demo.ingestUrl}${path}`))?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  }
});
