import {
  DAY_SECONDS,
  expect,
  expectClicks,
  newReferral,
  partnerStats,
  type SvcData,
  test,
  unique,
  uniqueEmail,
} from './support/fixtures.js';

/**
 * Where a referral used to get lost: two tabs, a visitor who leaves before the click is answered,
 * a page that strips ?ref= before the async tag runs, hash-routed apps, a damaged svc_data cookie,
 * and the cookie-domain probe on a visitor whose clock runs ahead.
 */

const signUp = (page: import('@playwright/test').Page, email: string) => page.evaluate((e) => (globalThis as any).svc.signup(e), email);

for (const model of ['last_click', 'first_click'] as const) {
  test(`two tabs, ${model}: the signup credits the ${model === 'last_click' ? 'newest' : 'first'} referral, whichever tab it happens in`, async ({
    visitor,
    api,
  }) => {
    const program = (await api.post('/v1/programs', { name: `E2E tabs ${model} ${unique()}`, attribution_model: model })).data[0];
    const alice = await newReferral(api, program.id, 'ref');
    const bob = await newReferral(api, program.id, 'via');
    const v = await visitor();
    // Tab B is open (no referral yet) before tab A lands on Alice's link.
    const tabB = await v.context.newPage();
    await v.arrive(`/pricing?svc_key=${program.public_key}`, tabB);
    const tabA = v.page;
    await v.arrive(`${alice.path}&svc_key=${program.public_key}`, tabA);
    const aliceData = (await v.clicked(1)).response!.body.data as SvcData;
    expect(aliceData.partner_id).toBe(alice.partnerId);

    // Then tab B (a single-page app) navigates to Bob's link: it names the referral the shared
    // cookie holds now, not the none it read at load.
    await tabB.evaluate(
      (path) => (globalThis as any).history.pushState({}, '', path),
      `/pricing${bob.path.slice(1)}&svc_key=${program.public_key}`,
    );
    const bobClick = await v.clicked(2);
    expect(bobClick.body).toMatchObject({ param: 'via', value: bob.value, click_id: aliceData.click_id });
    const winner = model === 'last_click' ? bob : alice;
    const current = bobClick.response!.body.data as SvcData;
    expect(current.partner_id).toBe(winner.partnerId);
    // Tab A still holds what it read at load.
    expect((await v.svcData(tabA))!.partner_id).toBe(alice.partnerId);

    // The signup happens in the tab that landed on the other link.
    const signupTab = model === 'last_click' ? tabA : tabB;
    const result = await signUp(signupTab, uniqueEmail('tabs'));
    expect(result).toMatchObject({ click_id: current.click_id, partner_id: winner.partnerId });
    expect((await v.signedUp()).body.click_id).toBe(current.click_id);
    // The cookie keeps the winner (not the signing tab's stale copy), now with the customer.
    const expected = { ...current, customer_id: result.customer_id };
    expect((await v.referralCookies()).svcData).toEqual(expected);
    expect(await v.svcData(signupTab)).toEqual(expected);
    const customer = (await api.get(`/v1/customers/${result.customer_id}`)).data;
    expect(customer).toMatchObject({ partner_id: winner.partnerId, click_id: current.click_id, status: 'lead' });
  });
}

test('leaving before the click is answered: the next page finishes it, and the referral is kept', async ({
  visitor,
  referral,
  api,
  demo,
}) => {
  const link = await referral();
  const v = await visitor();
  // The first click's answer is held (a slow network) until the visitor has moved on.
  let first = true;
  let moveOn!: () => void;
  const movedOn = new Promise<void>((resolve) => (moveOn = resolve));
  await v.context.route('**/v1/track/click', async (route) => {
    if (first) {
      first = false;
      await movedOn;
    }
    // The page that sent it may be gone by now.
    await route.continue().catch(() => undefined);
  });
  v.allowFailures(/\/v1\/track\/click$/);
  // Direct mode: only the script writes cookies here, so nothing but the script can keep the referral.
  await v.page.goto(`/pricing${link.path.slice(1)}&svc_mode=direct`);
  await expect.poll(() => v.clicks().length).toBe(1);
  expect(v.clicks()[0].response).toBeUndefined();
  await v.page.goto('/signup?svc_mode=direct');
  moveOn();
  const again = await v.clicked(2);
  expect(again.body).toMatchObject({ param: 'ref', value: link.value, page: `${demo.demoUrl}/pricing?ref=${link.value}` });
  expect(again.response?.status).toBe(200);
  const data = again.response!.body.data as SvcData;
  expect(data.partner_id).toBe(link.partnerId);
  await v.ready();
  expect(await v.svcData()).toEqual(data);
  const cookies = await v.referralCookies();
  expect(cookies.svcData).toEqual(data);
  // The job is done: nothing pending is left to send again.
  expect(cookies.all.map((c) => c.name).sort()).toEqual(['svc_data', 'svc_ref']);
  await v.page.goto('/pricing?svc_mode=direct');
  await v.ready();
  await v.flush();
  expect(v.clicks()).toHaveLength(2);
  // Whichever request reached ingest first, the other is the same visitor's repeat within the hour.
  await expectClicks(api, link.partnerId, 1);
  const result = await signUp(v.page, uniqueEmail('early'));
  expect(result).toMatchObject({ click_id: data.click_id, partner_id: link.partnerId });
});

