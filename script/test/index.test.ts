/**
 * svc.js end to end on happy-dom, against a stubbed fetch: once as the source module
 * (script/src/index.ts) and once as the built bundle (script/dist/svc.js, run `npm run build`
 * first), so a minifier change that breaks the bundle fails here too.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AD_CLICK_IDS } from '../src/ad-click-ids';
import { openJar, PENDING, writeData } from '../src/cookies';
import { cookieMap, parseCookieString, setURL } from './support/dom';
import { closePage, deferred, fakeApi, type Loader, loadDist, loadSource, openPage, type Reply, settle, VERSION } from './support/page';

const KEY = 'pk_test_123';
const API = 'https://api.shop.test';
const CLICK: SvcData = { click_id: 'clk_new', cookie_duration: 30, partner_id: 'part_alice', program_id: 'prg_1', customer_id: null };
const MAX_AGE = 30 * 86400 - 60;
const clickOk = (data: SvcData = CLICK, extra: object = {}): Reply => ({
  status: 200,
  body: { success: true, data, max_age: MAX_AGE, cookie: false, ...extra },
});
const CUSTOMER = {
  click_id: 'clk_new',
  customer_id: 'cust_1',
  customer_identifier: 'ann@example.com',
  partner_id: 'part_alice',
  program_id: 'prg_1',
  message: 'Customer created',
};
const SIGNUP_MAX_AGE = 29 * 86400;
const signupOk: Reply = { status: 201, body: { success: true, data: CUSTOMER, max_age: SIGNUP_MAX_AGE, cookie: false } };
const conflict: Reply = { status: 409, body: { success: false, error: { message: 'Customer already exists', type: 'conflict_error' } } };

const w = window as any;

/** The script's writes of one cookie, parsed. */
const writesOf = (writes: string[], name: string) => writes.map(parseCookieString).filter((c) => c.name === name);

/** A returning visitor: the referral cookie an earlier visit to www.shop.test left (shared on shop.test). */
function cookieFromEarlierVisit(data: SvcData): void {
  setURL('https://www.shop.test/');
  writeData(openJar('shop.test'), data, 10 * 86400);
}

