import {
  customersOf,
  DAY_SECONDS,
  expect,
  expectClicks,
  expectExpiresIn,
  nowSeconds,
  SCRIPT_VERSION,
  type SvcData,
  test,
} from './support/fixtures.js';

/** Where the script and its API live, and who writes the cookies: same-site proxy, direct, consent, subdomains. */

const setCookies = (headers: { name: string; value: string }[]) =>
  headers.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value);

test('same-site proxy mode (the default): the click response sets the cookies itself', async ({ visitor, referral, demo, api }) => {
  const link = await referral();
  const v = await visitor();
  const script = v.page.waitForResponse((r) => r.url().endsWith('/svc.js'));
  const since = Date.now();
  await v.arrive(link.path);
  expect((await script).url()).toBe(`${demo.demoUrl}/svc/svc.js`);
  expect(await v.page.locator('script[data-key]').getAttribute('data-api')).toBe('/svc');

  const click = await v.clicked();
  expect(click.url).toBe(`${demo.demoUrl}/svc/v1/track/click`);
  expect(click.headers['sec-fetch-site']).toBe('same-origin');
  expect(click.response?.status).toBe(200);
  const body = click.response!.body;
  expect(body.cookie).toBe(true);
  const data = body.data as SvcData;
  const cookies = setCookies(click.response!.headers);
  expect(cookies).toHaveLength(2);
  const [svcData, svcRef] = cookies;
  expect(svcData).toMatch(new RegExp(`^svc_data=${encodeURIComponent(JSON.stringify(data)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')};`));
  expect(svcRef).toMatch(new RegExp(`^svc_ref=${data.click_id};`));
  for (const c of cookies) {
    expect(c).toContain(`Max-Age=${body.max_age}`);
    expect(c).toContain('Path=/');
    expect(c).toContain('SameSite=Lax');
    expect(c).not.toMatch(/;\s*(Secure|HttpOnly|Domain=)/i);
  }

  const jar = await v.referralCookies();
  expect(jar.svcData).toEqual(data);
  expect(jar.ref?.value).toBe(data.click_id);
  expect(jar.data).toMatchObject({ domain: 'localhost', path: '/', sameSite: 'Lax', httpOnly: false, secure: false });
  expectExpiresIn(jar.data!.expires, body.max_age, since);
  expect(await v.svcData()).toEqual(data);
  expect(data).toMatchObject({ partner_id: link.partnerId, program_id: demo.program_id });
  await expectClicks(api, link.partnerId, 1);
});

test('direct mode (?svc_mode=direct): script and API on ingest’s origin, the script writes the cookies', async ({
  visitor,
  referral,
  demo,
  api,
}) => {
  const link = await referral('via');
  const v = await visitor();
  const since = Date.now();
  await v.arrive(`${link.path}&svc_mode=direct`);
  expect(await v.page.locator('script[data-key]').getAttribute('src')).toBe(`${demo.ingestUrl}/svc.js`);

  const click = await v.clicked();
  expect(click.url).toBe(`${demo.ingestUrl}/v1/track/click`);
  expect(click.headers['sec-fetch-site']).not.toBe('same-origin');
  expect(click.headers['content-type']).toMatch(/^text\/plain/);
  expect(click.body).toEqual({
    key: demo.public_key,
    param: 'via',
    value: link.value,
    page: `${demo.demoUrl}/?via=${link.value}`,
    v: SCRIPT_VERSION,
  });
  expect(click.response?.status).toBe(200);
  const body = click.response!.body;
  expect(body.cookie).toBe(false);
  expect(setCookies(click.response!.headers)).toEqual([]);
  expect(click.response!.headers.find((h) => h.name.toLowerCase() === 'access-control-allow-origin')?.value).toBe('*');
  // A "simple" request: no preflight.
  expect(v.calls.map((c) => c.method)).toEqual(['POST']);

  const data = body.data as SvcData;
  expect(data.partner_id).toBe(link.partnerId);
  const jar = await v.referralCookies();
  expect(jar.svcData).toEqual(data);
  expect(jar.ref?.value).toBe(data.click_id);
  for (const c of [jar.data!, jar.ref!]) {
    expect(c).toMatchObject({ domain: 'localhost', path: '/', sameSite: 'Lax', secure: false, httpOnly: false });
    expectExpiresIn(c.expires, body.max_age, since);
  }
  // Nothing of ours on ingest's own origin.
  expect((await v.context.cookies(demo.ingestUrl)).filter((c) => c.name.startsWith('svc_') && c.domain !== 'localhost')).toEqual([]);
  expect(await v.svcData()).toEqual(data);

  // Signup goes direct too, and keeps the cookie's expiry.
  const result = await v.page.evaluate(() => (globalThis as any).svc.signup(`direct-${Date.now()}@customers.example`));
  const signup = await v.signedUp();
  expect(signup.url).toBe(`${demo.ingestUrl}/v1/track/signup`);
  expect(signup.response?.body.cookie).toBe(false);
  const after = await v.referralCookies();
  expect(after.svcData).toEqual({ ...data, customer_id: result.customer_id });
  expect(Math.abs(after.data!.expires - jar.data!.expires)).toBeLessThan(5);
  await expectClicks(api, link.partnerId, 1);
  expect((await customersOf(api, demo.program_id, link.partnerId)).map((c) => [c.id, c.click_id])).toEqual([
    [result.customer_id, data.click_id],
  ]);
});

