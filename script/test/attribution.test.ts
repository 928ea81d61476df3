import { describe, expect, it } from 'vitest';
import { findReferral, trimPage, trimReferrer } from '../src/attribution';

const u = (s: string) => new URL(s);

describe('findReferral', () => {
  it('finds the configured parameter', () => {
    expect(findReferral(u('https://shop.test/?ref=alice'), ['ref', 'via'])).toEqual({ param: 'ref', value: 'alice' });
    expect(findReferral(u('https://shop.test/p?x=1&via=bob'), ['ref', 'via'])).toEqual({ param: 'via', value: 'bob' });
  });

  it('the first parameter in the configured order wins, whatever the URL order', () => {
    const url = u('https://shop.test/?via=bob&ref=alice');
    expect(findReferral(url, ['ref', 'via'])).toEqual({ param: 'ref', value: 'alice' });
    expect(findReferral(url, ['via', 'ref'])).toEqual({ param: 'via', value: 'bob' });
  });

  it('skips a missing or empty parameter and takes the next one', () => {
    expect(findReferral(u('https://shop.test/?ref=&via=bob'), ['ref', 'via'])).toEqual({ param: 'via', value: 'bob' });
    expect(findReferral(u('https://shop.test/?ref&via=bob'), ['ref', 'via'])).toEqual({ param: 'via', value: 'bob' });
  });

  it('null without a configured parameter, or with only empty ones', () => {
    expect(findReferral(u('https://shop.test/'), ['ref', 'via'])).toBeNull();
    expect(findReferral(u('https://shop.test/?aff=carol'), ['ref', 'via'])).toBeNull();
    expect(findReferral(u('https://shop.test/?ref=&via='), ['ref', 'via'])).toBeNull();
    expect(findReferral(u('https://shop.test/#ref=alice'), ['ref', 'via'])).toBeNull();
    expect(findReferral(u('https://shop.test/?ref=alice'), [])).toBeNull();
  });

  it('decodes the value, and takes the first of repeated parameters', () => {
    expect(findReferral(u('https://shop.test/?ref=J%C3%BCrgen%20M'), ['ref'])).toEqual({ param: 'ref', value: 'Jürgen M' });
    expect(findReferral(u('https://shop.test/?ref=a+b'), ['ref'])).toEqual({ param: 'ref', value: 'a b' });
    expect(findReferral(u('https://shop.test/?ref=one&ref=two'), ['ref'])).toEqual({ param: 'ref', value: 'one' });
  });

  it('parameter names are case-sensitive', () => {
    expect(findReferral(u('https://shop.test/?REF=alice'), ['ref'])).toBeNull();
  });
});

describe('trimPage', () => {
  it('keeps origin, path and only the tracking parameter; drops the other params and the hash', () => {
    const url = u('https://www.shop.test:8443/pricing/pro?utm_source=x&ref=alice&email=a@b.c#plans');
    expect(trimPage(url, { param: 'ref', value: 'alice' })).toBe('https://www.shop.test:8443/pricing/pro?ref=alice');
  });

  it('root path', () => {
    expect(trimPage(u('http://localhost:3000?via=bob'), { param: 'via', value: 'bob' })).toBe('http://localhost:3000/?via=bob');
  });

  it('encodes the value (and the name) as a query string', () => {
    const url = u('https://shop.test/?ref=a%26b%3Dc%23d%20e%C3%A9');
    const ref = findReferral(url, ['ref'])!;
    expect(ref.value).toBe('a&b=c#d eé');
    const page = trimPage(url, ref);
    expect(page).toBe('https://shop.test/?ref=a%26b%3Dc%23d+e%C3%A9');
    expect(new URL(page).searchParams.get('ref')).toBe('a&b=c#d eé');
    expect(trimPage(u('https://shop.test/'), { param: 'a b', value: 'x' })).toBe('https://shop.test/?a+b=x');
  });

  it('keeps the path as the URL encodes it', () => {
    expect(trimPage(u('https://shop.test/caf%C3%A9/a b?ref=x'), { param: 'ref', value: 'x' })).toBe(
      'https://shop.test/caf%C3%A9/a%20b?ref=x',
    );
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
});