test('a page that removes ?ref= with replaceState before the async tag runs: the landing URL is tracked', async ({
  visitor,
  referral,
  demo,
}) => {
  const link = await referral();
  const v = await visitor();
  // The merchant's page: an inline script ahead of the tag cleans the address bar.
  await v.context.route(
    (url) => url.pathname === '/pricing' && url.searchParams.has('ref'),
    async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace('<head>', "<head><script>history.replaceState(null, '', location.pathname);</script>");
      await route.fulfill({ response, body: html });
    },
  );
  await v.arrive(`/pricing${link.path.slice(1)}&utm_source=news`);
  expect(await v.page.evaluate(() => (globalThis as any).location.href)).toBe(`${demo.demoUrl}/pricing`);
  const click = await v.clicked();
  expect(click.body).toMatchObject({ param: 'ref', value: link.value, page: `${demo.demoUrl}/pricing?ref=${link.value}` });
  const data = click.response!.body.data as SvcData;
  expect(data.partner_id).toBe(link.partnerId);
  expect(await v.svcData()).toEqual(data);
  expect((await v.referralCookies()).svcData).toEqual(data);

  // A later navigation inside the page does not bring the landing referral back.
  await v.page.evaluate(() => (globalThis as any).history.pushState({}, '', '/pricing?step=2'));
  await v.flush();
  expect(v.clicks()).toHaveLength(1);
});

test('hash-routed apps: #/route?ref= and #ref= are tracked, on arrival and on a hash change', async ({ visitor, referral, api, demo }) => {
  const routed = await referral();
  const plain = await referral('via');
  const changed = await referral();

  const v = await visitor();
  await v.arrive(`/#/pricing?plan=pro&ref=${routed.value}`);
  const click = await v.clicked();
  expect(click.body).toMatchObject({ param: 'ref', value: routed.value, page: `${demo.demoUrl}/?ref=${routed.value}` });
  expect((click.response!.body.data as SvcData).partner_id).toBe(routed.partnerId);

  const w = await visitor();
  await w.arrive(`/pricing#via=${plain.value}`);
  const plainClick = await w.clicked();
  expect(plainClick.body).toMatchObject({ param: 'via', value: plain.value, page: `${demo.demoUrl}/pricing?via=${plain.value}` });
  expect((plainClick.response!.body.data as SvcData).partner_id).toBe(plain.partnerId);

  // The app's router moves to another hash route carrying a referral.
  await w.page.evaluate((value) => ((globalThis as any).location.hash = `#/signup?ref=${value}`), changed.value);
  const changedClick = await w.clicked(2);
  expect(changedClick.body).toMatchObject({ param: 'ref', value: changed.value });
  const data = changedClick.response!.body.data as SvcData;
  expect(data.partner_id).toBe(changed.partnerId);
  await expect.poll(() => w.svcData()).toEqual(data);
  expect((await w.referralCookies()).svcData).toEqual(data);
  await expectClicks(api, routed.partnerId, 1);
  await expectClicks(api, plain.partnerId, 1);
});

for (const [what, value] of [
  [
    'click_id a number',
    encodeURIComponent(
      JSON.stringify({ click_id: 12345, cookie_duration: 30, partner_id: 'part_x', program_id: 'prg_x', customer_id: null }),
    ),
  ],
  ['click_id an object', encodeURIComponent(JSON.stringify({ click_id: { id: 'clk_1' } }))],
  ['not JSON', '%7Bdamaged'],
] as const) {
  test(`a damaged svc_data cookie (${what}) is ignored, and the next referral replaces it`, async ({ visitor, referral, demo }) => {
    const link = await referral();
    const v = await visitor();
    await v.context.addCookies([{ name: 'svc_data', value, url: demo.demoUrl }]);
    await v.arrive('/signup');
    expect(await v.svcData()).toBeNull();
    await expect(v.page.evaluate(() => (globalThis as any).svc.signup('nobody@example.com').catch((err: any) => err.status))).resolves.toBe(
      400,
    );

    await v.arrive(link.path);
    const click = await v.clicked();
    expect('click_id' in click.body).toBe(false);
    expect(click.response?.status).toBe(200);
    const data = click.response!.body.data as SvcData;
    expect(data.partner_id).toBe(link.partnerId);
    expect(await v.svcData()).toEqual(data);
    expect((await v.referralCookies()).svcData).toEqual(data);
  });
}

test('the cookie-domain probe leaves nothing behind on a visitor whose clock is two days ahead', async ({
  visitor,
  referral,
  demoPort,
  api,
}) => {
  const link = await referral();
  const www = `http://www.shop.test:${demoPort}`;
  const v = await visitor();
  await v.page.clock.install({ time: Date.now() + 2 * DAY_SECONDS * 1000 });
  await v.arrive(`${www}${link.path}`);
  expect(await v.page.evaluate(() => Date.now())).toBeGreaterThan(Date.now() + 2 * DAY_SECONDS * 1000 - 60_000);
  const click = await v.clicked();
  expect(click.body.cookie_domain).toBe('shop.test');
  expect((click.response!.body.data as SvcData).partner_id).toBe(link.partnerId);
  expect((await v.context.cookies(www)).map((c) => `${c.name} ${c.domain}`).sort()).toEqual(['svc_data .shop.test', 'svc_ref .shop.test']);
  expect((await partnerStats(api, link.partnerId)).total_clicks).toBe(1);
});
