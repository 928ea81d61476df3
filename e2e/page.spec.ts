import { customersOf, expect, expectClicks, test, uniqueEmail, type SvcData } from './support/fixtures.js';

/** Living in the host page: Stripe links, single-page navigation, and an unreachable ingest. */

test('Stripe: payment links and buy buttons carry the click id, also when added later', async ({ visitor, referral, api }) => {
  const link = await referral();
  const v = await visitor();
  await v.arrive(`/pricing${link.path.slice(1)}`);
  const data = (await v.clicked()).response!.body.data as SvcData;

  await expect(v.page.locator('#stripe-link')).toHaveAttribute('href', `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`);
  await expect(v.page.locator('#stripe-button')).toHaveAttribute('client-reference-id', data.click_id);
  // Only Stripe's links.
  await expect(v.page.getByRole('link', { name: 'Sign up' }).last()).toHaveAttribute('href', '/signup');

  await v.page.evaluate(() => {
    const doc = (globalThis as any).document;
    const main = doc.querySelector('main');
    main.insertAdjacentHTML('beforeend', '<p><a id="late-link" href="https://buy.stripe.com/test_late?prefilled_email=a%40b.c">Later</a></p>');
    main.insertAdjacentHTML('beforeend', '<div id="late-wrap"></div>');
    doc.getElementById('late-wrap').appendChild(doc.createElement('stripe-pricing-table')).id = 'late-table';
    main.insertAdjacentHTML('beforeend', '<a id="not-stripe" href="https://example.com/buy.stripe.com/">Not Stripe</a>');
  });
  await expect(v.page.locator('#late-link')).toHaveAttribute('href', `https://buy.stripe.com/test_late?prefilled_email=a%40b.c&client_reference_id=${data.click_id}`);
  await expect(v.page.locator('#late-table')).toHaveAttribute('client-reference-id', data.click_id);
  await expect(v.page.locator('#not-stripe')).toHaveAttribute('href', 'https://example.com/buy.stripe.com/');

  // A returning visitor's pricing page is decorated from the cookie, with no request.
  await v.page.goto('/pricing');
  await expect(v.page.locator('#stripe-link')).toHaveAttribute('href', `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`);
  await expect(v.page.locator('#stripe-button')).toHaveAttribute('client-reference-id', data.click_id);
  await v.ready();
  expect(v.clicks()).toHaveLength(1);
  expect((await v.referralCookies()).svcData).toEqual(data);
  expect(data.partner_id).toBe(link.partnerId);
  await expectClicks(api, link.partnerId, 1);
  v.expectNoPageErrors();
});

test('single-page navigation: history.pushState to ?ref= is tracked once', async ({ visitor, referral, demo, api }) => {
  const link = await referral();
  const v = await visitor();
  await v.arrive('/pricing');
  expect(await v.svcData()).toBeNull();
  expect(v.calls).toEqual([]);

  await v.page.evaluate((value) => (globalThis as any).history.pushState({ step: 1 }, '', `?ref=${value}#plans`), link.value);
  const click = await v.clicked();
  expect(click.body).toMatchObject({ key: demo.public_key, param: 'ref', value: link.value, page: `${demo.demoUrl}/pricing?ref=${link.value}` });
  expect(click.response?.status).toBe(200);
  const data = click.response!.body.data as SvcData;
  expect(data.partner_id).toBe(link.partnerId);
  await expect.poll(() => v.svcData()).toEqual(data);
  expect((await v.referralCookies()).svcData).toEqual(data);
  await expect(v.page.locator('#stripe-link')).toHaveAttribute('href', `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`);

  // The same referral again (pushState, replaceState, back/forward) is not re-sent within the page.
  await v.page.evaluate((value) => {
    const h = (globalThis as any).history;
    h.pushState({}, '', '/pricing');
    h.pushState({}, '', `/pricing?ref=${value}&step=2`);
    h.replaceState({}, '', `/pricing?ref=${value}`);
  }, link.value);
  await v.page.goBack();
  await v.page.goForward();
  await v.page.waitForTimeout(300);
  expect(v.clicks()).toHaveLength(1);
  await expectClicks(api, link.partnerId, 1);
  v.expectNoPageErrors();
});

test('ingest down: the page keeps working, svc_data stays null, svc.signup rejects quietly', async ({ visitor, referral, api, demo }) => {
  const link = await referral();
  const v = await visitor();
  await v.context.route('**/v1/track/**', (route) => route.abort('connectionrefused'));
  await v.arrive(link.path);
  const click = await v.clicked();
  expect(click.failure).toBeTruthy();
  expect(click.response).toBeUndefined();
  expect(await v.svcData()).toBeNull();
  await expect(v.page.locator('#svc-data')).toHaveText('null');
  expect((await v.referralCookies()).all).toEqual([]);

  // The merchant's own signup still works (svc.signup is not even called without a referral).
  await v.page.goto('/signup');
  await v.ready();
  const email = uniqueEmail('down');
  await v.page.locator('#email').fill(email);
  await v.page.getByRole('button', { name: 'Create my account' }).click();
  await v.page.waitForURL('**/account?email=*');
  await expect(v.page.locator('#customer-id')).toHaveText('none (not referred)');
  await expectClicks(api, link.partnerId, 0);

  // A visitor who already has a referral, when ingest goes down: signup rejects (status 0), no global error.
  const r = await visitor();
  await r.arrive(link.path);
  const data = (await r.clicked()).response!.body.data as SvcData;
  await r.context.route('**/v1/track/**', (route) => route.abort('connectionrefused'));
  await r.page.evaluate(() => {
    const w = globalThis as any;
    w.__unhandled = [];
    w.addEventListener('unhandledrejection', (e: any) => w.__unhandled.push(String(e.reason)));
  });
  const outcome = await r.page.evaluate((e) =>
    (globalThis as any).svc.signup(e).then(
      () => 'resolved',
      (err: any) => ({ isError: err instanceof Error, status: err.status }),
    ),
  uniqueEmail('down2'));
  // An Error, with no HTTP status to report (the current script says 0).
  expect(outcome).toMatchObject({ isError: true });
  expect([0, undefined]).toContain((outcome as any).status);
  expect((await r.signedUp()).failure).toBeTruthy();
  await r.page.waitForTimeout(100);
  expect(await r.page.evaluate(() => (globalThis as any).__unhandled)).toEqual([]);
  // Through the demo form: the referral is not recorded, the account is still created.
  await r.page.goto('/signup');
  await r.ready();
  await r.page.locator('#email').fill(uniqueEmail('down3'));
  await r.page.getByRole('button', { name: 'Create my account' }).click();
  await r.page.waitForURL('**/account?email=*');
  await expect(r.page.locator('#customer-id')).toHaveText('none (not referred)');
  expect(await r.svcData()).toEqual(data);
  // Only the click made while ingest was up exists; no customer.
  await expectClicks(api, link.partnerId, 1);
  expect(await customersOf(api, demo.program_id, link.partnerId)).toEqual([]);

  v.expectNoPageErrors();
  r.expectNoPageErrors();
});
