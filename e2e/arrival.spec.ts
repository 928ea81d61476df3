import {
  DAY_SECONDS,
  expect,
  expectClicks,
  expectExpiresIn,
  nowSeconds,
  partnerStats,
  SCRIPT_VERSION,
  type SvcData,
  test,
  uniqueEmail,
} from './support/fixtures.js';

/** Arrivals through a partner link, without one, through an unknown one, and back again. */

for (const [param, value, name] of [
  ['ref', 'alice', 'Alice Archer'],
  ['via', 'bob', 'Bob Baker'],
] as const) {
  test(`arrival with ?${param}=${value} records a click for ${name} and keeps it in cookies`, async ({ visitor, demo, api }) => {
    const partner = demo.partners.find((p) => p.name === name)!;
    expect(partner.link.url).toBe(`${demo.demoUrl}/?${param}=${value}`);
    const before = await partnerStats(api, partner.id);
    const v = await visitor();

    // A referrer with a query and a fragment, and extra query parameters on the landing page: none may leave the browser.
    await v.page.goto(`/partners?secret=1#top`);
    await v.page.evaluate((href) => {
      (globalThis as any).location.href = href;
    }, `/?utm_source=news&${param}=${value}&email=someone%40example.com#pricing`);
    const click = await v.clicked();
    await v.ready();

    expect(click.method).toBe('POST');
    expect(click.url).toBe(`${demo.demoUrl}/svc/v1/track/click`);
    expect(click.headers['content-type']).toMatch(/^text\/plain/);
    expect(click.body).toEqual({
      key: demo.public_key,
      param,
      value,
      page: `${demo.demoUrl}/?${param}=${value}`,
      referrer: `${demo.demoUrl}/partners`,
      v: SCRIPT_VERSION,
      // A first visit: no earlier click, and localhost is a single label (no cookie domain to share).
    });
    expect(click.response?.status).toBe(200);
    const data: SvcData = click.response!.body.data;
    expect(data).toEqual({
      click_id: expect.stringMatching(/^clk_/),
      cookie_duration: 30,
      partner_id: partner.id,
      program_id: demo.program_id,
      customer_id: null,
    });
    expect(click.response!.body.max_age).toBeGreaterThan(30 * DAY_SECONDS - 60);

    expect(await v.svcData()).toEqual(data);
    await expect(v.page.locator('#svc-data')).toContainText(data.click_id);
    const cookies = await v.referralCookies();
    expect(cookies.svcData).toEqual(data);
    expect(cookies.ref?.value).toBe(data.click_id);
    for (const c of [cookies.data!, cookies.ref!]) {
      expect(c).toMatchObject({ domain: 'localhost', path: '/', sameSite: 'Lax', secure: false, httpOnly: false });
      expect(c.expires).toBeGreaterThan(nowSeconds() + 30 * DAY_SECONDS - 120);
      expect(c.expires).toBeLessThan(nowSeconds() + 30 * DAY_SECONDS + 5);
    }
    // One click, no preflight, nothing else.
    expect(v.calls.map((c) => `${c.method} ${c.kind}`)).toEqual(['POST click']);

    await expect.poll(async () => (await partnerStats(api, partner.id)).total_clicks).toBe(before.total_clicks + 1);
  });
}

test('arrival without a referral: svc_data is null and no track request is made', async ({ visitor }) => {
  const v = await visitor();
  await v.arrive('/?utm_source=news&reference=alice');
  await v.page.goto('/pricing');
  await v.ready();
  // Any request the script made is recorded by now.
  await v.flush();

  expect(await v.svcData()).toBeNull();
  expect(await v.page.evaluate(() => typeof (globalThis as any).svc?.signup)).toBe('function');
  await expect(v.page.locator('#stripe-link')).toHaveAttribute('href', 'https://buy.stripe.com/test_acme_pro');
  expect(v.calls).toEqual([]);
  expect((await v.referralCookies()).all).toEqual([]);
  // svc.signup without a referral rejects with status 400 and sends nothing.
  const outcome = await v.page.evaluate(() =>
    (globalThis as any).svc.signup('nobody@example.com').then(
      () => 'resolved',
      (err: any) => ({ status: err.status, message: err.message }),
    ),
  );
  expect(outcome).toEqual({ status: 400, message: 'No referral' });
  await v.flush();
  expect(v.calls).toEqual([]);
});