describe.each([
  ['source', loadSource],
  ['dist', loadDist],
] as [string, Loader][])('svc.js (%s)', (_name, load) => {
  afterEach(closePage);

  const attrs = (more: Record<string, string> = {}) => ({ 'data-key': KEY, 'data-api': `${API}/`, ...more });

  it('records the click: text/plain JSON body, trimmed page and referrer, keepalive', async () => {
    const click = deferred<Reply>();
    const api = fakeApi({ '/v1/track/click': () => click.promise });
    const page = await openPage(load, {
      url: 'https://www.shop.test/pricing?utm_source=news&ref=alice&email=ann%40example.com#plans',
      referrer: 'https://blog.example.com/post/7?token=secret#top',
      attrs: attrs(),
    });
    expect(w.svc_data).toBeNull(); // before the answer
    await settle();
    expect(api.calls).toHaveLength(1);
    click.resolve(clickOk());
    await page.ready;
    expect(w.svc_data).toEqual(CLICK);
    const [{ url, init, body }] = api.calls;
    expect(url).toBe('https://api.shop.test/v1/track/click');
    expect(init.method).toBe('POST');
    expect(init.keepalive).toBe(true);
    expect(init.headers).toBeUndefined(); // a string body: text/plain, no preflight
    expect(typeof init.body).toBe('string');
    expect(body).toMatchObject({
      key: KEY,
      param: 'ref',
      value: 'alice',
      page: 'https://www.shop.test/pricing?ref=alice',
      referrer: 'https://blog.example.com/post/7',
      cookie_domain: 'shop.test',
      v: VERSION,
    });
    expect(body.click_id ?? null).toBeNull();
    expect(Object.keys(body).sort()).toEqual(
      ['key', 'param', 'value', 'page', 'referrer', 'cookie_domain', 'v', ...('click_id' in body ? ['click_id'] : [])].sort(),
    );
  });

  it('every payload carries v, the package version the script was built from', async () => {
    const api = fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => signupOk });
    await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
    await w.svc.signup('ann@example.com');
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(api.calls.map((c) => [c.url, c.body.v])).toEqual([
      ['https://api.shop.test/v1/track/click', VERSION],
      ['https://api.shop.test/v1/track/signup', VERSION],
    ]);
  });

  it.each(['android-app://com.google.android.gm/', 'ios-app://1234/x', 'file:///tmp/page.html'])(
    'sends no referrer when it is not a web page (%s)',
    async (referrer) => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', referrer, attrs: attrs() });
      await page.ready;
      expect(api.calls).toHaveLength(1);
      expect('referrer' in api.calls[0].body).toBe(false);
      expect(w.svc_data).toEqual(CLICK);
    },
  );

  it('stores the answer in window.svc_data and in the svc_data / svc_ref cookies', async () => {
    fakeApi({ '/v1/track/click': () => clickOk() });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
    await page.ready;
    expect(w.svc_data).toEqual(CLICK);
    const cookies = cookieMap();
    expect(JSON.parse(decodeURIComponent(cookies.svc_data))).toEqual(CLICK);
    expect(cookies.svc_ref).toBe('clk_new');
    for (const name of ['svc_data', 'svc_ref']) {
      const written = writesOf(page.cookieWrites, name);
      expect(written).toHaveLength(1);
      // The server's max_age as it is: the visitor's clock plays no part in the expiry.
      expect(written[0].attrs).toEqual({ path: '/', samesite: 'Lax', secure: true, domain: 'shop.test', 'max-age': String(MAX_AGE) });
    }
  });

  it('svc:ready fires after the click settled, with svc_data already set', async () => {
    const click = deferred<Reply>();
    fakeApi({ '/v1/track/click': () => click.promise });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
    let seen: unknown = 'not yet';
    page.ready.then(() => (seen = w.svc_data));
    await settle();
    expect(page.readyFired()).toBe(false);
    click.resolve(clickOk());
    await page.ready;
    expect(seen).toEqual(CLICK);
  });

  it('uses data-cookie-domain, no Secure on http, and the relative data-api', async () => {
    const api = fakeApi({ '/v1/track/click': () => clickOk() });
    const page = await openPage(load, {
      url: 'http://www.shop.test/landing?via=bob',
      attrs: attrs({ 'data-api': '/svc', 'data-cookie-domain': 'www.shop.test' }),
    });
    await page.ready;
    expect(api.calls[0].url).toBe('/svc/v1/track/click');
    expect(api.calls[0].body).toMatchObject({
      param: 'via',
      value: 'bob',
      cookie_domain: 'www.shop.test',
      page: 'http://www.shop.test/landing?via=bob',
    });
    expect('referrer' in api.calls[0].body).toBe(false);
    expect(page.cookieWrites.some((c) => c.startsWith('svc_probe'))).toBe(false); // no probing with a configured domain
    for (const c of writesOf(page.cookieWrites, 'svc_data')) {
      expect(c.attrs.domain).toBe('www.shop.test');
      expect(c.attrs.secure).toBeUndefined();
    }
  });

  it('on localhost: no cookie domain at all', async () => {
    const api = fakeApi({ '/v1/track/click': () => clickOk() });
    const page = await openPage(load, { url: 'http://localhost:3000/?ref=alice', attrs: attrs() });
    await page.ready;
    expect('cookie_domain' in api.calls[0].body).toBe(false);
    const [data] = writesOf(page.cookieWrites, 'svc_data');
    expect(data.attrs.domain).toBeUndefined();
    expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual(CLICK);
  });

  it('the configured params, in their order', async () => {
    const api = fakeApi({ '/v1/track/click': () => clickOk() });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice&aff=carol', attrs: attrs({ 'data-params': 'aff, ref' }) });
    await page.ready;
    expect(api.calls[0].body).toMatchObject({ param: 'aff', value: 'carol', page: 'https://www.shop.test/?aff=carol' });
  });

  it('a returning visitor: svc_data read synchronously from the cookie and its click_id sent', async () => {
    const old: SvcData = { ...CLICK, click_id: 'clk_old', customer_id: 'cust_9' };
    cookieFromEarlierVisit(old);
    const click = deferred<Reply>();
    const api = fakeApi({ '/v1/track/click': () => click.promise });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
    expect(w.svc_data).toEqual(old);
    await settle();
    expect(api.calls[0].body.click_id).toBe('clk_old');
    click.resolve(clickOk());
    await page.ready;
    expect(w.svc_data).toEqual(CLICK);
  });

  it('no referral in the URL: svc_data from the cookie or null, nothing sent, svc:ready at once', async () => {
    const api = fakeApi({});
    const page = await openPage(load, { url: 'https://www.shop.test/pricing?utm_source=x', attrs: attrs() });
    expect(w.svc_data).toBeNull();
    await page.ready;
    expect(api.fetch).not.toHaveBeenCalled();
    expect(writesOf(page.cookieWrites, 'svc_data')).toEqual([]);
  });

  it('same-site mode: cookie: true in the answer means the script writes no cookie', async () => {
    fakeApi({ '/v1/track/click': () => clickOk(CLICK, { cookie: true }) });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs({ 'data-api': '/svc' }) });
    await page.ready;
    expect(w.svc_data).toEqual(CLICK);
    expect(writesOf(page.cookieWrites, 'svc_data')).toEqual([]);
    expect(writesOf(page.cookieWrites, 'svc_ref')).toEqual([]);
  });

  it.each([
    ['link not found (404)', { status: 404, body: { success: false, error: 'Link not found' } }],
    ['bot (200, data null)', { status: 200, body: { success: true, data: null } }],
    ['rate limited, not JSON (429)', { status: 429 }],
    [
      'wrong key (401)',
      { status: 401, body: { success: false, error: { message: 'Invalid public key provided', type: 'authentication_error' } } },
    ],
  ] as [string, Reply][])('an answer without data (%s) leaves svc_data null and writes no cookie', async (_what, reply) => {
    fakeApi({ '/v1/track/click': () => reply });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=nobody', attrs: attrs() });
    await page.ready;
    expect(w.svc_data).toBeNull();
    expect(writesOf(page.cookieWrites, 'svc_data')).toEqual([]);
  });

  it('nothing throws when fetch rejects; svc:ready still fires', async () => {
    const api = fakeApi({ '/v1/track/click': () => new TypeError('Failed to fetch') });
    const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
    await page.ready;
    expect(api.calls).toHaveLength(1);
    expect(w.svc_data).toBeNull();
    expect(writesOf(page.cookieWrites, 'svc_data')).toEqual([]);
    await expect(w.svc.signup('ann@example.com')).rejects.toMatchObject({ status: 400 });
  });

  it.each([
    [
      'throws synchronously',
      () => {
        throw new Error('boom');
      },
    ],
    ['is missing', undefined],
  ] as [string, unknown][])('nothing throws when fetch %s', async (_what, fetch) => {
    vi.stubGlobal('fetch', fetch);
    const page = await openPage(load, { url: 'https://www.shop.test/?via=bob', attrs: attrs() });
    await page.ready;
    expect(w.svc_data).toBeNull();
    await expect(w.svc.signup('ann@example.com')).rejects.toMatchObject({ status: 400 });
  });

  describe('one owner of window.svc', () => {
    it('a second copy of the tag leaves the first in charge: same window.svc, History wrapped once, one observer, one click', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/pricing?ref=alice', attrs: attrs({ 'data-stripe': '' }) });
      await page.ready;
      const svc = w.svc;
      const { pushState, replaceState } = history;
      expect(pushState).not.toBe(History.prototype.pushState);
      expect(page.observers).toHaveLength(1);
      expect(page.listeners.map(([type]) => type)).toEqual(['popstate']);

      await page.loadAgain();
      await settle();
      expect(w.svc).toBe(svc);
      expect(history.pushState).toBe(pushState);
      expect(history.replaceState).toBe(replaceState);
      expect(page.observers).toHaveLength(1);
      expect(page.listeners.map(([type]) => type)).toEqual(['popstate']);
      expect(api.calls).toHaveLength(1);
      expect(w.svc_data).toEqual(CLICK);

      // Still one click per new referral.
      history.pushState({}, '', '/pricing?via=bob');
      await settle();
      expect(api.calls.map((c) => c.body.value)).toEqual(['alice', 'bob']);
    });

    it('anything else already at window.svc (not a queue) stays, and the script does nothing', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const theirs = { signup: () => 'not ours' };
      await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs(), before: () => (w.svc = theirs) });
      await settle();
      expect(w.svc).toBe(theirs);
      expect(w.svc_data).toBeUndefined();
      expect(history.pushState).toBe(History.prototype.pushState);
      expect(api.fetch).not.toHaveBeenCalled();
    });

    it('calls queued before the script loaded run once, in order: consent, then signup after the click', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => signupOk });
      const queue = [['consent'], ['signup', 'ann@example.com']];
      const page = await openPage(load, {
        url: 'https://www.shop.test/?ref=alice',
        attrs: attrs({ 'data-consent': 'required' }),
        before: () => (w.svc = queue),
      });
      await page.ready;
      await settle();
      expect(Array.isArray(w.svc)).toBe(false);
      expect(typeof w.svc.signup).toBe('function');
      expect(api.calls.map((c) => c.url.replace(API, ''))).toEqual(['/v1/track/click', '/v1/track/signup']);
      expect(api.calls[1].body).toMatchObject({ click_id: 'clk_new', identifier: 'ann@example.com' });
      expect(w.svc_data).toEqual({ ...CLICK, customer_id: 'cust_1' });
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual({ ...CLICK, customer_id: 'cust_1' });
      // Replayed once: a later page change does not run them again.
      w.svc.consent();
      await settle();
      expect(api.calls).toHaveLength(2);
    });

    it('svc.push works after loading too; a failing or malformed call is dropped without a thrown error or an unhandled rejection', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const api = fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => conflict });
        const page = await openPage(load, {
          url: 'https://www.shop.test/?ref=alice',
          attrs: attrs(),
          before: () => (w.svc = [['signup', 'taken@example.com'], ['nonsense'], 42, null, []]),
        });
        await page.ready;
        for (const call of [['signup', 'again@example.com'], ['push', ['consent']], ['toString'], 'consent', undefined]) {
          expect(() => w.svc.push(call)).not.toThrow();
        }
        await settle();
        await settle();
        expect(api.calls.filter((c) => c.url.endsWith('/signup')).map((c) => c.body.identifier)).toEqual([
          'taken@example.com',
          'again@example.com',
        ]);
        expect(w.svc_data).toEqual(CLICK);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  });

  it('without a data-key tag the script does nothing', async () => {
    const api = fakeApi({});
    await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: null });
    await settle();
    expect(w.svc).toBeUndefined();
    expect(api.fetch).not.toHaveBeenCalled();
  });

  describe('signup', () => {
    it('waits for the click in flight, then converts it; updates svc_data and the cookie', async () => {
      const click = deferred<Reply>();
      const api = fakeApi({ '/v1/track/click': () => click.promise, '/v1/track/signup': () => signupOk });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
      const result = w.svc.signup('ann@example.com');
      await settle();
      expect(api.calls.map((c) => c.url)).toEqual(['https://api.shop.test/v1/track/click']);
      click.resolve(clickOk());
      await expect(result).resolves.toEqual(CUSTOMER);
      await page.ready;
      expect(api.calls).toHaveLength(2);
      expect(api.calls[1].url).toBe('https://api.shop.test/v1/track/signup');
      expect(api.calls[1].init).toMatchObject({ method: 'POST', keepalive: true });
      expect(api.calls[1].body).toEqual({
        key: KEY,
        click_id: 'clk_new',
        identifier: 'ann@example.com',
        cookie_domain: 'shop.test',
        v: VERSION,
      });
      expect(w.svc_data).toEqual({ ...CLICK, customer_id: 'cust_1' });
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual({ ...CLICK, customer_id: 'cust_1' });
      const data = writesOf(page.cookieWrites, 'svc_data');
      expect(data).toHaveLength(2);
      // The click's expiry, as the server counts it.
      expect(data[1].attrs).toEqual({ path: '/', samesite: 'Lax', secure: true, domain: 'shop.test', 'max-age': String(SIGNUP_MAX_AGE) });
    });

    it('works for a returning visitor (cookie only, no referral in the URL)', async () => {
      cookieFromEarlierVisit({ ...CLICK, click_id: 'clk_old' });
      const api = fakeApi({ '/v1/track/signup': () => signupOk });
      await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs() });
      await expect(w.svc.signup('ann@example.com')).resolves.toEqual(CUSTOMER);
      expect(api.calls.map((c) => c.body.click_id)).toEqual(['clk_old']);
    });

    it('rejects with status 409 on a taken identifier, changing nothing', async () => {
      fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => conflict });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
      const error = await w.svc.signup('ann@example.com').then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({ status: 409, message: 'Customer already exists' });
      expect(w.svc_data).toEqual(CLICK);
      expect(writesOf(page.cookieWrites, 'svc_data')).toHaveLength(1); // the click's only
    });

    it('rejects with the status and the string error of other failures', async () => {
      fakeApi({
        '/v1/track/click': () => clickOk(),
        '/v1/track/signup': () => ({ status: 404, body: { success: false, error: 'Click not found' } }),
      });
      await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
      await expect(w.svc.signup('x')).rejects.toMatchObject({ status: 404, message: 'Click not found' });
    });

    it('rejects with status 400 without svc_data, sending nothing', async () => {
      const api = fakeApi({});
      await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs() });
      await expect(w.svc.signup('ann@example.com')).rejects.toMatchObject({ status: 400 });
      expect(api.fetch).not.toHaveBeenCalled();
    });

    it('rejects on a network failure', async () => {
      fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => new TypeError('Failed to fetch') });
      await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
      await expect(w.svc.signup('ann@example.com')).rejects.toBeInstanceOf(Error);
      expect(w.svc_data).toEqual(CLICK);
    });
  });

  describe('consent', () => {
    it('with data-consent="required" nothing is sent and no cookie written until svc.consent()', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs({ 'data-consent': 'required' }) });
      await page.ready;
      await settle();
      expect(api.fetch).not.toHaveBeenCalled();
      expect(w.svc_data).toBeNull();
      expect(writesOf(page.cookieWrites, 'svc_data')).toEqual([]);
      expect(writesOf(page.cookieWrites, 'svc_ref')).toEqual([]);
      w.svc.consent();
      await settle();
      expect(api.calls).toHaveLength(1);
      expect(api.calls[0].body).toMatchObject({ param: 'ref', value: 'alice', cookie_domain: 'shop.test' });
      expect(w.svc_data).toEqual(CLICK);
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual(CLICK);
    });

    it('before consent, not even a probe cookie is written', async () => {
      fakeApi({});
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs({ 'data-consent': 'required' }) });
      await page.ready;
      expect(page.cookieWrites, 'document.cookie writes before svc.consent()').toEqual([]);
    });

    it('signup() before consent(), on a first visit: rejects (no referral), sends nothing, writes no cookie, not even the probe', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => signupOk });
      const page = await openPage(load, { url: 'https://www.shop.test/signup?ref=alice', attrs: attrs({ 'data-consent': 'required' }) });
      await expect(w.svc.signup('ann@example.com')).rejects.toMatchObject({ status: 400 });
      await settle();
      expect(api.fetch).not.toHaveBeenCalled();
      expect(page.cookieWrites, 'document.cookie writes before svc.consent()').toEqual([]);
    });

    it('signup() before consent() with the cookie of an earlier visit: that cookie counts as consent to update it', async () => {
      cookieFromEarlierVisit(CLICK);
      const api = fakeApi({ '/v1/track/click': () => clickOk(), '/v1/track/signup': () => signupOk });
      const page = await openPage(load, { url: 'https://www.shop.test/signup?ref=alice', attrs: attrs({ 'data-consent': 'required' }) });
      expect(w.svc_data).toEqual(CLICK);
      await expect(w.svc.signup('ann@example.com')).resolves.toEqual(CUSTOMER);
      // No new click without consent; the signup's customer_id is kept, with the server's expiry.
      expect(api.calls.map((c) => c.url)).toEqual(['https://api.shop.test/v1/track/signup']);
      expect(api.calls[0].body.cookie_domain).toBe('shop.test');
      expect(w.svc_data).toEqual({ ...CLICK, customer_id: 'cust_1' });
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual({ ...CLICK, customer_id: 'cust_1' });
      const [data] = writesOf(page.cookieWrites, 'svc_data');
      expect(data.attrs).toEqual({ path: '/', samesite: 'Lax', secure: true, domain: 'shop.test', 'max-age': String(SIGNUP_MAX_AGE) });
    });

    it('consent() twice sends the click once', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs({ 'data-consent': 'required' }) });
      w.svc.consent();
      w.svc.consent();
      await settle();
      expect(api.calls).toHaveLength(1);
    });
  });

  describe('single-page apps', () => {
    it('pushState / replaceState / popstate bringing a tracking param are tracked once per param=value', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/', attrs: attrs() });
      await page.ready;
      expect(api.fetch).not.toHaveBeenCalled();

      history.pushState({}, '', '/pricing?via=bob&x=1');
      await settle();
      expect(api.calls.map((c) => c.body.page)).toEqual(['https://www.shop.test/pricing?via=bob']);

      history.pushState({}, '', '/other?via=bob');
      history.replaceState({}, '', '/other?via=bob#a');
      await settle();
      expect(api.calls).toHaveLength(1); // the same param=value is not re-sent

      history.replaceState({}, '', '/pricing?ref=alice');
      await settle();
      expect(api.calls).toHaveLength(2);
      expect(api.calls[1].body).toMatchObject({ param: 'ref', value: 'alice', click_id: 'clk_new' });

      History.prototype.pushState.call(history, {}, '', '/back?via=carol'); // unwrapped: only popstate notices
      await settle();
      expect(api.calls).toHaveLength(2);
      dispatchEvent(new PopStateEvent('popstate'));
      await settle();
      expect(api.calls.map((c) => c.body.value)).toEqual(['bob', 'alice', 'carol']);
    });

    it('the History API still works (returns, changes the URL) and never throws from the script', async () => {
      fakeApi({ '/v1/track/click': () => new TypeError('Failed to fetch') });
      await openPage(load, { url: 'https://www.shop.test/', attrs: attrs() });
      expect(history.pushState({ a: 1 }, '', '/x?ref=alice')).toBeUndefined();
      expect(location.href).toBe('https://www.shop.test/x?ref=alice');
      expect(history.state).toEqual({ a: 1 });
      expect(() => history.pushState({}, '', 'https://evil.test/')).toThrow(); // the page's own error still surfaces
      await settle();
    });
  });

  describe('referrals that used to get lost', () => {
    const BOB: SvcData = { ...CLICK, click_id: 'clk_bob', partner_id: 'part_bob' };

    it('two tabs: signup and a later click use the cookie as it is now, not the copy this tab read at load', async () => {
      cookieFromEarlierVisit({ ...CLICK, click_id: 'clk_alice' });
      const api = fakeApi({
        '/v1/track/click': () => clickOk(BOB),
        '/v1/track/signup': () => ({
          ...signupOk,
          body: { ...(signupOk as any).body, data: { ...CUSTOMER, click_id: 'clk_bob', partner_id: 'part_bob' } },
        }),
      });
      const page = await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs() });
      expect(w.svc_data.click_id).toBe('clk_alice');
      // Another tab lands on Bob's link and its answer rewrites the shared cookie.
      writeData(openJar('shop.test'), BOB, 20 * 86400);
      history.pushState({}, '', '/pricing?via=carol');
      await settle();
      expect(api.calls[0].body.click_id).toBe('clk_bob');
      writeData(openJar('shop.test'), BOB, 20 * 86400);
      await w.svc.signup('ann@example.com');
      expect(api.calls[1].body.click_id).toBe('clk_bob');
      expect(w.svc_data).toEqual({ ...BOB, customer_id: 'cust_1' });
      // Bob stays in the cookie: the signup does not write this tab's Alice back.
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual({ ...BOB, customer_id: 'cust_1' });
      expect(writesOf(page.cookieWrites, 'svc_data').map((c) => JSON.parse(decodeURIComponent(c.value)).click_id)).toEqual([
        'clk_bob',
        'clk_bob',
        'clk_bob',
        'clk_bob',
      ]);
    });

    it('with consent required, a cookie another tab wrote since counts as consent given there', async () => {
      const api = fakeApi({ '/v1/track/signup': () => signupOk });
      const page = await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs({ 'data-consent': 'required' }) });
      expect(w.svc_data).toBeNull();
      writeData(openJar('shop.test'), CLICK, 86400);
      await expect(w.svc.signup('ann@example.com')).resolves.toEqual(CUSTOMER);
      expect(api.calls.map((c) => c.body.click_id)).toEqual(['clk_new']);
      expect(writesOf(page.cookieWrites, 'svc_data').at(-1)!.attrs['max-age']).toBe(String(SIGNUP_MAX_AGE));
    });

    it('a click keeps its landing page in svc_pending (a session cookie) until it is answered', async () => {
      const click = deferred<Reply>();
      fakeApi({ '/v1/track/click': () => click.promise });
      const page = await openPage(load, { url: 'https://www.shop.test/pricing?utm_source=x&ref=alice', attrs: attrs() });
      await settle();
      expect(decodeURIComponent(cookieMap()[PENDING])).toBe('https://www.shop.test/pricing?ref=alice');
      const [written] = writesOf(page.cookieWrites, PENDING);
      expect(written.attrs).toEqual({ path: '/', samesite: 'Lax', secure: true, domain: 'shop.test' });
      click.resolve(clickOk());
      await page.ready;
      expect(cookieMap()[PENDING]).toBeUndefined();
      expect(writesOf(page.cookieWrites, PENDING)[1].attrs.expires).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
    });

    it.each([
      ['an answer without data', () => ({ status: 404, body: { success: false, error: 'Link not found' } }) as Reply],
      ['a network failure', () => new TypeError('Failed to fetch')],
    ])('svc_pending is removed after %s too, so later pages do not send it again', async (_what, reply) => {
      fakeApi({ '/v1/track/click': reply });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
      await page.ready;
      expect(cookieMap()[PENDING]).toBeUndefined();
    });

    it('the next page sends the click an earlier page left unanswered, with that landing page, and keeps the answer', async () => {
      openJar('shop.test')(PENDING, 'https://www.shop.test/pricing?ref=alice');
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs() });
      await page.ready;
      expect(api.calls).toHaveLength(1);
      expect(api.calls[0].body).toMatchObject({ param: 'ref', value: 'alice', page: 'https://www.shop.test/pricing?ref=alice' });
      expect(w.svc_data).toEqual(CLICK);
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual(CLICK);
      expect(cookieMap()[PENDING]).toBeUndefined();
    });

    it("the page's own referral comes before a pending one", async () => {
      openJar('shop.test')(PENDING, 'https://www.shop.test/pricing?ref=alice');
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/?via=bob', attrs: attrs() });
      await page.ready;
      expect(api.calls.map((c) => c.body.value)).toEqual(['bob']);
    });

    it('a pending click waits for consent, and a History navigation before it makes it stale', async () => {
      openJar('shop.test')(PENDING, 'https://www.shop.test/pricing?ref=alice');
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs({ 'data-consent': 'required' }) });
      await settle();
      expect(api.fetch).not.toHaveBeenCalled();
      await w.svc.consent();
      expect(api.calls.map((c) => c.body.page)).toEqual(['https://www.shop.test/pricing?ref=alice']);
      closePage();

      openJar('shop.test')(PENDING, 'https://www.shop.test/pricing?ref=alice');
      const later = fakeApi({ '/v1/track/click': () => clickOk() });
      await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs({ 'data-consent': 'required' }) });
      history.pushState({}, '', '/signup/step-2');
      await w.svc.consent();
      expect(later.fetch).not.toHaveBeenCalled();
    });

    // (Not stubGlobal: the test runner itself needs the real performance object.)
    const entries = (list: { name: string }[]) =>
      vi
        .spyOn(performance, 'getEntriesByType')
        .mockImplementation((type: string) => (type === 'navigation' ? list : []) as PerformanceEntryList);
    const landedOn = (name: string) => entries([{ name }]);
    afterEach(() => vi.restoreAllMocks());

    it('a referral the page removed from the address bar before the script ran is read from the navigation entry', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, {
        url: 'https://www.shop.test/pricing',
        attrs: attrs(),
        before: () => landedOn('https://www.shop.test/pricing?utm_source=x&ref=alice#plans'),
      });
      await page.ready;
      expect(api.calls).toHaveLength(1);
      expect(api.calls[0].body).toMatchObject({ param: 'ref', value: 'alice', page: 'https://www.shop.test/pricing?ref=alice' });
      expect(w.svc_data).toEqual(CLICK);
      // Once the app navigates, the landing URL no longer describes the page: not sent again.
      history.pushState({}, '', '/pricing?via=bob');
      history.pushState({}, '', '/other');
      await settle();
      expect(api.calls.map((c) => c.body.value)).toEqual(['alice', 'bob']);
    });

    it('the current URL comes before the navigation entry; an entry without a referral (or none) sends nothing', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      let page = await openPage(load, {
        url: 'https://www.shop.test/?via=bob',
        attrs: attrs(),
        before: () => landedOn('https://www.shop.test/?ref=alice'),
      });
      await page.ready;
      expect(api.calls.map((c) => c.body.value)).toEqual(['bob']);
      closePage();
      const none = fakeApi({});
      page = await openPage(load, {
        url: 'https://www.shop.test/pricing',
        attrs: attrs(),
        before: () => landedOn('https://www.shop.test/pricing?utm_source=x'),
      });
      await page.ready;
      expect(none.fetch).not.toHaveBeenCalled();
      closePage();
      const noEntry = fakeApi({});
      page = await openPage(load, { url: 'https://www.shop.test/pricing', attrs: attrs(), before: () => entries([]) });
      await page.ready;
      expect(noEntry.fetch).not.toHaveBeenCalled();
      expect(typeof w.svc.signup).toBe('function');
    });

    it('hash routes: a referral in the fragment is tracked on arrival and on a hash change', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/#/pricing?plan=pro&ref=alice', attrs: attrs() });
      await page.ready;
      expect(api.calls[0].body).toMatchObject({ param: 'ref', value: 'alice', page: 'https://www.shop.test/?ref=alice' });
      location.hash = '#via=bob';
      dispatchEvent(new PopStateEvent('popstate')); // what a browser fires on a fragment navigation
      await settle();
      expect(api.calls.map((c) => [c.body.param, c.body.value])).toEqual([
        ['ref', 'alice'],
        ['via', 'bob'],
      ]);
    });

    it.each([
      ['click_id a number', { ...CLICK, click_id: 12345 }],
      ['click_id an object', { ...CLICK, click_id: { id: 'clk_1' } }],
      ['a foreign value', { user: 'someone' }],
    ])('a svc_data cookie it cannot trust (%s) is ignored: no click_id sent, and the answer replaces it', async (_what, planted) => {
      setURL('https://www.shop.test/');
      document.cookie = `svc_data=${encodeURIComponent(JSON.stringify(planted))};path=/`;
      const click = deferred<Reply>();
      const api = fakeApi({ '/v1/track/click': () => click.promise });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice', attrs: attrs() });
      expect(w.svc_data).toBeNull();
      click.resolve(clickOk());
      await page.ready;
      expect(api.calls[0].body.click_id ?? null).toBeNull();
      expect(w.svc_data).toEqual(CLICK);
      expect(JSON.parse(decodeURIComponent(cookieMap().svc_data))).toEqual(CLICK);
    });

    it('a svc_data cookie it cannot trust is no referral for signup', async () => {
      setURL('https://www.shop.test/');
      document.cookie = `svc_data=${encodeURIComponent(JSON.stringify({ ...CLICK, click_id: 7 }))};path=/`;
      const api = fakeApi({});
      await openPage(load, { url: 'https://www.shop.test/signup', attrs: attrs() });
      await expect(w.svc.signup('ann@example.com')).rejects.toMatchObject({ status: 400 });
      expect(api.fetch).not.toHaveBeenCalled();
    });
  });

  describe('ad click ids (paid-ad traffic)', () => {
    /** The click body as an ordinary click sends it: the fields in the script's order, without undefined ones. */
    const ordinary = (ads?: string[]) =>
      JSON.stringify({
        key: KEY,
        param: 'ref',
        value: 'alice',
        page: 'https://www.shop.test/pricing?ref=alice',
        cookie_domain: 'shop.test',
        ads,
        v: VERSION,
      });

    it('sends the names present in the landing URL, in the list order, and never their values', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, {
        url: 'https://www.shop.test/pricing?twclid=TW-VALUE-1&ref=alice&msclkid=MS-VALUE-2&utm_source=google&gclid=Cj0KCQ-VALUE-3',
        attrs: attrs(),
      });
      await page.ready;
      expect(api.calls).toHaveLength(1);
      const [{ init, body }] = api.calls;
      expect(body.ads).toEqual(['gclid', 'msclkid', 'twclid']);
      expect(init.body).toBe(ordinary(['gclid', 'msclkid', 'twclid']));
      expect(String(init.body)).not.toMatch(/VALUE/);
      expect(w.svc_data).toEqual(CLICK);
    });

    it('every name of the list, each present with any value (an empty one or none included)', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const query = [...AD_CLICK_IDS].reverse().map((name, i) => (i % 3 === 0 ? name : i % 3 === 1 ? `${name}=` : `${name}=secret${i}`));
      const page = await openPage(load, { url: `https://www.shop.test/pricing?${query.join('&')}&ref=alice`, attrs: attrs() });
      await page.ready;
      expect(api.calls[0].body.ads).toEqual([...AD_CLICK_IDS]);
      expect(String(api.calls[0].init.body)).not.toMatch(/secret/);
    });

    it('none present: no ads field, and the request is byte for byte that of an ordinary click', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/pricing?utm_source=news&ref=alice#plans', attrs: attrs() });
      await page.ready;
      expect('ads' in api.calls[0].body).toBe(false);
      expect(api.calls[0].init.body).toBe(ordinary());
    });

    it('an unrelated parameter is not reported, nor a name in another case, nor one in the fragment', async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, {
        url: 'https://www.shop.test/pricing?utm_source=google&utm_medium=cpc&gclsrc=aw.ds&dclid=1&xgclid=2&GCLID=3&ref=alice#gclid=4',
        attrs: attrs(),
      });
      await page.ready;
      expect('ads' in api.calls[0].body).toBe(false);
      expect(api.calls[0].init.body).toBe(ordinary());
    });

    it('the landing URL of the navigation entry, when the page removed its query before the script ran', async () => {
      vi.spyOn(performance, 'getEntriesByType').mockImplementation(
        (type: string) =>
          (type === 'navigation' ? [{ name: 'https://www.shop.test/pricing?gclid=G-VALUE&ref=alice' }] : []) as PerformanceEntryList,
      );
      try {
        const api = fakeApi({ '/v1/track/click': () => clickOk() });
        const page = await openPage(load, { url: 'https://www.shop.test/pricing', attrs: attrs() });
        await page.ready;
        expect(api.calls[0].init.body).toBe(ordinary(['gclid']));
      } finally {
        vi.restoreAllMocks();
      }
    });

    it("a History navigation's click reports the names of the URL it arrives at", async () => {
      const api = fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/?ref=alice&gclid=1', attrs: attrs() });
      await page.ready;
      history.pushState({}, '', '/pricing?via=bob&fbclid=2&ttclid');
      history.pushState({}, '', '/pricing?ref=carol');
      await settle();
      expect(api.calls.map((c) => [c.body.value, c.body.ads])).toEqual([
        ['alice', ['gclid']],
        ['bob', ['fbclid', 'ttclid']],
        ['carol', undefined],
      ]);
    });
  });

  describe('data-stripe', () => {
    const html = `
      <a id="pay" href="https://buy.stripe.com/test_123?prefilled_email=ann%40example.com">Pay</a>
      <a id="other" href="https://example.com/buy">Other</a>
      <stripe-buy-button id="button" buy-button-id="buy_1"></stripe-buy-button>
      <stripe-pricing-table id="table" pricing-table-id="prctbl_1"></stripe-pricing-table>`;

    it('adds the click id to payment links, buy buttons and pricing tables, also added later', async () => {
      fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/pricing?ref=alice', attrs: attrs({ 'data-stripe': '' }), html });
      await page.ready;
      await settle();
      const pay = new URL((document.getElementById('pay') as HTMLAnchorElement).href);
      expect(pay.searchParams.get('client_reference_id')).toBe('clk_new');
      expect(pay.searchParams.get('prefilled_email')).toBe('ann@example.com');
      expect(document.getElementById('other')!.getAttribute('href')).toBe('https://example.com/buy');
      expect(document.getElementById('button')!.getAttribute('client-reference-id')).toBe('clk_new');
      expect(document.getElementById('table')!.getAttribute('client-reference-id')).toBe('clk_new');

      document.body.insertAdjacentHTML(
        'beforeend',
        '<div><a id="late" href="https://buy.stripe.com/test_456">Late</a><stripe-buy-button id="late-button"></stripe-buy-button></div>',
      );
      await settle();
      expect(new URL((document.getElementById('late') as HTMLAnchorElement).href).searchParams.get('client_reference_id')).toBe('clk_new');
      expect(document.getElementById('late-button')!.getAttribute('client-reference-id')).toBe('clk_new');
    });

    it('looks again only when nodes are added, not when some are only removed', async () => {
      fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/pricing?ref=alice', attrs: attrs({ 'data-stripe': '' }), html });
      await page.ready;
      await settle();
      const scans = vi.spyOn(document, 'querySelectorAll');
      document.getElementById('other')!.remove();
      await settle();
      expect(scans).not.toHaveBeenCalled();
      document.body.insertAdjacentHTML('beforeend', '<a id="late" href="https://buy.stripe.com/test_789">Late</a>');
      await settle();
      expect(scans).toHaveBeenCalled();
      expect(new URL((document.getElementById('late') as HTMLAnchorElement).href).searchParams.get('client_reference_id')).toBe('clk_new');
      scans.mockRestore();
    });

    it('a returning visitor: decorated at once from the cookie', async () => {
      cookieFromEarlierVisit({ ...CLICK, click_id: 'clk_old' });
      fakeApi({});
      await openPage(load, { url: 'https://www.shop.test/pricing', attrs: attrs({ 'data-stripe': '' }), html });
      expect(document.getElementById('button')!.getAttribute('client-reference-id')).toBe('clk_old');
      expect(new URL((document.getElementById('pay') as HTMLAnchorElement).href).searchParams.get('client_reference_id')).toBe('clk_old');
    });

    it('without data-stripe or without a click nothing is decorated', async () => {
      fakeApi({ '/v1/track/click': () => clickOk() });
      const page = await openPage(load, { url: 'https://www.shop.test/pricing?ref=alice', attrs: attrs(), html });
      await page.ready;
      await settle();
      expect(document.getElementById('button')!.hasAttribute('client-reference-id')).toBe(false);
      closePage();
      fakeApi({});
      await openPage(load, { url: 'https://www.shop.test/pricing', attrs: attrs({ 'data-stripe': '' }), html });
      await settle();
      expect(document.getElementById('button')!.hasAttribute('client-reference-id')).toBe(false);
      expect((document.getElementById('pay') as HTMLAnchorElement).href).not.toContain('client_reference_id');
    });
  });
});
