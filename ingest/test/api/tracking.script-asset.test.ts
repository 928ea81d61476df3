import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_FILE } from '../../src/resources/tracking/script-asset.js';
import { createTestApp, type TestApp } from '../support/harness.js';

/**
 * GET /svc.js: the built tracking script (`npm run build` → script/dist/svc.js), cacheable for
 * five minutes then revalidated by ETag, loadable from any origin without a key.
 */

const BUILT = fileURLToPath(new URL('../../../script/dist/svc.js', import.meta.url));

describe('GET /svc.js', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('serves the file npm run build writes', () => {
    expect(SCRIPT_FILE).toBe(BUILT);
  });

  it('answers 200 text/javascript with the cache, CORS and CORP headers, and exactly script/dist/svc.js', async () => {
    const res = await t.request.get('/svc.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript(;|$)/);
    expect(res.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['etag']).toMatch(/^(W\/)?"[^"]+"$/);
    expect(res.headers['set-cookie']).toBeUndefined();

    const built = await fs.readFile(BUILT, 'utf8');
    expect(res.text.length).toBeGreaterThan(0);
    expect(res.text).toBe(built);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(built));
    // A classic script (an IIFE), not a module: it compiles as a function body.
    expect(() => new Function(res.text)).not.toThrow();
  });

  it('answers 304 with no body to If-None-Match with its ETag, keeping the cache and CORS headers', async () => {
    const first = await t.request.get('/svc.js');
    const etag = first.headers['etag'];
    const res = await t.request.get('/svc.js').set('If-None-Match', etag);
    expect(res.status).toBe(304);
    expect(res.text ?? '').toBe('');
    expect(res.headers['etag']).toBe(etag);
    expect(res.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 200 with the full script to a stale ETag', async () => {
    const res = await t.request.get('/svc.js').set('If-None-Match', '"stale-etag"');
    expect(res.status).toBe(200);
    expect(res.text).toBe(await fs.readFile(BUILT, 'utf8'));
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await t.request.head('/svc.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers['etag']).toBeTruthy();
    expect(res.text ?? '').toBe('');
  });

  it('needs no key and ignores an Authorization header', async () => {
    const res = await t.request.get('/svc.js').set('Authorization', 'Bearer sk_notAKey').set('Origin', 'https://www.shop.test');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('is not limited by the public endpoints’ per-IP rate limit', async () => {
    const limited = await createTestApp({ storage: t.storage, env: { SVC_TRACK_RATE_LIMIT: '1' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.request.get('/svc.js')).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
    } finally {
      await limited.close();
    }
  });
});
