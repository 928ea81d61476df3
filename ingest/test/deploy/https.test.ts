import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { type Browser, chromium } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../../../e2e/support/chromium.js';
import { createThrowawayDatabase, type IngestProcess, outputOf, startIngest, type ThrowawayDatabase } from '../../bench/faults/fleet.js';
import { type PrivateRedis, startPrivateRedis } from '../../bench/faults/private-servers.js';
import { entryArgs, freePort, ROOT } from '../../bench/processes.js';
import { SCRIPT_FILE } from '../../src/resources/tracking/script-asset.js';
import { readEml } from '../support/eml.js';
import { type RunningCaddy, startCaddy } from './caddy.js';
import { ensureProxies, missingMessage } from './ensure-proxies.js';

/**
 * The reference deployment (ingest/deploy/, ingest/docs/production.md) on this machine: Caddy with
 * the repository's Caddyfile terminating TLS in front of two real ingest processes on PostgreSQL
 * (a throwaway database) and a private redis-server, with NODE_ENV=production, SVC_PUBLIC_URL on
 * the proxy's https address and SVC_TRUST_PROXY on the proxy's. Run with the fault tests
 * (vitest.faults.config.ts): it needs DATABASE_URL, and caddy, which it installs when missing.
 */

const adminUrl = process.env.DATABASE_URL;
const TRACK_LIMIT = 3;

