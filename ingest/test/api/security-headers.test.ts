import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SCALAR_BUNDLE } from '../../src/http/api-docs.js';
import { useTestApp } from '../support/fixture.js';

/**
 * The hardening headers (helmet, http/security-headers.ts) on every kind of response, the public
 * endpoints' Cross-Origin-Resource-Policy exception, and /docs: Scalar served from node_modules
 * under a CSP of its own.
 */

/** Every response: no MIME sniffing, no framing, nothing telling which server this is. */
function expectHardened(res: { headers: Record<string, string> }, what: string): void {
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
  expect(res.headers['x-powered-by'], what).toBeUndefined();
  expect(res.headers['x-frame-options'], what).toBe('DENY');
  expect(res.headers['referrer-policy'], what).toBe('no-referrer');
  expect(res.headers['content-security-policy'], what).toMatch(/frame-ancestors 'none'/);
}

/** "default-src 'none';frame-ancestors 'none'" → { 'default-src': ["'none'"], … } */
function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}

describe('security headers', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ org: 'Acme Inc', program: 'Acme Partners' }] });

  it('a JSON API answer: hardened, with the strict API policy and same-origin resource policy', async () => {
    const res = await t.request.get('/v1/programs').set(org.auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectHardened(res, 'GET /v1/programs');
    expect(directives(res.headers['content-security-policy'])).toEqual({ 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] });
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('error answers carry them too: 401, an unknown route, a malformed body', async () => {
    const unauthorized = await t.request.get('/v1/partners');
    expect(unauthorized.status).toBe(401);
    expectHardened(unauthorized, '401');

    const unknown = await t.request.get('/no/such/route');
    expect(unknown.status).toBe(404);
    expectHardened(unknown, '404');

    const malformed = await t.request.post('/v1/partners').set(org.auth).set('Content-Type', 'application/json').send('{"not json');
    expect(malformed.status).toBe(400);
    expectHardened(malformed, '400');
    expect(malformed.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('/svc.js and the script endpoints stay loadable from other origins (CORP cross-origin)', async () => {
    const script = await t.request.get('/svc.js');
    expect(script.status).toBe(200);
    expectHardened(script, '/svc.js');
    expect(script.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(script.headers['access-control-allow-origin']).toBe('*');

    // An error from a track endpoint must be readable by the merchant's page as well.
    const track = await t.request
      .post('/v1/track/click')
      .set('Origin', 'https://www.shop.test')
      .send({ key: 'pk_unknown', param: 'ref', value: 'x' });
    expect(track.status).toBeGreaterThanOrEqual(400);
    expectHardened(track, '/v1/track/click');
    expect(track.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(track.headers['access-control-allow-origin']).toBe('*');

    const preflight = await t.request
      .options('/v1/track/signup')
      .set('Origin', 'https://www.shop.test')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(preflight.headers['cross-origin-resource-policy']).toBe('cross-origin');

    // Only those: the rest of /v1 is same-origin.
    const openapi = await t.request.get('/v1/openapi.json');
    expect(openapi.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  describe('/docs', () => {
    it('is an HTML page under a CSP of its own: scripts from this origin only, never framed', async () => {
      const res = await t.request.get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expectHardened(res, '/docs');
      const csp = directives(res.headers['content-security-policy']);
      expect(csp['default-src']).toEqual(["'none'"]);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(csp['script-src']).toEqual(["'self'"]);
      expect(csp['connect-src']).toEqual(["'self'"]);
      // No host anywhere (the CDN, fonts.scalar.com, …), and no eval or inline script.
      expect(res.headers['content-security-policy']).not.toMatch(/https?:|\*|unsafe-eval/);
      expect(csp['script-src']).not.toContain("'unsafe-inline'");
    });

    it('loads Scalar from this server and turns off what would call other hosts', async () => {
      const page = (await t.request.get('/docs')).text;
      const scripts = [...page.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).not.toMatch(/src="(https?:)?\/\//i);
      expect(page).not.toMatch(/https:\/\//);
      expect(page).toMatch(/<script src="\/docs\/scalar\.js\?v=[\w.-]+"><\/script>/);
      // The configuration is an attribute (no inline script), pointing at the OpenAPI document.
      const attr = /data-configuration="([^"]*)"/.exec(page)?.[1];
      const configuration = JSON.parse(
        attr!
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      );
      expect(configuration).toMatchObject({
        url: '/v1/openapi.json',
        withDefaultFonts: false,
        showDeveloperTools: 'never',
        agent: { disabled: true },
        hideClientButton: true,
      });
      expect(configuration.proxyUrl).toBeUndefined();
    });

    it('/docs/scalar.js is the bundle from node_modules, as JavaScript, cached for good', async () => {
      const src = /<script src="([^"]+)"/.exec((await t.request.get('/docs')).text)![1];
      const res = await t.request.get(src);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript(;|$)/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expectHardened(res, '/docs/scalar.js');
      expect(SCALAR_BUNDLE).toMatch(/node_modules\/@scalar\/api-reference\/dist\/browser\/standalone\.js$/);
      const bundle = await fs.readFile(SCALAR_BUNDLE);
      expect(Number(res.headers['content-length'])).toBe(bundle.length);
      expect(res.text === bundle.toString('utf8')).toBe(true);
    });
  });
});
