import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Config, findTag, readConfig } from '../src/config';
import { setURL } from './support/dom';

function tag(attrs: Record<string, string>): HTMLScriptElement {
  const el = document.createElement('script');
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  return el;
}

/** The tuple's fields by name, for the tests that look at one of them. */
const named = (cfg: Config | undefined) => {
  const [key, api, params, domain, consent, stripe] = cfg!;
  return { key, api, params, domain, consent, stripe };
};

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
    // [key, api, params, domain, consent, stripe]
    expect(cfg).toEqual(['pk_123', 'https://api.example.com/svc', ['via', 'ref', 'aff'], 'shop.test', true, true]);
  });

  it('defaults: api = the src origin, params ref,via, no domain, no consent, no stripe', () => {
    const cfg = readConfig(tag({ src: 'https://ingest.example.com:8787/path/svc.js?v=2', 'data-key': 'pk_1' }));
    expect(cfg).toEqual(['pk_1', 'https://ingest.example.com:8787', ['ref', 'via'], undefined, false, false]);
  });

  it('resolves a relative src against the page for the default api', () => {
    expect(named(readConfig(tag({ src: '/svc/svc.js', 'data-key': 'pk_1' }))).api).toBe('https://www.shop.test');
  });

  it('an empty data-api falls back to the src origin', () => {
    expect(named(readConfig(tag({ src: 'https://cdn.example.com/svc.js', 'data-key': 'pk_1', 'data-api': '' }))).api).toBe(
      'https://cdn.example.com',
    );
  });

  it('an inline tag (no src) works with data-api', () => {
    expect(named(readConfig(tag({ 'data-key': 'pk_1', 'data-api': 'https://api.example.com' }))).api).toBe('https://api.example.com');
  });

  it('removes trailing slashes from data-api', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-api': 'https://api.example.com/' }))).api).toBe('https://api.example.com');
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-api': 'https://api.example.com/svc//' }))).api).toBe(
      'https://api.example.com/svc',
    );
  });

  it('allows a relative data-api such as /svc (and /svc/)', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-api': '/svc' }))).api).toBe('/svc');
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-api': '/svc/' }))).api).toBe('/svc');
  });

  it('splits data-params on commas and spaces', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-params': 'ref, via ,  aff' }))).params).toEqual(['ref', 'via', 'aff']);
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-params': 'partner' }))).params).toEqual(['partner']);
  });

  it('no empty names: spaces at either end, doubled or trailing commas', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-params': ' ref, via ' }))).params).toEqual(['ref', 'via']);
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-params': 'ref,,via,' }))).params).toEqual(['ref', 'via']);
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-params': 'ref via\taff' }))).params).toEqual(['ref', 'via', 'aff']);
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-params': ' , ' }))).params).toEqual([]);
  });

  it('data-consent other than "required" does not ask for consent', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-consent': 'optional' }))).consent).toBe(false);
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-consent': 'required' }))).consent).toBe(true);
  });

  it('data-stripe counts by presence, whatever its value', () => {
    const src = 'https://cdn.example.com/svc.js';
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-stripe': 'true' }))).stripe).toBe(true);
    expect(named(readConfig(tag({ src, 'data-key': 'k', 'data-stripe': '' }))).stripe).toBe(true);
  });

  it('returns nothing without a public key, and for no tag', () => {
    expect(readConfig(tag({ src: 'https://cdn.example.com/svc.js' }))).toBeUndefined();
    expect(readConfig(tag({ src: 'https://cdn.example.com/svc.js', 'data-key': '' }))).toBeUndefined();
    expect(readConfig(null)).toBeUndefined();
    expect(readConfig(undefined)).toBeUndefined();
  });
});

describe('findTag', () => {
  afterEach(() => void delete (document as unknown as Record<string, unknown>).currentScript);

  it('falls back to the svc.js tag with a data-key when currentScript is null', () => {
    document.head.innerHTML =
      '<script src="https://cdn.example.com/other.js"></script><script src="https://cdn.example.com/svc.js?v=3" data-key="pk_found"></script>';
    expect(document.currentScript).toBeNull();
    const found = findTag();
    expect(found).toBe(document.querySelectorAll('script')[1]);
    expect(found!.dataset.key).toBe('pk_found');
  });

  it("never takes another vendor's tag that also has a data-key", () => {
    document.head.innerHTML =
      '<script src="https://widgets.example.com/chat.js" data-key="chat_123"></script><script data-key="inline_1">/* inline */</script>' +
      '<script src="/svc/svc.js" data-key="pk_ours" data-api="/svc"></script>';
    expect(findTag()!.dataset.key).toBe('pk_ours');
    document.head.innerHTML = '<script src="https://widgets.example.com/chat.js" data-key="chat_123"></script>';
    expect(findTag()).toBeNull();
  });

  it('prefers document.currentScript, whatever its src', () => {
    document.head.innerHTML = '<script src="https://cdn.example.com/svc.js" data-key="pk_other"></script>';
    const current = tag({ src: 'https://cdn.example.com/renamed.js', 'data-key': 'pk_current' });
    Object.defineProperty(document, 'currentScript', { configurable: true, get: () => current });
    expect(findTag()).toBe(current);
  });

  it('returns null when there is no svc.js tag with data-key', () => {
    document.head.innerHTML = '<script src="https://cdn.example.com/svc.js"></script>';
    expect(findTag()).toBeNull();
  });
});
