import { describe, expect, it } from 'vitest';
import { AD_CLICK_IDS } from '../src/ad-click-ids';
import { findAdClickIds, findReferral, findReferralOrInFragment, trimPage, trimReferrer } from '../src/attribution';

const u = (s: string) => new URL(s);

describe('findReferral', () => {
  it('finds the configured parameter', () => {
    expect(findReferral(u('https://shop.test/?ref=alice'), ['ref', 'via'])).toEqual(['ref', 'alice']);
    expect(findReferral(u('https://shop.test/p?x=1&via=bob'), ['ref', 'via'])).toEqual(['via', 'bob']);
  });

  it('the first parameter in the configured order wins, whatever the URL order', () => {
    const url = u('https://shop.test/?via=bob&ref=alice');
    expect(findReferral(url, ['ref', 'via'])).toEqual(['ref', 'alice']);
    expect(findReferral(url, ['via', 'ref'])).toEqual(['via', 'bob']);
  });

  it('skips a missing or empty parameter and takes the next one', () => {
    expect(findReferral(u('https://shop.test/?ref=&via=bob'), ['ref', 'via'])).toEqual(['via', 'bob']);
    expect(findReferral(u('https://shop.test/?ref&via=bob'), ['ref', 'via'])).toEqual(['via', 'bob']);
  });

  it('nothing without a configured parameter, or with only empty ones', () => {
    expect(findReferral(u('https://shop.test/'), ['ref', 'via'])).toBeUndefined();
    expect(findReferral(u('https://shop.test/?aff=carol'), ['ref', 'via'])).toBeUndefined();
    expect(findReferral(u('https://shop.test/?ref=&via='), ['ref', 'via'])).toBeUndefined();
    expect(findReferral(u('https://shop.test/#ref=alice'), ['ref', 'via'])).toBeUndefined();
    expect(findReferral(u('https://shop.test/?ref=alice'), [])).toBeUndefined();
  });

  it('decodes the value, and takes the first of repeated parameters', () => {
    expect(findReferral(u('https://shop.test/?ref=J%C3%BCrgen%20M'), ['ref'])).toEqual(['ref', 'Jürgen M']);
    expect(findReferral(u('https://shop.test/?ref=a+b'), ['ref'])).toEqual(['ref', 'a b']);
    expect(findReferral(u('https://shop.test/?ref=one&ref=two'), ['ref'])).toEqual(['ref', 'one']);
  });

  it('parameter names are case-sensitive', () => {
    expect(findReferral(u('https://shop.test/?REF=alice'), ['ref'])).toBeUndefined();
  });
});

describe('findReferralOrInFragment (hash-routed apps)', () => {
  const params = ['ref', 'via'];

  it("finds the parameter in a hash route's query (#/route?…) and in a fragment that is a query (#ref=…)", () => {
    expect(findReferralOrInFragment(u('https://app.example/#/pricing?ref=alice'), params)).toEqual(['ref', 'alice']);
    expect(findReferralOrInFragment(u('https://app.example/#/pricing?plan=pro&via=bob&x=1'), params)).toEqual(['via', 'bob']);
    expect(findReferralOrInFragment(u('https://app.example/#ref=alice'), params)).toEqual(['ref', 'alice']);
    expect(findReferralOrInFragment(u('https://app.example/p?x=1#via=J%C3%BCrgen'), params)).toEqual(['via', 'Jürgen']);
  });

  it('the query string comes first, then the fragment, each in the configured order', () => {
    expect(findReferralOrInFragment(u('https://app.example/?via=bob#ref=alice'), params)).toEqual(['via', 'bob']);
    expect(findReferralOrInFragment(u('https://app.example/#/x?via=bob&ref=alice'), params)).toEqual(['ref', 'alice']);
  });

  it('nothing in a plain anchor, a route without the parameter, or an empty value', () => {
    for (const url of [
      'https://app.example/#pricing',
      'https://app.example/#/pricing',
      'https://app.example/#/p?aff=carol',
      'https://app.example/#ref=',
      'https://app.example/#/ref=alice',
      'https://app.example/',
    ]) {
      expect(findReferralOrInFragment(u(url), params), url).toBeUndefined();
    }
  });
});

