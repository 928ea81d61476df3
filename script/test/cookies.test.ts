import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DATA, EXPIRED, openJar, PENDING, probeDomain, REF, readCookie, readData, writeData } from '../src/cookies';
import { clearCookies, cookieMap, parseCookieString, setURL, spyCookieWrites } from './support/dom';

/** Public suffixes of the fake jar below (a browser uses the Public Suffix List). */
const SUFFIXES = new Set(['test', 'com', 'uk', 'co.uk', 'io', 'github.io', 'localhost']);

const isIp = (host: string) => /^[\d.]+$|^\[/.test(host);

/**
 * A fake cookie jar installed as the page's document.cookie (the script's jar writes there): like a
 * browser, it accepts `domain=X` only when X is the host or a parent of it and X is not a public
 * suffix, and for an IP address only when X is the address itself; cookies are keyed by name only
 * (enough for the probe). An `expires` in the past or `max-age<=0` removes.
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
      const domain = typeof attrs.domain === 'string' ? attrs.domain.replace(/^\./, '') : undefined;
      const matches = host === domain || (!isIp(host) && host.endsWith(`.${domain}`));
      if (domain !== undefined && (!matches || !accepts(domain))) return;
      const expired =
        (attrs['max-age'] !== undefined && Number(attrs['max-age']) <= 0) ||
        (typeof attrs.expires === 'string' && Date.parse(attrs.expires) <= Date.now());
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

  it.each(['localhost', '[::1]', '[2001:db8::1]'])(
    'a single label (%s) has no parent domain: undefined, without writing a cookie',
    (host) => {
      const { writes } = fakeDoc(host);
      expect(probeDomain(host)).toBeUndefined();
      expect(writes).toEqual([]);
    },
  );

  // WebKit (WebKitGTK 2.50) keeps `domain=0.1` on a page of 127.0.0.1, where Chromium and Firefox
  // refuse it: a probe would settle there. An IP address is never probed: its cookies are host-only.
  it.each(['127.0.0.1', '10.0.0.12', '192.168.1.1', '[::ffff:7f00:1]'])(
    'an IP address (%s) is host-only: undefined, without writing a cookie',
    (host) => {
      const { writes } = fakeDoc(host);
      expect(probeDomain(host)).toBeUndefined();
      expect(writes).toEqual([]);
    },
  );

  it('probes through the one jar: every probe carries the shared attributes', () => {
    setURL('https://www.shop.test/');
    const { writes } = fakeDoc('www.shop.test');
    probeDomain('www.shop.test');
    for (const raw of writes)
      expect(parseCookieString(raw).attrs).toMatchObject({ path: '/', samesite: 'Lax', secure: true, domain: expect.any(String) });
  });

  it('probes hosts on internationalized TLDs (location.hostname is punycode, e.g. .рф = xn--p1ai)', () => {
    const { jar } = fakeDoc('www.shop.xn--p1ai', (d) => d !== 'xn--p1ai');
    expect(probeDomain('www.shop.xn--p1ai')).toBe('shop.xn--p1ai');
    expect(jar.size).toBe(0);
  });
});

describe("removing the probe does not depend on the visitor's clock", () => {
  afterEach(() => {
    delete (document as unknown as Record<string, unknown>).cookie;
    vi.useRealTimers();
  });

  it('the removal carries a fixed date in the past, the same whatever the page clock says', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const removals = ['2001-01-01T00:00:00Z', new Date(Date.now() + 2 * 86400_000).toISOString(), '2100-01-01T00:00:00Z'].map((at) => {
      vi.setSystemTime(new Date(at));
      const { jar, writes } = fakeDoc('www.shop.test');
      probeDomain('www.shop.test');
      expect(jar.size).toBe(0);
      return writes.at(-1)!;
    });
    expect(new Set(removals).size).toBe(1);
    const removal = parseCookieString(removals[0]);
    expect(removal).toMatchObject({ name: 'svc_probe', value: '' });
    expect(removal.attrs.expires).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
    expect(EXPIRED).toBe(';expires=Thu, 01 Jan 1970 00:00:00 GMT');
  });

  it('a browser whose clock is two days ahead still drops the probe (happy-dom, real jar)', () => {
    setURL('https://www.shop.test/');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + 2 * 86400_000));
    expect(probeDomain('www.shop.test')).toBe('shop.test');
    vi.useRealTimers();
    expect(document.cookie).not.toContain('svc_probe');
    clearCookies();
  });
});

describe('probeDomain (happy-dom document.cookie, with its Public Suffix List)', () => {
  afterEach(clearCookies);

  it.each([
    ['https://www.shop.test/', 'shop.test'],
    ['https://app.acme.co.uk/x', 'acme.co.uk'],
    ['https://acme.com/', 'acme.com'],
    ['http://localhost:3000/', undefined],
    ['http://[::1]:3000/', undefined],
    ['http://127.0.0.1:3000/', undefined],
    ['http://[::ffff:127.0.0.1]:3000/', undefined],
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
    writeData(openJar('shop.test'), DATA_SAMPLE, 30 * 86400);
    expect(readData()).toEqual(DATA_SAMPLE);
    expect(readData()).toEqual(DATA_SAMPLE); // reading depends on no attribute
    const cookies = cookieMap();
    expect(Object.keys(cookies).sort()).toEqual([DATA, REF].sort());
    expect(cookies[REF]).toBe('clk_abc123');
    expect(JSON.parse(decodeURIComponent(cookies[DATA]))).toEqual(DATA_SAMPLE);
    expect(cookies[DATA]).not.toMatch(/[;,\s"]/); // no characters a cookie value cannot hold
  });

  it('round-trips awkward values (customer id with spaces, quotes, semicolons, unicode)', () => {
    const data = { ...DATA_SAMPLE, customer_id: 'a "b"; c=d, é €' };
    writeData(openJar(undefined), data, 86400);
    expect(readData()).toEqual(data);
  });

  it('the script cookies are visible on the parent domain and its other subdomains', () => {
    writeData(openJar('shop.test'), DATA_SAMPLE, 30 * 86400);
    setURL('https://app.shop.test/');
    expect(readData()).toEqual(DATA_SAMPLE);
    setURL('https://www.other.test/');
    expect(readData()).toBeNull();
  });

  it('writes path=/, samesite=Lax, secure (an https page), domain and max-age = the given seconds, and no expires', () => {
    writeData(openJar('shop.test'), DATA_SAMPLE, 2_591_940);
    expect(spy.writes).toHaveLength(2);
    const [data, ref] = spy.writes.map(parseCookieString);
    expect(data.name).toBe('svc_data');
    expect(ref.name).toBe('svc_ref');
    expect(ref.value).toBe('clk_abc123');
    for (const cookie of [data, ref]) {
      expect(cookie.attrs).toEqual({ path: '/', samesite: 'Lax', secure: true, domain: 'shop.test', 'max-age': '2591940' });
    }
  });

  it('no secure on an http page, and no domain attribute when none is given', () => {
    setURL('http://localhost:3000/');
    writeData(openJar(undefined), DATA_SAMPLE, 600);
    for (const raw of spy.writes) expect(parseCookieString(raw).attrs).toEqual({ path: '/', samesite: 'Lax', 'max-age': '600' });
    expect(readData()).toEqual(DATA_SAMPLE);
  });

  it("the visitor's clock does not change what is written: max-age counts from when the browser stores the cookie", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const written = (at: string) => {
      vi.setSystemTime(new Date(at));
      spy.writes.length = 0;
      writeData(openJar('shop.test'), DATA_SAMPLE, 86399);
      return [...spy.writes];
    };
    expect(written('1999-01-01T00:00:00Z')).toEqual(written('2030-06-15T12:00:00Z'));
    expect(parseCookieString(spy.writes[0]).attrs['max-age']).toBe('86399');
  });

  it('readData is null without the cookie', () => {
    expect(readData()).toBeNull();
  });

  it.each([
    ['not JSON', 'svc_data=%7Bbroken'],
    ['JSON null', 'svc_data=null'],
    ['empty', 'svc_data='],
  ])('readData on a malformed cookie (%s) → null', (_what, raw) => {
    document.cookie = `${raw};path=/`;
    expect(readData()).toBeNull();
  });

  const cookieOf = (value: unknown) => `svc_data=${encodeURIComponent(JSON.stringify(value))}`;

  it.each([
    ['click_id a number', cookieOf({ ...DATA_SAMPLE, click_id: 12345 })],
    ['click_id an object', cookieOf({ ...DATA_SAMPLE, click_id: { id: 'clk_a' } })],
    ['click_id an array of an id', cookieOf({ ...DATA_SAMPLE, click_id: ['clk_abc'] })],
    ['click_id an object with a match field', cookieOf({ ...DATA_SAMPLE, click_id: { match: 'clk_abc' } })],
    ['click_id an object with a null match field', cookieOf({ ...DATA_SAMPLE, click_id: { match: null } })],
    ['click_id true', cookieOf({ ...DATA_SAMPLE, click_id: true })],
    ['click_id null', cookieOf({ ...DATA_SAMPLE, click_id: null })],
    ['no click_id', cookieOf({ ...DATA_SAMPLE, click_id: undefined })],
    ['click_id empty', cookieOf({ ...DATA_SAMPLE, click_id: '' })],
    ['click_id not a click id', cookieOf({ ...DATA_SAMPLE, click_id: 'cust_abc' })],
    ['click_id with characters an id never has', cookieOf({ ...DATA_SAMPLE, click_id: 'clk_a"b;c' })],
    ['click_id over 64 characters', cookieOf({ ...DATA_SAMPLE, click_id: `clk_${'a'.repeat(61)}` })],
    ['a JSON string', cookieOf('clk_abc')],
    ['a broken percent-encoding', 'svc_data=%7B%22click_id%22%3A%E0%A4%A'],
  ])('readData on a cookie it cannot trust (%s) → null', (_what, raw) => {
    document.cookie = `${raw};path=/`;
    expect(readData()).toBeNull();
  });

  it('reads the encodings of earlier script versions (js-cookie) and of the server (Set-Cookie) alike', () => {
    const json = JSON.stringify(DATA_SAMPLE);
    // js-cookie left { } : , / unescaped; express encodes every reserved character.
    const jsCookie = encodeURIComponent(json).replace(/%(2[346BF]|3[AC-F]|40|5[BDE]|60|7[BCD])/g, decodeURIComponent);
    for (const value of [jsCookie, encodeURIComponent(json)]) {
      document.cookie = `svc_data=${value};path=/`;
      expect(readData()).toEqual(DATA_SAMPLE);
    }
  });

  it('a click id of 64 characters is trusted', () => {
    const data = { ...DATA_SAMPLE, click_id: `clk_${'a'.repeat(60)}` };
    writeData(openJar('shop.test'), data, 60);
    expect(readData()).toEqual(data);
  });

  it('readCookie finds the exact name only, decoded', () => {
    document.cookie = 'my_svc_data=x;path=/';
    document.cookie = 'svc_data_old=y;path=/';
    expect(readCookie(DATA)).toBeNull();
    openJar(undefined)(PENDING, 'https://www.shop.test/p?ref=a b');
    expect(readCookie(PENDING)).toBe('https://www.shop.test/p?ref=a b');
    expect(readCookie('svc_data_old')).toBe('y');
  });

  it('a jar writes a session cookie without a tail, and removes with the fixed past date', () => {
    const jar = openJar('shop.test');
    jar(PENDING, 'https://www.shop.test/?ref=alice');
    jar(PENDING, '', EXPIRED);
    const [written, removed] = spy.writes.map(parseCookieString);
    expect(written).toMatchObject({ name: PENDING, value: encodeURIComponent('https://www.shop.test/?ref=alice') });
    expect(written.attrs).toEqual({ path: '/', samesite: 'Lax', secure: true, domain: 'shop.test' });
    expect(removed.attrs).toEqual({
      path: '/',
      samesite: 'Lax',
      secure: true,
      domain: 'shop.test',
      expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
    });
    expect(readCookie(PENDING)).toBeNull();
  });
});
