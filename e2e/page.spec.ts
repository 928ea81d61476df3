import type { Route } from '@playwright/test';
import { customersOf, expect, expectClicks, type SvcData, test, uniqueEmail } from './support/fixtures.js';

/** Living in the host page: Stripe links, single-page navigation, and an unreachable ingest. */

test('Stripe: payment links and buy buttons carry the click id, also when added later', async ({ visitor, referral, api }) => {
  const link = await referral();
  const v = await visitor();
  await v.arrive(`/pricing${link.path.slice(1)}`);
  const data = (await v.clicked()).response!.body.data as SvcData;

  await expect(v.page.locator('#stripe-link')).toHaveAttribute(
    'href',
    `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`,
  );
  await expect(v.page.locator('#stripe-button')).toHaveAttribute('client-reference-id', data.click_id);
  // Only Stripe's links.
  await expect(v.page.getByRole('link', { name: 'Sign up' }).last()).toHaveAttribute('href', '/signup');

  await v.page.evaluate(() => {
    const doc = (globalThis as any).document;
    const main = doc.querySelector('main');
    main.insertAdjacentHTML(
      'beforeend',
      '<p><a id="late-link" href="https://buy.stripe.com/test_late?prefilled_email=a%40b.c">Later</a></p>',
    );
    main.insertAdjacentHTML('beforeend', '<div id="late-wrap"></div>');
    doc.getElementById('late-wrap').appendChild(doc.createElement('stripe-pricing-table')).id = 'late-table';
    main.insertAdjacentHTML('beforeend', '<a id="not-stripe" href="https://example.com/buy.stripe.com/">Not Stripe</a>');
  });
  await expect(v.page.locator('#late-link')).toHaveAttribute(
    'href',
    `https://buy.stripe.com/test_late?prefilled_email=a%40b.c&client_reference_id=${data.click_id}`,
  );
  await expect(v.page.locator('#late-table')).toHaveAttribute('client-reference-id', data.click_id);
  await expect(v.page.locator('#not-stripe')).toHaveAttribute('href', 'https://example.com/buy.stripe.com/');

  // A returning visitor's pricing page is decorated from the cookie, with no request.
  await v.page.goto('/pricing');
  await expect(v.page.locator('#stripe-link')).toHaveAttribute(
    'href',
    `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`,
  );
  await expect(v.page.locator('#stripe-button')).toHaveAttribute('client-reference-id', data.click_id);
  await v.ready();
  expect(v.clicks()).toHaveLength(1);
  expect((await v.referralCookies()).svcData).toEqual(data);
  expect(data.partner_id).toBe(link.partnerId);
  await expectClicks(api, link.partnerId, 1);
});

test('single-page navigation: history.pushState to ?ref= is tracked once', async ({ visitor, referral, demo, api }) => {
  const link = await referral();
  const v = await visitor();
  await v.arrive('/pricing');
  expect(await v.svcData()).toBeNull();
  expect(v.calls).toEqual([]);

  await v.page.evaluate((value) => (globalThis as any).history.pushState({ step: 1 }, '', `?ref=${value}#plans`), link.value);
  const click = await v.clicked();
  expect(click.body).toMatchObject({
    key: demo.public_key,
    param: 'ref',
    value: link.value,
    page: `${demo.demoUrl}/pricing?ref=${link.value}`,
  });
  expect(click.response?.status).toBe(200);
  const data = click.response!.body.data as SvcData;
  expect(data.partner_id).toBe(link.partnerId);
  await expect.poll(() => v.svcData()).toEqual(data);
  expect((await v.referralCookies()).svcData).toEqual(data);
  await expect(v.page.locator('#stripe-link')).toHaveAttribute(
    'href',
    `https://buy.stripe.com/test_acme_pro?client_reference_id=${data.click_id}`,
  );

  // The same referral again (pushState, replaceState, back/forward) is not re-sent within the page.
  await v.page.evaluate((value) => {
    const h = (globalThis as any).history;
    h.pushState({}, '', '/pricing');
    h.pushState({}, '', `/pricing?ref=${value}&step=2`);
    h.replaceState({}, '', `/pricing?ref=${value}`);
  }, link.value);
  await v.page.goBack();
  await v.page.goForward();
  await v.flush();
  expect(v.clicks()).toHaveLength(1);
  await expectClicks(api, link.partnerId, 1);
});

