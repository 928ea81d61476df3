import { describe, expect, it } from 'vitest';
import { shareableLink } from '../../src/resources/links/link-address.js';

/** A partner's link on the merchant's site, built in one place (ingest/docs/partner-portal.md#sharing-a-link). */

const emma = { param: 'ref', value: 'emma' };
const on = (website_url: string | null, link = emma) => shareableLink({ website_url }, link);

describe('shareableLink', () => {
  it("puts the link's parameter on the program's website address", () => {
    expect(on('https://acme.com')).toBe('https://acme.com/?ref=emma');
    expect(on('https://acme.com/')).toBe('https://acme.com/?ref=emma');
    expect(on('http://localhost:3000')).toBe('http://localhost:3000/?ref=emma');
  });

  it('keeps a path, with or without its trailing slash', () => {
    expect(on('https://acme.com/shop')).toBe('https://acme.com/shop?ref=emma');
    expect(on('https://acme.com/shop/')).toBe('https://acme.com/shop/?ref=emma');
  });

  it('keeps an existing query in its order and encoding, replaces the same parameter, and keeps the #hash', () => {
    expect(on('https://acme.com/?lang=en&q=a+b%20c')).toBe('https://acme.com/?lang=en&q=a+b%20c&ref=emma');
    expect(on('https://acme.com/?ref=someone&lang=en')).toBe('https://acme.com/?lang=en&ref=emma');
    expect(on('https://acme.com/?')).toBe('https://acme.com/?ref=emma');
    expect(on('https://acme.com/pricing#plans')).toBe('https://acme.com/pricing?ref=emma#plans');
  });

  it("uses the link's own parameter, one of the program's url_params", () => {
    expect(on('https://acme.com', { param: 'via', value: 'emma' })).toBe('https://acme.com/?via=emma');
    expect(on('https://acme.com/?ref=x', { param: 'aff', value: 'emma-2' })).toBe('https://acme.com/?ref=x&aff=emma-2');
  });

  it('is null without a website address, or with one that is no web address: never `?ref=emma` alone', () => {
    expect(on(null)).toBeNull();
    expect(on('')).toBeNull();
    expect(on('not a url')).toBeNull();
    expect(on('ftp://acme.com/')).toBeNull();
    expect(on('javascript:alert(1)')).toBeNull();
  });
});
