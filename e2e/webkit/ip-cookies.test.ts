import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findWebKit, NO_WEBKIT_MESSAGE } from '../support/webkit.js';
import { startWebKit, type WebDriverCookie, type WebKit } from './webdriver.js';

/**
 * The cookie domain on an IP address, in WebKit: WebKitGTK keeps a cookie that claims
 * `domain=0.1` on a page of 127.0.0.1 (Chromium and Firefox refuse it), so the script's probe for
 * the shortest cookie domain used to settle on `0.1`. IP addresses are host-only now
 * (script/src/cookies.ts, probeDomain). The page runs the built svc.js against a stand-in for
 * the click endpoint on the same origin, answering as ingest does in cross-site mode
 * (`cookie: false`: the script writes the cookies itself).
 */

const BUILT = new URL('../../script/dist/svc.js', import.meta.url);
// What the API answers as `data` (SvcData in script/svc.d.ts).
const DATA = {
  click_id: 'clk_webkit1',
  cookie_duration: 30,
  partner_id: 'pn_webkit',
  program_id: 'prg_webkit',
  customer_id: null,
};

interface Site {
  port: number;
  /** The bodies of the clicks the page sent. */
  clicks: Record<string, unknown>[];
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  if (!fs.existsSync(BUILT)) throw new Error(`${BUILT.pathname} is missing: build it with \`npm run build\` first`);
  const script = fs.readFileSync(BUILT);
  const clicks: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/track/click') {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        clicks.push(JSON.parse(body));
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data: DATA, max_age: DATA.cookie_duration * 86_400, cookie: false }));
      });
    } else if (req.url === '/svc.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Shop</title><script async src="/svc.js" data-key="pk_webkit"></script><h1>Pricing</h1>');
    }
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    clicks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Polls until `check` answers something truthy (the script works asynchronously). */
async function until<T>(what: string, check: () => Promise<T | false | null | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const webkit = findWebKit();

describe.skipIf(!webkit)(`svc.js in WebKitGTK${webkit ? '' : ` (skipped: ${NO_WEBKIT_MESSAGE})`}`, () => {
  let browser: WebKit;
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
    browser = await startWebKit(webkit!);
    console.log(`WebKitGTK ${browser.version}`);
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** Lands on the site at `host` with ?ref=…; answers the referral cookies once the script wrote them. */
  async function land(host: string, ref: string): Promise<WebDriverCookie[]> {
    await browser.goto(`http://${host}:${site.port}/pricing?ref=${ref}`);
    return until(`the referral cookies on ${host}`, async () => {
      const cookies = (await browser.cookies()).filter((c) => c.name.startsWith('svc_'));
      return cookies.length === 2 && cookies;
    });
  }

  it('a page on 127.0.0.1: the referral cookies are host-only, and the click names no cookie domain', async () => {
    const cookies = await land('127.0.0.1', 'alice');
    expect(cookies.map((c) => `${c.name} ${c.domain} ${c.path}`).sort()).toEqual(['svc_data 127.0.0.1 /', 'svc_ref 127.0.0.1 /']);
    const click = site.clicks.at(-1);
    expect(click).toMatchObject({ param: 'ref', value: 'alice' });
    expect(click).not.toHaveProperty('cookie_domain');
    expect(await browser.execute('return window.svc_data')).toEqual(DATA);
  });

  it('a page on localhost (a single label): host-only too', async () => {
    const cookies = await land('localhost', 'bob');
    expect(cookies.map((c) => `${c.name} ${c.domain}`).sort()).toEqual(['svc_data localhost', 'svc_ref localhost']);
    expect(site.clicks.at(-1)).toMatchObject({ value: 'bob' });
    expect(site.clicks.at(-1)).not.toHaveProperty('cookie_domain');
  });
});
