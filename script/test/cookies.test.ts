import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DATA, REF, openJar, probeDomain, readData, writeData, type SvcData } from '../src/cookies';
import { clearCookies, cookieMap, parseCookieString, setURL, spyCookieWrites } from './support/dom';

/** Public suffixes of the fake jar below (a browser uses the Public Suffix List). */
const SUFFIXES = new Set(['test', 'com', 'uk', 'co.uk', 'io', 'github.io', 'localhost']);

/**
 * A fake cookie jar installed as the page's document.cookie (js-cookie writes there): it accepts
 * `domain=X` only when X is the host or a parent of it and X is not a public suffix; cookies are
 * keyed by name only (enough for the probe). An `expires` in the past or `max-age<=0` removes.
 */
function fakeDoc(host: string, accepts: (domain: string) => boolean = (d) => !SUFFIXES.has(d)) {
  const jar = new Map<string, string>();
  const writes: string[] = [];
  Object.defineProperty(document, 'cookie', {
    configurable: true,
    get(): string {
      return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    },
    set(raw: string) {
      writes.push(raw);
      const { name, value, attrs } = parseCookieString(raw);
      const domain = typeof attrs.domain == 'string' ? attrs.domain.replace(/^\./, '') : undefined;
      if (domain !== undefined && (!(host == domain || host.endsWith('.' + domain)) || !accepts(domain))) return;
      const expired =
        (attrs['max-age'] !== undefined && Number(attrs['max-age']) <= 0) ||
        (typeof attrs.expires == 'string' && Date.parse(attrs.expires) <= Date.now());
      if (expired) jar.delete(name);
      else jar.set(name, value);
    },
  });
  return { jar, writes };
}

describe('probeDomain (fake cookie jar)', () => {
  // The fake jar shadows happy-dom's own document.cookie; removing it restores the real one.
  afterEach(() => {
    delete (document as unknown as Record<string, unknown>).cookie;
  });

  it('www.shop.test → shop.test (test refuses a cookie)', () => {
    const { jar, writes } = fakeDoc('www.shop.test');
    expect(probeDomain('www.shop.test')).toBe('shop.test');
    expect(writes[0]).toMatch(/^svc_probe=1;.*domain=shop\.test/);
    expect(jar.size).toBe(0); // the probe cookie was removed
    const removal = parseCookieString(writes.at(-1)!);
    expect(removal).toMatchObject({ name: 'svc_probe', value: '', attrs: { domain: 'shop.test' } });
    expect(Date.parse(String(removal.attrs.expires))).toBeLessThan(Date.now()); // expired: removed
  });

  it('app.acme.co.uk → acme.co.uk (co.uk refuses a cookie)', () => {
    const { jar, writes } = fakeDoc('app.acme.co.uk');
    expect(probeDomain('app.acme.co.uk')).toBe('acme.co.uk');
    expect(writes.filter((w) => w.startsWith('svc_probe=1')).map((w) => parseCookieString(w).attrs.domain)).toEqual([
      'co.uk',
      'acme.co.uk',
    ]);
    expect(jar.size).toBe(0);
  });

  it('a host directly under a public suffix gets itself', () => {
    const { jar } = fakeDoc('shop.test');
    expect(probeDomain('shop.test')).toBe('shop.test');
    expect(jar.size).toBe(0);
    fakeDoc('me.github.io');
    expect(probeDomain('me.github.io')).toBe('me.github.io');
  });

  it('undefined when no domain accepts a cookie, leaving nothing behind', () => {
    const { jar, writes } = fakeDoc('a.b.shop.test', () => false);
    expect(probeDomain('a.b.shop.test')).toBeUndefined();
    expect(writes.map((w) => parseCookieString(w).attrs.domain)).toEqual(['shop.test', 'b.shop.test', 'a.b.shop.test']);
    expect(jar.size).toBe(0);
  });

  it('keeps other cookies and only removes its own probe', () => {
    const { jar } = fakeDoc('www.shop.test');
    jar.set('session', 'abc');
    expect(probeDomain('www.shop.test')).toBe('shop.test');
    expect([...jar]).toEqual([['session', 'abc']]);
  });

  it.each(['localhost', '127.0.0.1', '[::1]', '[2001:db8::1]', '10.0.0.12'])('%s → undefined, without writing a cookie', (host) => {
    const { writes } = fakeDoc(host);
    expect(probeDomain(host)).toBeUndefined();
    expect(writes).toEqual([]);
  });

  it('probes hosts on internationalized TLDs (location.hostname is punycode, e.g. .рф = xn--p1ai)', () => {
    const { jar } = fakeDoc('www.shop.xn--p1ai', (d) => d != 'xn--p1ai');
    expect(probeDomain('www.shop.xn--p1ai')).toBe('shop.xn--p1ai');
    expect(jar.size).toBe(0);
  });
});