test('consent-required mode: nothing is sent or stored until svc.consent()', async ({ visitor, referral, api, demoPort }) => {
  const link = await referral();
  const v = await visitor();
  await v.arrive(`${link.path}&svc_consent=required`);
  expect(await v.page.locator('script[data-key]').getAttribute('data-consent')).toBe('required');
  await v.flush();
  expect(v.calls).toEqual([]);
  expect(await v.svcData()).toBeNull();
  expect((await v.referralCookies()).all).toEqual([]);
  // Still nothing after moving around with the referral in the URL.
  await v.page.evaluate((href) => (globalThis as any).history.pushState({}, '', href), `/?ref=${link.value}&x=1`);
  await v.flush();
  expect(v.calls).toEqual([]);
  expect((await v.referralCookies()).all).toEqual([]);
  await expectClicks(api, link.partnerId, 0);

  await v.page.evaluate(() => (globalThis as any).svc.consent());
  const click = await v.clicked();
  expect(click.body).toMatchObject({ param: 'ref', value: link.value, page: `${v.demo.demoUrl}/?ref=${link.value}` });
  expect(click.response?.status).toBe(200);
  const data = click.response!.body.data as SvcData;
  expect(data.partner_id).toBe(link.partnerId);
  await expect.poll(() => v.svcData()).toEqual(data);
  expect((await v.referralCookies()).svcData).toEqual(data);
  // Consent given twice tracks once.
  await v.page.evaluate(() => (globalThis as any).svc.consent());
  await v.flush();
  expect(v.clicks()).toHaveLength(1);
  await expectClicks(api, link.partnerId, 1);

  // On a site with subdomains, not even the cookie-domain probe may write before consent.
  const sub = await visitor();
  const www = `http://www.shop.test:${demoPort}`;
  await sub.arrive(`${www}${link.path}&svc_consent=required`);
  await sub.flush();
  expect(sub.calls).toEqual([]);
  expect(await sub.context.cookies(www)).toEqual([]);
  await sub.page.evaluate(() => (globalThis as any).svc.consent());
  const subClick = await sub.clicked();
  expect(subClick.body.cookie_domain).toBe('shop.test');
  expect((await sub.context.cookies(www)).map((c) => `${c.name} ${c.domain}`).sort()).toEqual([
    'svc_data .shop.test',
    'svc_ref .shop.test',
  ]);
  await expectClicks(api, link.partnerId, 2);
});

