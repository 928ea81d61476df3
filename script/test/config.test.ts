import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTag, readConfig } from '../src/config';
import { setURL } from './support/dom';

function tag(attrs: Record<string, string>): HTMLScriptElement {
  const el = document.createElement('script');
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  return el;
}

beforeEach(() => setURL('https://www.shop.test/pricing'));
afterEach(() => {
  document.head.innerHTML = '';
  document.body.innerHTML = '';
});

describe('readConfig', () => {
  it('reads every data-* attribute', () => {
    const cfg = readConfig(
      tag({
        src: 'https://cdn.example.com/svc.js',
        'data-key': 'pk_123',
        'data-api': 'https://api.example.com/svc',
        'data-params': 'via,ref,aff',
        'data-cookie-domain': 'shop.test',
        'data-consent': 'required',
        'data-stripe': '',
      }),
    );
    expect(cfg).toEqual({
      key: 'pk_123',
      api: 'https://api.example.com/svc',
      params: ['via', 'ref', 'aff'],
      domain: 'shop.test',
      consent: true,
      stripe: true,
    });
  });

  it('defaults: api = the src origin, params ref,via, no domain, no consent, no stripe', () => {
    const cfg = readConfig(tag({ src: 'https://ingest.example.com:8787/path/svc.js?v=2', 'data-key': 'pk_1' }));
    expect(cfg).toEqual({
      key: 'pk_1',
      api: 'https://ingest.example.com:8787',
      params: ['ref', 'via'],
      domain: undefined,
      consent: false,
      stripe: false,
    });
  });

  it('resolves a relative src against the page for the default api', () => {
    expect(readConfig(tag({ src: '/svc/svc.js', 'data-key': 'pk_1' }))!.api).toBe('https://www.shop.test');
  });

  it('an empty data-api falls back to the src origin', () => {
    expect(readConfig(tag({ src: 'https://cdn.example.com/svc.js', 'data-key': 'pk_1', 'data-api': '' }))!.api).toBe(
      'https://cdn.example.com',
    );
  });

  it('an inline tag (no src) works with data-api', () => {
    expect(readConfig(tag({ 'data-key': 'pk_1', 'data-api': 'https://api.example.com' }))!.api).toBe('https://api.example.com');
  });

  it('removes trailing slashes from data-api', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-api': 'https://api.example.com/' }))!.api).toBe('https://api.example.com');
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-api': 'https://api.example.com/svc//' }))!.api).toBe(
      'https://api.example.com/svc',
    );
  });

  it('allows a relative data-api such as /svc (and /svc/)', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-api': '/svc' }))!.api).toBe('/svc');
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-api': '/svc/' }))!.api).toBe('/svc');
  });

  it('splits data-params on commas and trims the spaces around them', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-params': 'ref, via ,  aff' }))!.params).toEqual(['ref', 'via', 'aff']);
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-params': 'partner' }))!.params).toEqual(['partner']);
  });

  it('trims spaces at both ends of data-params too', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-params': ' ref, via ' }))!.params).toEqual(['ref', 'via']);
  });

  it('data-consent other than "required" does not ask for consent', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-consent': 'optional' }))!.consent).toBe(false);
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-consent': 'required' }))!.consent).toBe(true);
  });

  it('data-stripe counts by presence, whatever its value', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-stripe': 'true' }))!.stripe).toBe(true);
    expect(readConfig(tag({ src, 'data-key': 'k', 'data-stripe': '' }))!.stripe).toBe(true);
  });

  it('returns null without a public key, and for no tag', () => {
    expect(readConfig(tag({ src: 'https://cdn.example.com/svc.js' }))).toBeNull();
    expect(readConfig(tag({ src: 'https://cdn.example.com/svc.js', 'data-key': '' }))).toBeNull();
    expect(readConfig(null)).toBeNull();
    expect(readConfig(undefined)).toBeNull();
  });
});

describe('findTag', () => {
  it('falls back to script[data-key] when currentScript is null', () => {
    document.head.innerHTML =
      '<script src="https://cdn.example.com/other.js"></script><script src="https://cdn.example.com/svc.js" data-key="pk_found"></script>';
    expect(document.currentScript).toBeNull();
    const found = findTag(document);
    expect(found).toBe(document.querySelector('script[data-key]'));
    expect(found!.dataset.key).toBe('pk_found');
  });

  it('prefers document.currentScript', () => {
    document.head.innerHTML = '<script data-key="pk_other"></script>';
    const current = tag({ src: 'https://cdn.example.com/svc.js', 'data-key': 'pk_current' });
    const doc = {
      currentScript: current,
      querySelector: () => document.querySelector('script[data-key]'),
    } as unknown as Document;
    expect(findTag(doc)).toBe(current);
  });

  it('returns null when there is no tag with data-key', () => {
    document.head.innerHTML = '<script src="https://cdn.example.com/svc.js"></script>';
    expect(findTag(document)).toBeNull();
  });
});