describe('trimPage', () => {
  it('keeps origin, path and only the tracking parameter; drops the other params and the hash', () => {
    const url = u('https://www.shop.test:8443/pricing/pro?utm_source=x&ref=alice&email=a@b.c#plans');
    expect(trimPage(url, ['ref', 'alice'])).toBe('https://www.shop.test:8443/pricing/pro?ref=alice');
  });

  it('root path', () => {
    expect(trimPage(u('http://localhost:3000?via=bob'), ['via', 'bob'])).toBe('http://localhost:3000/?via=bob');
  });

  it('encodes the value (and the name) as a query string', () => {
    const url = u('https://shop.test/?ref=a%26b%3Dc%23d%20e%C3%A9');
    const ref = findReferral(url, ['ref'])!;
    expect(ref[1]).toBe('a&b=c#d eé');
    const page = trimPage(url, ref);
    expect(page).toBe('https://shop.test/?ref=a%26b%3Dc%23d+e%C3%A9');
    expect(new URL(page).searchParams.get('ref')).toBe('a&b=c#d eé');
    expect(trimPage(u('https://shop.test/'), ['a b', 'x'])).toBe('https://shop.test/?a+b=x');
  });

  it('keeps the path as the URL encodes it', () => {
    expect(trimPage(u('https://shop.test/caf%C3%A9/a b?ref=x'), ['ref', 'x'])).toBe('https://shop.test/caf%C3%A9/a%20b?ref=x');
  });
});

describe('trimReferrer', () => {
  it('undefined for an empty referrer', () => {
    expect(trimReferrer('')).toBeUndefined();
  });

  it('keeps origin and path, drops query and hash', () => {
    expect(trimReferrer('https://blog.example.com/post/1?utm=x&token=secret#c')).toBe('https://blog.example.com/post/1');
    expect(trimReferrer('https://blog.example.com/post/1#c?x')).toBe('https://blog.example.com/post/1');
    expect(trimReferrer('http://example.com/?q=1')).toBe('http://example.com/');
    expect(trimReferrer('https://www.google.com/')).toBe('https://www.google.com/');
    expect(trimReferrer('http://localhost:3000/a/b')).toBe('http://localhost:3000/a/b');
  });

  it.each([
    'android-app://com.google.android.gm/',
    'android-app://com.slack/https/slack.com/',
    'ios-app://1234/x?y=1',
    'file:///Users/me/page.html',
    'chrome-extension://abcdef/popup.html',
    'about:blank',
  ])('undefined for a referrer that is not a web page: %s', (referrer) => {
    expect(trimReferrer(referrer)).toBeUndefined();
  });
});

describe('AD_CLICK_IDS / findAdClickIds (paid-ad traffic)', () => {
  it('is the list the server flags paid-ad clicks by, in its order', () => {
    expect(AD_CLICK_IDS).toEqual(['gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'ttclid', 'li_fat_id', 'twclid']);
  });

  it('the names present in the query, in the list order whatever the URL order, never the values', () => {
    const url = u('https://shop.test/p?twclid=tw-1&ref=alice&msclkid=ms-2&gclid=Cj0KCQ-3&li_fat_id=li-4');
    expect(findAdClickIds(url)).toEqual(['gclid', 'msclkid', 'li_fat_id', 'twclid']);
    expect(findAdClickIds(u('https://shop.test/?fbclid=a&gclid=b'))).toEqual(['gclid', 'fbclid']);
  });

  it('every name of the list is found', () => {
    const all = u(
      `https://shop.test/?${[...AD_CLICK_IDS]
        .reverse()
        .map((name, i) => `${name}=v${i}`)
        .join('&')}`,
    );
    expect(findAdClickIds(all)).toEqual([...AD_CLICK_IDS]);
    for (const name of AD_CLICK_IDS) expect(findAdClickIds(u(`https://shop.test/?ref=alice&${name}=x`))).toEqual([name]);
  });

  it('a name counts when present with any value, an empty one or none included; a repeated one once', () => {
    expect(findAdClickIds(u('https://shop.test/?gclid=&fbclid'))).toEqual(['gclid', 'fbclid']);
    expect(findAdClickIds(u('https://shop.test/?wbraid=1&wbraid=2'))).toEqual(['wbraid']);
  });

  it('undefined without one: no other parameter, no other case, nothing in the fragment', () => {
    for (const url of [
      'https://shop.test/',
      'https://shop.test/?ref=alice',
      'https://shop.test/?utm_source=google&utm_medium=cpc&gclsrc=aw.ds&dclid=1&_gl=1*abc&xgclid=1&gclid_x=1',
      'https://shop.test/?GCLID=1&FbClId=2',
      'https://shop.test/?ref=gclid&q=fbclid%3D1',
      'https://shop.test/#gclid=1',
      'https://shop.test/#/pricing?ref=alice&gclid=1',
    ]) {
      expect(findAdClickIds(u(url)), url).toBeUndefined();
    }
  });
});
