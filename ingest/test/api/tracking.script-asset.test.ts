import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { SCRIPT_FILE } from '../../src/resources/tracking/script-asset.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp } from '../support/harness.js';

/**
 * GET /svc.js: the built tracking script (`npm run build` → script/dist/svc.js), cacheable for
 * five minutes then revalidated by ETag, loadable from any origin without a key, sent brotli- or
 * gzip-compressed when accepted; GET /svc.<hash>.js: the same build, immutable.
 */

const BUILT = fileURLToPath(new URL('../../../script/dist/svc.js', import.meta.url));

describe('GET /svc.js', () => {
  const { t } = useTestApp();

  it('serves the file npm run build writes', () => {
    expect(SCRIPT_FILE).toBe(BUILT);
  });

  it('answers 200 text/javascript with the cache, CORS and CORP headers, and exactly script/dist/svc.js', async () => {
    const res = await t.request.get('/svc.js').set('Accept-Encoding', 'identity');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript(;|$)/);
    expect(res.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers.etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(res.headers['set-cookie']).toBeUndefined();

    const built = await fs.readFile(BUILT, 'utf8');
    expect(res.text.length).toBeGreaterThan(0);
    expect(res.text).toBe(built);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(built));
    // A classic script (an IIFE), not a module: it compiles as a function body.
    expect(() => new Function(res.text)).not.toThrow();
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept-Encoding');
  });

  /** Status, headers and the body exactly as sent (supertest would decompress it). */
  async function rawGet(
    path: string,
    acceptEncoding: string,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    const server = http.createServer(createApp(t.deps));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      return await new Promise((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path, headers: { 'Accept-Encoding': acceptEncoding } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it.each([
    ['br, gzip', 'br', (b: Buffer) => zlib.brotliDecompressSync(b)],
    ['gzip, deflate', 'gzip', (b: Buffer) => zlib.gunzipSync(b)],
    ['gzip;q=1, br;q=0.5', 'gzip', (b: Buffer) => zlib.gunzipSync(b)],
    // What Chromium sends: equal weights, so the server's preference decides.
    ['gzip, deflate, br, zstd', 'br', (b: Buffer) => zlib.brotliDecompressSync(b)],
  ])('Accept-Encoding %s → %s, smaller on the wire, the same script once decoded', async (accept, encoding, decode) => {
    const res = await rawGet('/svc.js', accept);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers.vary).toBe('Accept-Encoding');
    const wire = res.body;
    const built = await fs.readFile(BUILT);
    expect(Number(res.headers['content-length'])).toBe(wire.length);
    expect(wire.length).toBeLessThan(built.length * 0.6);
    expect(decode(wire).equals(built)).toBe(true);
    // The copy the build wrote beside the script.
    expect(wire.equals(await fs.readFile(`${BUILT}.${encoding === 'br' ? 'br' : 'gz'}`))).toBe(true);
  });

  it('an ETag per encoding: a gzip ETag does not revalidate the brotli answer', async () => {
    const gz = await rawGet('/svc.js', 'gzip');
    const br = await rawGet('/svc.js', 'br');
    expect(gz.headers.etag).not.toBe(br.headers.etag);
    const stale = await t.request.get('/svc.js').set('Accept-Encoding', 'br').set('If-None-Match', String(gz.headers.etag));
    expect(stale.status).toBe(200);
    const fresh = await t.request.get('/svc.js').set('Accept-Encoding', 'br').set('If-None-Match', String(br.headers.etag));
    expect(fresh.status).toBe(304);
  });

  describe('the versioned URL named by script/dist/svc.json', () => {
    const manifest = async () =>
      JSON.parse(await fs.readFile(BUILT.replace(/\.js$/, '.json'), 'utf8')) as { versioned: string; integrity: string };

    it('names this build by its content and carries its Subresource Integrity hash', async () => {
      const { versioned, integrity } = await manifest();
      const built = await fs.readFile(BUILT);
      expect(versioned).toBe(`svc.${createHash('sha256').update(built).digest('hex').slice(0, 12)}.js`);
      expect(integrity).toBe(`sha384-${createHash('sha384').update(built).digest('base64')}`);
    });

    it('serves the same script, compressed, immutable for a year, loadable from other origins', async () => {
      const { versioned } = await manifest();
      const res = await rawGet(`/${versioned}`, 'br');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(zlib.brotliDecompressSync(res.body).equals(await fs.readFile(BUILT))).toBe(true);
    });

    it('another build’s name (pinned before an upgrade) is redirected to this build, uncached', async () => {
      const { versioned } = await manifest();
      const res = await t.request.get('/svc.0123456789ab.js').redirects(0);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(versioned);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it('anything else that looks like it is not the script: 404', async () => {
      for (const path of ['/svc.0123.js', '/svc.0123456789AB.js', '/svc.0123456789abc.js', '/svc..js']) {
        expect((await t.request.get(path)).status, path).toBe(404);
      }
    });
  });

  it('answers 304 with no body to If-None-Match with its ETag, keeping the cache and CORS headers', async () => {
    const first = await t.request.get('/svc.js');
    const etag = first.headers.etag;
    const res = await t.request.get('/svc.js').set('If-None-Match', etag);
    expect(res.status).toBe(304);
    expect(res.text ?? '').toBe('');
    expect(res.headers.etag).toBe(etag);
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
    expect(res.headers.etag).toBeTruthy();
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