test('a link for an unknown value: 404 answered, no cookie, svc_data null, no page error', async ({ visitor, demo }) => {
  const v = await visitor();
  await v.arrive('/?ref=nobody-by-this-name');
  const click = await v.clicked();

  expect(click.body).toMatchObject({ key: demo.public_key, param: 'ref', value: 'nobody-by-this-name' });
  expect(click.response?.status).toBe(404);
  expect(click.response?.body).toEqual({ success: false, error: 'Link not found' });
  expect(await v.svcData()).toBeNull();
  await expect(v.page.locator('#svc-data')).toHaveText('null');
  expect((await v.referralCookies()).all).toEqual([]);
  expect(v.clicks()).toHaveLength(1);
});

test('returning visitor: svc_data is set from the cookie synchronously, before any track request completes', async ({
  visitor,
  referral,
  api,
}) => {
  const link = await referral();
  const v = await visitor();
  await v.arrive(link.path);
  const first = (await v.clicked()).response!.body.data as SvcData;

  // From now on, record every write to window.svc_data and the script's fetches, in order.
  await v.context.addInitScript(() => {
    const w = globalThis as any;
    const log: any[] = [];
    w.__log = log;
    let value: unknown;
    Object.defineProperty(w, 'svc_data', {
      configurable: true,
      get: () => value,
      set(next) {
        const script = w.document.currentScript;
        log.push({ event: 'set', value: next === null ? null : JSON.parse(JSON.stringify(next)), during: script ? script.src : null });
        value = next;
      },
    });
    const fetch = w.fetch;
    w.fetch = function (input: any, init?: any) {
      const path = new URL(String(input), w.location.href).pathname;
      log.push({ event: 'fetch', path });
      return fetch.call(this, input, init).then((res: any) => {
        log.push({ event: 'response', path });
        return res;
      });
    };
  });

  // Back through the link: the click is held until the test has seen svc_data, which must not wait for it.
  let releaseClick = () => {};
  const held = new Promise<void>((resolve) => (releaseClick = resolve));
  await v.context.route('**/v1/track/click', async (route) => {
    await held;
    await route.continue();
  });
  await v.page.goto(link.path, { waitUntil: 'commit' });
  await v.page.waitForFunction(() => (globalThis as any).__log?.length > 0);
  expect(await v.svcData()).toEqual(first);
  expect(await v.page.evaluate(() => (globalThis as any).__svcReady)).toBe(false);
  releaseClick();
  await v.ready();
  const again = await v.clicked(2);
  const log = await v.page.evaluate(() => (globalThis as any).__log);
  expect(log[0]).toEqual({ event: 'set', value: first, during: expect.stringMatching(/\/svc\/svc\.js$/) });
  expect(log.slice(1).map((e: any) => `${e.event} ${e.path ?? ''}`.trim())).toEqual([
    'fetch /svc/v1/track/click',
    'response /svc/v1/track/click',
    'set',
  ]);
  // The repeat within the hour names the visitor's click and gets the same one back.
  expect(again.body.click_id).toBe(first.click_id);
  expect(again.response?.body.data).toEqual(first);

  // A page without a referral: the cookie is all it takes; no request at all.
  await v.page.goto('/signup');
  await v.ready();
  expect(await v.svcData()).toEqual(first);
  const log2 = await v.page.evaluate(() => (globalThis as any).__log);
  expect(log2).toEqual([{ event: 'set', value: first, during: expect.stringMatching(/\/svc\/svc\.js$/) }]);
  await expect(v.page.locator('#svc-data')).toContainText(first.click_id);
  expect(v.clicks()).toHaveLength(2);
  expect((await partnerStats(api, link.partnerId)).total_clicks).toBe(1);
});

/** Ingest's test hook (SVC_TEST_HOOKS=1): the click becomes `seconds` old, as the server sees it (its created_at moves back). */
async function ageClick(ingestUrl: string, clickId: string, seconds: number): Promise<void> {
  const res = await fetch(`${ingestUrl}/__test/clicks/${clickId}/age`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ seconds }),
  });
  expect(res.status, `aging ${clickId}`).toBe(204);
}

const setCookieHeaders = (headers: { name: string; value: string }[]) =>
  headers.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value);