/** What svc.js puts on the merchant's window (script/svc.d.ts). */
interface ScriptWindow {
  svc?: { signup(email: string): Promise<{ customer_id: string; partner_id: string }> };
  svc_data?: { click_id: string };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

describe.skipIf(!adminUrl)('svc behind Caddy over https', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-deploy-'));
  const outbox = path.join(dir, 'outbox');
  let db: ThrowawayDatabase;
  let redis: PrivateRedis;
  let ingest: IngestProcess[] = [];
  let caddy: RunningCaddy;
  let nginx: string | undefined;
  /** bootstrap.json, written by the process that bootstrapped the empty database. */
  let keys: { api_key: string; public_key: string; program_id: string; owner_email: string; owner_password: string };

  /** A request through the proxy, from a client address of its own (127.0.0.1 unless said). */
  function request(
    method: string,
    url: string,
    options: { headers?: Record<string, string>; body?: string; from?: string; agent?: https.Agent } = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(url, caddy.origin),
        { method, headers: options.headers, ca: caddy.rootCa, localAddress: options.from, agent: options.agent ?? false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString() });
          });
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  }
  const api = async (method: string, url: string, body?: object) => {
    const answer = await request(method, url, {
      headers: { Authorization: `Bearer ${keys.api_key}`, 'Content-Type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    expect(answer.status, answer.text).toBeLessThan(300);
    const { data } = JSON.parse(answer.text);
    return Array.isArray(data) ? data[0] : data;
  };
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: '' };

  /** Runs `action` and answers the sign-in link in the one new e-mail to `to` in the outbox. */
  async function signInLinkTo(to: string, action: () => Promise<unknown>): Promise<string> {
    const before = new Set(fs.existsSync(outbox) ? fs.readdirSync(outbox) : []);
    await action();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const fresh = (fs.existsSync(outbox) ? fs.readdirSync(outbox) : [])
        .filter((f) => f.endsWith('.eml') && !before.has(f))
        .map((f) => fs.readFileSync(path.join(outbox, f), 'utf8'));
      const emails = fresh.map(readEml).filter((m) => m.complete && m.header('To') === to);
      if (emails.length > 0) {
        expect(emails).toHaveLength(1);
        // No link to the processes' own plain-http addresses, anywhere in the file.
        expect(fresh.join('\n')).not.toContain('http://127.0.0.1');
        return /https:\/\/\S+\/sign-in\/[0-9A-Za-z]+/.exec(emails[0].text)![0];
      }
      if (Date.now() > deadline) throw new Error(`no e-mail to ${to} in ${outbox} within 15 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    const { caddy: caddyPath, nginx: nginxPath } = ensureProxies();
    if (!caddyPath) throw new Error(missingMessage('caddy'));
    nginx = nginxPath;
    if (!fs.existsSync(SCRIPT_FILE)) throw new Error(`${SCRIPT_FILE} is missing: run npm run build first`);
    [db, redis] = await Promise.all([createThrowawayDatabase(adminUrl!), startPrivateRedis()]);
    const [httpsPort, httpPort] = [await freePort(), await freePort()];
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      SVC_PUBLIC_URL: `https://127.0.0.1:${httpsPort}`,
      SVC_TRUST_PROXY: '127.0.0.1',
      SVC_TRACK_RATE_LIMIT: String(TRACK_LIMIT),
      SVC_DATA_DIR: path.join(dir, 'data'),
      SVC_OUTBOX_DIR: outbox,
    };
    formHeaders.Origin = env.SVC_PUBLIC_URL;
    // Both start on the empty database at once, as the two systemd units do: one migrates and
    // bootstraps, writing the first keys and owner to bootstrap.json, the other waits its turn.
    ingest = await Promise.all([startIngest(env), startIngest(env)]);
    keys = JSON.parse(fs.readFileSync(path.join(env.SVC_DATA_DIR, 'bootstrap.json'), 'utf8'));
    caddy = await startCaddy({
      caddy: caddyPath,
      dir,
      httpsPort,
      httpPort,
      upstreams: ingest.map((p) => new URL(p.url).host),
    });
  });

  afterAll(async () => {
    await caddy?.stop();
    await Promise.all(ingest.map((p) => p.kill()));
    await Promise.allSettled([db?.drop(), redis?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a merchant page on another origin: a visitor lands with ?ref=, signs up, and the API shows the click and the lead', async () => {
    const found = findChromium();
    if (!found) throw new Error(NO_CHROMIUM_MESSAGE);
    const partner = await api('POST', '/v1/partners', {
      program_id: keys.program_id,
      first_name: 'Alice',
      last_name: 'Tls',
      email: 'alice@example.com',
    });
    await api('POST', '/v1/links', { param: 'ref', value: 'alice-tls', partner_id: partner.id });

    const merchant = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><title>Acme</title><script async src="${caddy.origin}/svc.js" data-key="${keys.public_key}"></script>`);
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    const merchantPort = (merchant.address() as { port: number }).port;
    // Caddy's CA is trusted by its keys alone: certificate errors are ignored for chains signed by it, not elsewhere.
    const browser: Browser = await chromium.launch({
      executablePath: found.path,
      args: [`--ignore-certificate-errors-spki-list=${caddy.spkiHashes.join(',')}`],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${merchantPort}/?ref=alice-tls`);
      await page.waitForFunction(() => {
        const w = window as unknown as ScriptWindow;
        return typeof w.svc?.signup === 'function' && w.svc_data?.click_id;
      });
      const clickId = await page.evaluate(() => (window as unknown as ScriptWindow).svc_data!.click_id);
      const signup = await page.evaluate(() => (window as unknown as ScriptWindow).svc!.signup('buyer@shop.example'));
      expect(signup).toMatchObject({ partner_id: partner.id });

      const customers = await request('GET', `/v1/customers?program_id=${keys.program_id}&search=buyer@shop.example`, {
        headers: { Authorization: `Bearer ${keys.api_key}` },
      });
      expect(JSON.parse(customers.text).data.data).toMatchObject([
        { email: 'buyer@shop.example', partner_id: partner.id, click_id: clickId },
      ]);
      const withStats = await api('GET', `/v1/partners/${partner.id}?include[]=stats`);
      expect(withStats.stats.total_clicks).toBe(1);
    } finally {
      await browser.close();
      merchant.close();
    }
  });

  it('limits each visitor by the address Caddy saw: one is refused past SVC_TRACK_RATE_LIMIT while another is served', async () => {
    // An unknown link: a 404 is an answer served, a 429 a refusal. The first visitor also claims
    // other addresses in X-Forwarded-For, which Caddy replaces with the one it saw.
    const body = JSON.stringify({ key: keys.public_key, param: 'ref', value: 'nobody' });
    const click = (from: string, headers: Record<string, string> = {}) =>
      request('POST', '/v1/track/click', { from, body, headers: { 'Content-Type': 'application/json', ...headers } });
    const burst = await Promise.all(
      Array.from({ length: 4 * TRACK_LIMIT }, (_, i) => click('127.0.0.2', { 'X-Forwarded-For': `203.0.113.${i}` })),
    );
    const statuses = burst.map((a) => a.status);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 429 && s !== 404)).toEqual([]);
    expect((await click('127.0.0.3')).status).toBe(404);
  });

  it('signs in to the dashboard and the portal with __Host- and __Secure- cookies marked Secure, under HSTS', async () => {
    const dashboard = await request('POST', '/dashboard/sign-in', {
      headers: formHeaders,
      body: form({ email: keys.owner_email, password: keys.owner_password }),
    });
    expect(dashboard.status, dashboard.text).toBe(303);
    expect(dashboard.headers['strict-transport-security']).toBe('max-age=31536000');
    const session = dashboard.headers['set-cookie']?.find((c) => c.startsWith('__Host-svc_session='));
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; Path=\/(;|$)/);
    expect(session).not.toMatch(/; Domain=/i);

    // The Stripe webhook URL the dashboard shows is on the public address.
    const stripe = await api('PUT', `/v1/programs/${keys.program_id}/integrations/stripe`, { webhook_secret: 'whsec_deploytestsecret' });
    const webhookUrl = `${caddy.origin}/v1/integrations/stripe/webhook/${keys.program_id}`;
    expect(stripe.webhook_url).toBe(webhookUrl);
    const integrations = await request('GET', `/dashboard/integrations/stripe/${keys.program_id}`, {
      headers: { Cookie: session!.split(';')[0] },
    });
    expect(integrations.status).toBe(200);
    expect(integrations.text).toContain(`<code id="stripe-webhook-url">${webhookUrl}</code>`);

    const program = await api('GET', `/v1/programs/${keys.program_id}`);
    await api('POST', '/v1/partners', { program_id: keys.program_id, first_name: 'Pat', last_name: 'Portal', email: 'pat@example.com' });
    const link = await signInLinkTo('pat@example.com', () =>
      request('POST', `/p/${program.subdomain}/sign-in`, { headers: formHeaders, body: form({ email: 'pat@example.com' }) }),
    );
    expect(link.startsWith(`${caddy.origin}/p/${program.subdomain}/sign-in/`)).toBe(true);
    const portal = await request('POST', link, { headers: formHeaders });
    expect(portal.status, portal.text).toBe(303);
    expect(portal.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(portal.headers['set-cookie']?.find((c) => c.startsWith('__Secure-svc_portal='))).toMatch(/; Secure/);
  });

  it('serves svc.js compressed through Caddy, as svc compressed it, and compresses JSON itself', async () => {
    const built = fs.readFileSync(SCRIPT_FILE);
    const brotli = await request('GET', '/svc.js', { headers: { 'Accept-Encoding': 'zstd, br, gzip' } });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(brotli.body)).toEqual(built);
    const gzip = await request('GET', '/svc.js', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.body)).toEqual(built);
    const openApi = await request('GET', '/v1/openapi.json', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(openApi.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(openApi.body).toString()).openapi).toMatch(/^3\./);
  });

  it('stops a process gracefully under traffic (exit 0 well before its 10 s deadline) while the other serves', async () => {
    // Requests keep flowing while the process stops: Caddy's keep-alive connections to it stay
    // busy, which is what kept a stop waiting (ingest/src/http/graceful-close.ts).
    const agent = new https.Agent({ keepAlive: true, ca: caddy.rootCa });
    const statuses: number[] = [];
    let stopped = false;
    const keepAsking = async () => {
      while (!stopped) statuses.push((await request('GET', '/healthz', { agent })).status);
    };
    const traffic = Array.from({ length: 4 }, keepAsking);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = Date.now();
    await ingest[0].kill('SIGTERM');
    const stopMs = Date.now() - stopping;
    stopped = true;
    await Promise.all(traffic);
    agent.destroy();
    expect(await ingest[0].exited, ingest[0].output()).toBe(0);
    expect(stopMs).toBeLessThan(9_000);
    expect(statuses.length).toBeGreaterThan(4);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('systemd-analyze verify finds nothing to say about svc@.service', () => {
    const verified = spawnSync('systemd-analyze', ['verify', path.join(ROOT, 'ingest/deploy/svc@.service')], { encoding: 'utf8' });
    if (verified.error) {
      console.warn(`skipped: no systemd-analyze (${verified.error.message}); install Debian's systemd to check the unit`);
      return;
    }
    expect(`${verified.stdout}${verified.stderr}`).toBe('');
    expect(verified.status).toBe(0);
  });

  it('nginx -t accepts the nginx server block', () => {
    if (!nginx) {
      console.warn(`skipped: ${missingMessage('nginx')}`);
      return;
    }
    // The block as shipped, with Caddy's certificate for the one it names (nginx -t reads it).
    const conf = fs
      .readFileSync(path.join(ROOT, 'ingest/deploy/nginx-svc.conf'), 'utf8')
      .replace('/etc/letsencrypt/live/svc.example.com/fullchain.pem', caddy.certificate.cert)
      .replace('/etc/letsencrypt/live/svc.example.com/privkey.pem', caddy.certificate.key);
    const nginxDir = path.join(dir, 'nginx');
    fs.mkdirSync(nginxDir);
    fs.writeFileSync(path.join(nginxDir, 'svc.conf'), conf);
    fs.writeFileSync(
      path.join(nginxDir, 'nginx.conf'),
      `pid ${nginxDir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp { include ${nginxDir}/svc.conf; }\n`,
    );
    const checked = spawnSync(nginx, ['-t', '-q', '-p', nginxDir, '-e', 'stderr', '-c', path.join(nginxDir, 'nginx.conf')], {
      encoding: 'utf8',
    });
    expect(checked.status, checked.stderr).toBe(0);
  });
});

/**
 * What start-up refuses is checked rule by rule through loadConfig (ingest/test/unit/proxy-setup.test.ts);
 * here, that `npm start`'s process then stops with that one line and a non-zero status.
 */
describe('start-up refuses a configuration that cannot work', () => {
  it('exits with status 1 and one line naming the fix: https in production without SVC_TRUST_PROXY', async () => {
    const { DATABASE_URL, REDIS_URL, SVC_TRUST_PROXY, ...rest } = process.env;
    const child = spawn(process.execPath, entryArgs('main'), {
      cwd: ROOT,
      env: { ...rest, NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example.com', SVC_DATA_DIR: 'memory://', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = outputOf(child);
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
    expect(output().trim().split('\n'), output()).toEqual([
      expect.stringMatching(/^SVC_PUBLIC_URL is https.*set SVC_TRUST_PROXY to its address/),
    ]);
  });
});