test('cross-subdomain: www.shop.test and app.shop.test share the referral (Domain=shop.test)', async ({
  visitor,
  referral,
  demoPort,
  demo,
  api,
}) => {
  const link = await referral();
  const www = `http://www.shop.test:${demoPort}`;
  const app = `http://app.shop.test:${demoPort}`;
  const v = await visitor();
  await v.arrive(`${www}${link.path}`);

  const click = await v.clicked();
  expect(click.url).toBe(`${www}/svc/v1/track/click`);
  expect(click.body).toEqual({
    key: demo.public_key,
    param: 'ref',
    value: link.value,
    page: `${www}/?ref=${link.value}`,
    cookie_domain: 'shop.test',
    v: SCRIPT_VERSION,
  });
  expect(click.response?.body.cookie).toBe(true);
  for (const c of setCookies(click.response!.headers)) expect(c).toContain('Domain=shop.test');
  const data = click.response!.body.data as SvcData;
  const jar = await v.referralCookies(www);
  expect(jar.svcData).toEqual(data);
  expect(jar.data?.domain).toBe('.shop.test');
  expect(jar.ref?.domain).toBe('.shop.test');
  // The probe cookie is gone.
  expect((await v.context.cookies(www)).map((c) => c.name).sort()).toEqual(['svc_data', 'svc_ref']);

  // The app subdomain sees the referral at once, without a request.
  const appPage = await v.context.newPage();
  await v.arrive(`${app}/signup`, appPage);
  expect(await v.svcData(appPage)).toEqual(data);
  expect(v.clicks()).toHaveLength(1);
  const result = await appPage.evaluate((e) => (globalThis as any).svc.signup(e), `sub-${Date.now()}@customers.example`);
  expect(result).toMatchObject({ click_id: data.click_id, partner_id: link.partnerId });
  const signup = await v.signedUp();
  expect(signup.url).toBe(`${app}/svc/v1/track/signup`);
  // A signup on a page that had no click of its own must still name the shared domain, or the
  // server's Set-Cookie makes a second, host-only svc_data on app.shop.test that www never sees.
  expect(signup.body.cookie_domain).toBe('shop.test');
  expect((await v.context.cookies(app)).filter((c) => c.name === 'svc_data').map((c) => c.domain)).toEqual(['.shop.test']);
  // The customer is visible on www too: one shared cookie.
  expect((await v.referralCookies(www)).svcData).toEqual({ ...data, customer_id: result.customer_id });

  // Direct mode: the script writes the shared cookie itself.
  const d = await visitor();
  const link2 = await referral();
  await d.arrive(`${www}${link2.path}&svc_mode=direct`);
  const click2 = await d.clicked();
  expect(click2.body.cookie_domain).toBe('shop.test');
  expect(click2.response?.body.cookie).toBe(false);
  const jar2 = await d.referralCookies(app);
  expect(jar2.data?.domain).toBe('.shop.test');
  expect(jar2.svcData).toEqual(click2.response!.body.data);
  expect(Math.abs(jar2.data!.expires - (nowSeconds() + 30 * DAY_SECONDS))).toBeLessThan(60);
  const appPage2 = await d.context.newPage();
  await d.arrive(`${app}/?svc_mode=direct`, appPage2);
  expect(await d.svcData(appPage2)).toEqual(click2.response!.body.data);
  expect(d.clicks()).toHaveLength(1);

  await expectClicks(api, link.partnerId, 1);
  await expectClicks(api, link2.partnerId, 1);
  expect((await customersOf(api, demo.program_id, link.partnerId)).map((c) => [c.id, c.click_id])).toEqual([
    [result.customer_id, data.click_id],
  ]);
});

test('an IP-address host: its cookies are host-only (no domain is probed or reported), and the referral is kept', async ({
  visitor,
  referral,
  demoPort,
  api,
}) => {
  const link = await referral();
  const ip = `http://127.0.0.1:${demoPort}`;
  const v = await visitor();
  // Direct mode: the script writes the cookies itself, without a Domain on an IP address.
  await v.arrive(`${ip}${link.path}&svc_mode=direct`);
  const click = await v.clicked();
  expect(click.body).not.toHaveProperty('cookie_domain');
  const data = click.response!.body.data as SvcData;
  const jar = await v.referralCookies(ip);
  expect(jar.svcData).toEqual(data);
  expect(jar.all.map((c) => `${c.name} ${c.domain}`).sort()).toEqual(['svc_data 127.0.0.1', 'svc_ref 127.0.0.1']);

  // Back without a referral: read from the cookie at once, no request.
  await v.arrive(`${ip}/pricing?svc_mode=direct`);
  expect(await v.svcData()).toEqual(data);
  await v.flush();
  expect(v.clicks()).toHaveLength(1);
  await expectClicks(api, link.partnerId, 1);
});