test('the referral ends cookie_duration days after the click, whatever the visitor’s clock says', async ({
  visitor,
  referral,
  api,
  demo,
}) => {
  // It waits for the browser to drop the cookies on its own (real) clock: LEFT seconds and more.
  test.slow();
  const link = await referral();
  const DURATION = 30 * DAY_SECONDS;
  // Seconds of the referral left once its click has been aged: the signup and the check of its
  // cookies must fit in them, on a loaded machine too.
  const LEFT = 6;

  // Same-site mode (the default): the server's Set-Cookie carries Max-Age = cookie_duration days.
  const proxied = await visitor();
  const since = Date.now();
  await proxied.arrive(link.path);
  const proxiedClick = await proxied.clicked();
  const data = proxiedClick.response!.body.data as SvcData;
  expect(data.cookie_duration).toBe(30);
  expect(proxiedClick.response!.body.cookie).toBe(true);
  const maxAge = proxiedClick.response!.body.max_age as number;
  expect(maxAge).toBeGreaterThan(DURATION - 60);
  expect(maxAge).toBeLessThanOrEqual(DURATION);
  for (const header of setCookieHeaders(proxiedClick.response!.headers)) expect(header).toContain(`Max-Age=${maxAge}`);
  const proxiedCookie = (await proxied.referralCookies()).data!;
  expectExpiresIn(proxiedCookie.expires, maxAge, since);

  // Direct mode, on a visitor whose clock is 30 days behind: the script writes max-age, so the
  // browser ends the cookie cookie_duration days from now all the same (with expires computed from
  // the page's clock it would have ended within seconds).
  const late = await visitor();
  const lateSince = Date.now();
  await late.page.clock.install({ time: Date.now() - DURATION * 1000 + LEFT * 1000 });
  await late.arrive(`${link.path}&svc_mode=direct`);
  expect(await late.page.evaluate(() => Date.now())).toBeLessThan(Date.now() - DURATION * 1000 + 60_000);
  const click = await late.clicked();
  expect(click.response?.body.cookie).toBe(false);
  const lateData = click.response!.body.data as SvcData;
  expect(await late.svcData()).toEqual(lateData);
  const lateCookies = await late.referralCookies();
  expect(lateCookies.svcData).toEqual(lateData);
  for (const c of [lateCookies.data!, lateCookies.ref!]) {
    expectExpiresIn(c.expires, click.response!.body.max_age, lateSince);
  }

  // Time passes for each click on the server: it is now cookie_duration days minus LEFT seconds
  // old. Each visitor signs up at once; the answer keeps the click's end, LEFT seconds away, which
  // the server's Set-Cookie (same-site) and the script's max-age (direct) hand to the browser.
  await ageClick(demo.ingestUrl, data.click_id, DURATION - LEFT);
  const proxiedResult = await proxied.page.evaluate((e) => (globalThis as any).svc.signup(e), uniqueEmail('ending'));
  const proxiedSignup = await proxied.signedUp();
  expect(proxiedSignup.response!.body.max_age).toBeLessThanOrEqual(LEFT);
  for (const header of setCookieHeaders(proxiedSignup.response!.headers))
    expect(header).toContain(`Max-Age=${proxiedSignup.response!.body.max_age}`);
  expect((await proxied.referralCookies()).svcData).toEqual({ ...data, customer_id: proxiedResult.customer_id });
  await ageClick(demo.ingestUrl, lateData.click_id, DURATION - LEFT);
  const lateResult = await late.page.evaluate((e) => (globalThis as any).svc.signup(e), uniqueEmail('ending'));
  const lateSignup = await late.signedUp();
  expect(lateSignup.response!.body.cookie).toBe(false);
  expect(lateSignup.response!.body.max_age).toBeLessThanOrEqual(LEFT);
  expect((await late.referralCookies()).svcData).toEqual({ ...lateData, customer_id: lateResult.customer_id });

  // Then the referral is gone, on the browser's own (real) clock.
  for (const v of [proxied, late]) {
    await expect
      .poll(async () => (await v.referralCookies()).all.map((c) => c.name), { timeout: (LEFT + 5) * 1000, intervals: [250] })
      .toEqual([]);
  }
  await proxied.page.goto('/signup');
  await late.page.goto('/signup?svc_mode=direct');
  for (const v of [proxied, late]) {
    await v.ready();
    expect(await v.svcData()).toBeNull();
    await expect(v.page.locator('#svc-data')).toHaveText('null');
    await expect(v.page.evaluate(() => (globalThis as any).svc.signup('nobody@example.com').catch((err: any) => err.status))).resolves.toBe(
      400,
    );
    await v.flush();
    expect(v.clicks()).toHaveLength(1);
    expect(v.signups()).toHaveLength(1);
  }
  await expectClicks(api, link.partnerId, 2);
});