describe('probeDomain (happy-dom document.cookie, with its Public Suffix List)', () => {
  afterEach(clearCookies);

  it.each([
    ['https://www.shop.test/', 'shop.test'],
    ['https://app.acme.co.uk/x', 'acme.co.uk'],
    ['https://acme.com/', 'acme.com'],
    ['http://localhost:3000/', undefined],
    ['http://127.0.0.1:8787/', undefined],
    ['http://[::1]:3000/', undefined],
  ])('%s → %s', (url, expected) => {
    setURL(url);
    expect(probeDomain(location.hostname)).toBe(expected);
    expect(document.cookie).not.toContain('svc_probe=1');
  });
});

const DATA_SAMPLE: SvcData = {
  click_id: 'clk_abc123',
  cookie_duration: 30,
  partner_id: 'part_1',
  program_id: 'prg_1',
  customer_id: null,
};

describe('openJar / writeData / readData', () => {
  let spy: ReturnType<typeof spyCookieWrites>;

  beforeEach(() => {
    setURL('https://www.shop.test/pricing?ref=alice');
    spy = spyCookieWrites();
  });
  afterEach(() => {
    spy.restore();
    clearCookies();
    vi.useRealTimers();
  });

  it('round-trips svc_data as JSON and writes svc_ref = the click id', () => {
    const jar = openJar('shop.test', true);
    writeData(jar, DATA_SAMPLE, 30);
    expect(readData()).toEqual(DATA_SAMPLE);
    expect(readData()).toEqual(DATA_SAMPLE); // reading depends on no attribute
    const cookies = cookieMap();
    expect(Object.keys(cookies).sort()).toEqual([DATA, REF].sort());
    expect(cookies[REF]).toBe('clk_abc123');
    expect(JSON.parse(decodeURIComponent(cookies[DATA]))).toEqual(DATA_SAMPLE);
    expect(cookies[DATA]).not.toMatch(/[;,\s"]/); // no characters a cookie value cannot hold
  });

  it('round-trips awkward values (customer id with spaces, quotes, semicolons, unicode)', () => {
    const jar = openJar(undefined, false);
    const data = { ...DATA_SAMPLE, customer_id: 'a "b"; c=d, é €' };
    writeData(jar, data, 1);
    expect(readData()).toEqual(data);
  });

  it('the script cookies are visible on the parent domain and its other subdomains', () => {
    writeData(openJar('shop.test', true), DATA_SAMPLE, 30);
    setURL('https://app.shop.test/');
    expect(readData()).toEqual(DATA_SAMPLE);
    setURL('https://www.other.test/');
    expect(readData()).toBeNull();
  });

  it('writes path=/, samesite=Lax, secure, domain and expires = the given date', () => {
    const expires = new Date('2031-05-06T07:08:09Z');
    writeData(openJar('shop.test', true), DATA_SAMPLE, expires);
    expect(spy.writes).toHaveLength(2);
    const [data, ref] = spy.writes.map(parseCookieString);
    expect(data.name).toBe('svc_data');
    expect(ref.name).toBe('svc_ref');
    expect(ref.value).toBe('clk_abc123');
    for (const cookie of [data, ref]) {
      expect(cookie.attrs).toEqual({
        path: '/',
        samesite: 'Lax',
        secure: true,
        domain: 'shop.test',
        expires: 'Tue, 06 May 2031 07:08:09 GMT',
      });
    }
  });

  it('no secure and no domain attribute when not asked', () => {
    setURL('http://localhost:3000/');
    const expires = new Date('2031-05-06T07:08:09Z');
    writeData(openJar(undefined, false), DATA_SAMPLE, expires);
    for (const raw of spy.writes) {
      expect(parseCookieString(raw).attrs).toEqual({ path: '/', samesite: 'Lax', expires: expires.toUTCString() });
    }
    expect(readData()).toEqual(DATA_SAMPLE);
  });

  it('expires as a number of days from now', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    writeData(openJar('shop.test', true), DATA_SAMPLE, 86399 / 86400); // max_age seconds / 86400, as index.ts does
    for (const raw of spy.writes) expect(parseCookieString(raw).attrs.expires).toBe('Tue, 01 Jan 2030 23:59:59 GMT');
  });

  it('readData is null without the cookie', () => {
    expect(readData()).toBeNull();
  });

  it.each([
    ['not JSON', 'svc_data=%7Bbroken'],
    ['JSON null', 'svc_data=null'],
    ['empty', 'svc_data='],
  ])('readData on a malformed cookie (%s) → null', (_what, raw) => {
    document.cookie = raw + ';path=/';
    expect(readData()).toBeNull();
  });
});