/** How ingest can be unreachable from the page, and the status svc.signup() then rejects with. */
const OUTAGES: { name: string; status: number; answer: (route: Route) => Promise<void> }[] = [
  { name: 'connection refused', status: 0, answer: (route) => route.abort('connectionrefused') },
  {
    name: 'a 502 from the proxy that is not JSON',
    status: 502,
    answer: (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }),
  },
];

for (const outage of OUTAGES) {
  test(`ingest down (${outage.name}): the page keeps working, svc_data stays null, svc.signup rejects quietly`, async ({
    visitor,
    referral,
    api,
    demo,
  }) => {
    const link = await referral();
    const v = await visitor();
    v.allowFailures(/\/v1\/track\//);
    await v.context.route('**/v1/track/**', outage.answer);
    await v.arrive(link.path);
    const click = await v.clicked();
    if (outage.status) expect(click.response?.status).toBe(outage.status);
    else expect(click.failure).toBeTruthy();
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

    // A visitor who already has a referral, when ingest goes down: signup rejects with the status, no global error.
    const r = await visitor();
    r.allowFailures(/\/v1\/track\//);
    await r.arrive(link.path);
    const data = (await r.clicked()).response!.body.data as SvcData;
    await r.context.route('**/v1/track/**', outage.answer);
    await r.page.evaluate(() => {
      const w = globalThis as any;
      w.__unhandled = [];
      w.addEventListener('unhandledrejection', (e: any) => w.__unhandled.push(String(e.reason)));
    });
    const outcome = await r.page.evaluate(
      (e) =>
        (globalThis as any).svc.signup(e).then(
          () => 'resolved',
          (err: any) => ({ isError: err instanceof Error, status: err.status }),
        ),
      uniqueEmail('down2'),
    );
    expect(outcome).toEqual({ isError: true, status: outage.status });
    const signup = await r.signedUp();
    if (outage.status) expect(signup.response?.status).toBe(outage.status);
    else expect(signup.failure).toBeTruthy();
    // One full turn of the page's event loop: an unhandled rejection would have been reported by now.
    await r.page.evaluate(() => new Promise((resolve) => setTimeout(resolve)));
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
  });
}

/** svc.js itself not loading: refused, or a server error page instead of the script. */
const SCRIPT_FAILURES: { name: string; answer: (route: Route) => Promise<void> }[] = [
  { name: 'connection refused', answer: (route) => route.abort('connectionrefused') },
  {
    name: 'a 503 error page',
    answer: (route) => route.fulfill({ status: 503, contentType: 'text/html', body: '<h1>Service Unavailable</h1>' }),
  },
];

for (const failure of SCRIPT_FAILURES) {
  test(`svc.js failing to load (${failure.name}): the page and the merchant’s signup keep working`, async ({ visitor, referral, api }) => {
    const link = await referral();
    const v = await visitor();
    v.allowFailures(/\/svc\/svc\.js$/);
    await v.context.route('**/svc/svc.js', failure.answer);

    // An async script holds up the load event until it has run or failed, and goto waits for load.
    await v.page.goto(link.path);
    await expect.poll(() => v.failedRequests.some((f) => f.url.endsWith('/svc/svc.js')), { message: 'svc.js failed to load' }).toBe(true);
    expect(await v.page.evaluate(() => typeof (globalThis as any).svc)).toBe('undefined');
    expect(await v.svcData()).toBeUndefined();
    await expect(v.page.locator('#svc-data')).toHaveText('null');
    expect((await v.referralCookies()).all).toEqual([]);

    await v.page.goto('/signup');
    const email = uniqueEmail('noscript');
    await v.page.locator('#email').fill(email);
    await v.page.getByRole('button', { name: 'Create my account' }).click();
    await v.page.waitForURL(`**/account?email=${encodeURIComponent(email)}`);
    await expect(v.page.locator('#customer-id')).toHaveText('none (not referred)');
    await v.flush();
    expect(v.calls).toEqual([]);
    await expectClicks(api, link.partnerId, 0);
  });
}
