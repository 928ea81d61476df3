import fs from 'node:fs';
import { GZIP_BUDGET_BYTES } from '../script/src/budget.js';
import { expect, test } from './support/fixtures.js';

/**
 * How svc.js reaches browsers (ingest/src/resources/tracking/script-asset.ts): compressed on the
 * wire, and under a versioned name that is cached for good.
 */

const BUILT = new URL('../script/dist/svc.js', import.meta.url);
const built = () => fs.readFileSync(BUILT);
const manifest = () =>
  JSON.parse(fs.readFileSync(new URL('../script/dist/svc.json', import.meta.url), 'utf8')) as { versioned: string; integrity: string };

test('Accept-Encoding br, gzip: /svc.js comes brotli-compressed, a fraction of its size on the wire', async ({ playwright, demo }) => {
  const request = await playwright.request.newContext();
  try {
    for (const [accept, encoding] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
    ]) {
      const res = await request.get(`${demo.ingestUrl}/svc.js`, { headers: { 'Accept-Encoding': accept } });
      expect(res.status()).toBe(200);
      expect(res.headers()['content-encoding']).toBe(encoding);
      expect(res.headers().vary).toBe('Accept-Encoding');
      const onTheWire = Number(res.headers()['content-length']);
      // The script's budget (script/src/budget.ts) is on its gzip size; brotli is smaller still.
      expect(onTheWire).toBeLessThanOrEqual(GZIP_BUDGET_BYTES);
      expect(onTheWire).toBeLessThan(built().length * 0.6);
      // Playwright decodes the body, as a browser does.
      expect((await res.body()).equals(built())).toBe(true);
    }
  } finally {
    await request.dispose();
  }
});

test('a page loading the versioned script with its integrity hash is tracked, and the script is cached for a year', async ({
  visitor,
  referral,
  demo,
}) => {
  const link = await referral();
  const { versioned, integrity } = manifest();
  const v = await visitor();
  // The demo's tag, rewritten to the pinned form a merchant may paste, through the demo's
  // same-site proxy (/svc/* → ingest): from another local port, Chromium's local network access
  // rules would refuse the CORS request an integrity check needs.
  await v.page.route(`${demo.demoUrl}/**`, async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    const html = (await response.text()).replace(
      /<script async src="[^"]*svc\.js"/,
      `<script async src="/svc/${versioned}" integrity="${integrity}" crossorigin="anonymous"`,
    );
    expect(html).toContain(versioned);
    await route.fulfill({ response, body: html });
  });
  const script = v.page.waitForResponse((res) => res.url() === `${demo.demoUrl}/svc/${versioned}`);
  await v.arrive(link.path);
  const res = await script;
  expect(res.status()).toBe(200);
  expect(res.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  const sizes = await res.request().sizes();
  expect(sizes.responseBodySize).toBeLessThan(built().length);
  const clicked = await v.clicked();
  expect(clicked.response?.status).toBe(200);
  expect(await v.page.evaluate(() => (globalThis as any).svc_data?.partner_id)).toBe(link.partnerId);
});
