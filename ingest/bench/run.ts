import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { GZIP_BUDGET_BYTES } from '../../script/src/budget.js';
import { compiled, DIST } from '../build.mjs';
import { type ApiClient, apiClient } from '../client/api-client.js';
import { runFaultBench } from './faults/report.js';
import { type LoadResult, load, settled, timeGets } from './load.js';
import { payoutFigures } from './payout-figures.js';
import { entryArgs, ROOT, type Service, startNode, tsxArgs } from './processes.js';
import { riskFigures, riskReport } from './risk-figures.js';
import { scriptFigures } from './script-figures.js';
import { type ListScale, seedLists } from './seed-lists.js';
import { webhookFigures } from './webhook-figures.js';

/**
 * `npm run bench [-- --embedded] [-- --json out.json] [-- --profile DIR]`: starts ingest (PostgreSQL + Redis, or
 * the embedded defaults) and a bare Express baseline as processes of their own, drives them
 * with autocannon from this process, and prints a Markdown table (see ingest/bench/README.md).
 * `npm run bench -- --faults [--only-webhooks]` runs the fault scenarios instead (faults/report.ts);
 * `npm run bench -- --risk [--rounds N]` the fraud and risk rules' cost (risk-figures.ts).
 */
const { values: args } = parseArgs({
  options: {
    embedded: { type: 'boolean', default: false },
    faults: { type: 'boolean', default: false },
    /** With --faults: only the webhook takeover scenario. */
    'only-webhooks': { type: 'boolean', default: false },
    json: { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    'list-clicks': { type: 'string', default: '1000000' },
    'skip-lists': { type: 'boolean', default: false },
    'skip-script': { type: 'boolean', default: false },
    'skip-payouts': { type: 'boolean', default: false },
    'payout-commissions': { type: 'string', default: '1000000' },
    /** The fraud and risk rules' cost instead (risk-figures.ts): every rule on against every rule off. */
    risk: { type: 'boolean', default: false },
    /** With --risk: off/on rounds (ABBA order), and each click run's seconds (default: the job's interval and 5, 35). */
    rounds: { type: 'string', default: '2' },
    'click-duration': { type: 'string' },
    /** With --risk: links of each partner, so clicks per browser in a run. */
    links: { type: 'string', default: '32' },
    /** With --risk: how long the service's click check may run on after a click run before it is cancelled. */
    'drain-seconds': { type: 'string', default: '240' },
    /** With --risk: clicks a second of the steady-state program (an hour of them is seeded). */
    'steady-pace': { type: 'string', default: '100' },
    /** Writes a V8 CPU profile of ingest into this directory when it stops. */
    profile: { type: 'string' },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

interface Row {
  figure: string;
  value: string;
  ratio?: number;
  target?: string;
  pass?: boolean;
}
const rows: Row[] = [];
const figures: Record<string, unknown> = {
  started_at: new Date().toISOString(),
  storage: args.embedded ? 'embedded' : 'postgres+redis',
  duration,
  connections,
};

interface BenchKeys {
  api_key: string;
  public_key: string;
  program_id: string;
  organization_id: string;
  owner_email: string;
  owner_password: string;
}

/**
 * The storage, the service built (`npm run build`) and started as its own process (the compiled
 * entry when the build is current), with an organization and program made by `svc init`. Each
 * cleanup is added to `cleanups`, the service's first.
 */
async function startService(
  cleanups: (() => Promise<void>)[],
): Promise<{ storage: Awaited<ReturnType<typeof openStorage>>; env: Record<string, string>; keys: BenchKeys; ingest: Service }> {
  const storage = await openStorage();
  cleanups.push(storage.close);
  const env = {
    ...storage.env,
    LOG_LEVEL: 'warn',
    SVC_API_RATE_LIMIT: '1000000',
    SVC_TRACK_RATE_LIMIT: '1000000',
    SVC_APPROVAL_INTERVAL_SECONDS: '3600',
    // The webhook figures deliver to a receiver on this machine.
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
  };
  // Built again while a source file changed under the build (others at work in the same tree).
  for (let attempt = 0; attempt < 3; attempt++) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
    if (compiled('main')) break;
  }
  const keys = JSON.parse(
    execFileSync(
      process.execPath,
      [...entryArgs('cli'), 'init', '--org', 'Bench', '--program', 'Bench', '--email', 'bench@owner.example', '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      },
    ),
  ) as BenchKeys;

  const profile = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args.profile)}`] : [];
  // The compiled service, even when a source changed since this build (its time is then recorded).
  const current = compiled('main') !== null;
  const entry = current ? entryArgs('main') : [path.join(DIST, 'main.mjs')];
  figures.service = `${path.relative(ROOT, entry.at(-1)!)}${current ? '' : `, built ${fs.readFileSync(path.join(DIST, '.built'), 'utf8').trim()} (a source changed since)`}`;
  const ingest = await startNode(entry, env, (port) => `http://127.0.0.1:${port}/healthz`, profile);
  cleanups.unshift(ingest.stop);
  return { storage, env, keys, ingest };
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { storage, keys, ingest } = await startService(cleanups);
    const baseline = await startNode(tsxArgs('ingest/bench/baseline.ts'), {}, (port) => `http://127.0.0.1:${port}/echo`);
    cleanups.unshift(baseline.stop);
    // Set-up writes carry an Idempotency-Key, as a careful client's do: the loads after them
    // then measure a process that has served keyed requests (ingest/bench/README.md).
    const api = apiClient(ingest.url, keys.api_key, { idempotencyKeys: true });

    const partner = (
      await api.post('/v1/partners', {
        program_id: keys.program_id,
        first_name: 'Bench',
        last_name: 'Partner',
        email: 'bench@partners.example',
      })
    ).data[0];
    const value = `bench${randomBytes(3).toString('hex')}`;
    await api.post('/v1/links', { partner_id: partner.id, param: 'ref', value });

    const clickBody = () => JSON.stringify({ key: keys.public_key, param: 'ref', value, page: `https://acme.example/?ref=${value}` });
    if (args.embedded) await embeddedMemoryRows(ingest, clickBody);
    // The clicks stored before the loads below (the memory figures' 10,000 on --embedded).
    const beforeTrack = await settled(() => clicksOf(api, partner.id));

    // 1. The baseline, then the two click paths, each with the same connections and duration.
    const base = await load({
      url: `${baseline.url}/echo`,
      connections,
      duration,
      headers: { 'content-type': 'text/plain' },
      body: clickBody,
    });
    figures.baseline = base;
    rows.push({ figure: 'baseline: bare Express 5 JSON echo', value: `${base.rps} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms` });

    // Every request is a new visitor (its own User-Agent), so none is answered from the repeat-click memory.
    const track = await load({
      url: `${ingest.url}/v1/track/click`,
      connections,
      duration,
      headers: { 'content-type': 'text/plain' },
      body: clickBody,
      vary: (n) => ({ 'user-agent': `${CHROME_UA} visitor/${n}` }),
    });
    const afterTrack = await settled(() => clicksOf(api, partner.id));
    throughputRow('POST /v1/track/click (script)', track, base, 0.5, {
      durable: everyAnswerStored(afterTrack - beforeTrack, track),
      rows: afterTrack - beforeTrack,
    });

    const apiClicks = await load({
      url: `${ingest.url}/v1/clicks`,
      connections,
      duration,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.api_key}` },
      body: () => JSON.stringify({ param: 'ref', value, program_id: keys.program_id, page: `https://acme.example/?ref=${value}` }),
    });
    const afterApi = await settled(() => clicksOf(api, partner.id));
    throughputRow('POST /v1/clicks (method 2)', apiClicks, base, 0.5, {
      durable: everyAnswerStored(afterApi - afterTrack, apiClicks),
      rows: afterApi - afterTrack,
    });

    const rss = ingest.peakRssMb();
    figures.peak_rss_mb = rss;
    rows.push({ figure: 'ingest peak RSS under the click load', value: `${rss} MB`, target: '< 300 MB', pass: rss < 300 });

    // 2. Transactions on the default flow (20 %), spread over customers.
    const customers: string[] = [];
    for (let i = 0; i < 64; i++) {
      customers.push(
        (await api.post('/v1/customers', { partner_id: partner.id, email: `buyer${i}@shop.example`, status: 'active' })).data[0].id,
      );
    }
    const run = randomBytes(3).toString('hex');
    const transactions = await load({
      url: `${ingest.url}/v1/transactions`,
      connections,
      duration,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.api_key}` },
      body: (n) => JSON.stringify({ amount: 4900, customer_id: customers[n % customers.length], charge_id: `ch_${run}_${n}` }),
    });
    // Filtered by partner, so these are counted rows, not the list counters.
    const recorded = await settled(
      async () => (await api.get(`/v1/transactions?program_id=${keys.program_id}&partner_id=${partner.id}&limit=1`)).total_count,
    );
    const commissions = (await api.get(`/v1/commissions?program_id=${keys.program_id}&partner_id=${partner.id}&limit=1`)).total_count;
    throughputRow('POST /v1/transactions (default flow)', transactions, base, 0.25, {
      transactions: recorded,
      commissions,
      equal: commissions === recorded && everyAnswerStored(recorded, transactions),
    });

    // 3. The same payments with a webhook endpoint subscribed to every event.
    const hooks = await webhookFigures({
      api,
      ingestUrl: ingest.url,
      apiKey: keys.api_key,
      customers,
      connections,
      duration,
      without: transactions,
    });
    figures.webhooks = hooks;
    rows.push({
      figure: 'POST /v1/transactions with a webhook endpoint (every event)',
      value: `${hooks.payments.rps} req/s, p50 ${hooks.payments.p50} ms, p99 ${hooks.payments.p99} ms; ${hooks.payments.failed} failed`,
      ratio: hooks.ratio,
      target: 'against the same load without endpoints',
    });
    rows.push({
      figure: 'webhook delivery to a local receiver',
      value: `${hooks.eventsPerSecond} events/s; ${hooks.delivered} of ${hooks.events} events delivered, signatures verified ${hooks.allVerified}; the last ${hooks.drainSeconds} s after the load`,
      pass: hooks.delivered >= hooks.events && hooks.allVerified && hooks.payments.failed === 0,
    });

    // 4. Payout generation at two scales (PostgreSQL: seeded with plain SQL).
    if (args['skip-payouts'] || args.embedded) {
      rows.push({ figure: 'payout generation', value: args.embedded ? 'PostgreSQL only (bulk seeding)' : 'skipped' });
    } else {
      const payouts = await payoutFigures(storage.databaseUrl!, api, keys.api_key, keys.organization_id, [
        { partners: 1_000, commissions: 100_000 },
        { partners: 10_000, commissions: Number(args['payout-commissions']) },
      ]);
      figures.payouts = payouts;
      const [small, big] = payouts;
      rows.push({
        figure: 'payout generation (one per partner)',
        value: payouts
          .map(
            (p) =>
              `${p.partners / 1000} k partners, ${p.commissions / 1000} k commissions: ${p.seconds} s, ${p.payouts} payouts, ${p.statements} SQL statements; balances (100 a page) p50 ${p.balances.p50} ms`,
          )
          .join('; '),
        target: 'statements do not grow with partners',
        pass: big.statements === small.statements && big.payouts === big.partners,
      });
    }

    // 5. Lists at two scales.
    if (args['skip-lists'] || args.embedded) {
      rows.push({ figure: 'lists at 10 k and 1 M clicks', value: args.embedded ? 'PostgreSQL only (bulk seeding)' : 'skipped' });
    } else {
      const dashboardCookie = await signIn(ingest.url, keys.owner_email, keys.owner_password);
      await listFigures(storage.databaseUrl!, api, keys.api_key, keys.organization_id, Number(args['list-clicks']), dashboardCookie);
    }

    // 6. The script.
    if (!args['skip-script']) {
      const script = await scriptFigures(ingest.url, keys.public_key, value, CHROME_UA);
      figures.script = script;
      rows.push({
        figure: 'svc.js minified + gzip',
        value: `${script.gzipBytes} B (raw ${script.rawBytes} B, brotli ${script.brotliBytes} B)`,
        target: `≤ ${GZIP_BUDGET_BYTES} B`,
        pass: script.gzipBytes <= GZIP_BUDGET_BYTES,
      });
      rows.push({
        figure: 'navigation start → window.svc_data (Chromium, median)',
        value: `${script.medianMs} ms over ${script.runs} landings`,
      });
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
  report();
}

/**
 * A count once the requests still in flight when the load generator stopped have landed: the
 * same answer twice, 300 ms apart.
 */
/**
 * What `npm start` (the embedded defaults) needs on a small server: its resident memory idle, a
 * few seconds after start, and at most while it records 10,000 clicks (sampled every 100 ms, so
 * start-up's own peak is not counted). The targets are issue-level (ingest/bench/README.md#memory).
 */
async function embeddedMemoryRows(ingest: Service, clickBody: () => string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idle = ingest.rssMb();
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, ingest.rssMb());
  }, 100);
  const clicks = await load({
    url: `${ingest.url}/v1/track/click`,
    connections,
    amount: 10_000,
    headers: { 'content-type': 'text/plain' },
    body: clickBody,
    vary: (n) => ({ 'user-agent': `${CHROME_UA} memory/${n}` }),
  });
  clearInterval(sampler);
  peak = Math.max(peak, ingest.rssMb());
  figures.embedded_rss_mb = { idle, through_10k_clicks: peak, clicks_ok: clicks.ok };
  rows.push({ figure: 'embedded RSS, idle after start', value: `${idle} MB`, target: '≤ 200 MB', pass: idle <= 200 });
  rows.push({
    figure: 'embedded RSS through 10,000 clicks',
    value: `${peak} MB (${clicks.ok} answered 2xx)`,
    target: '≤ 300 MB',
    pass: peak <= 300,
  });
}

/**
 * Every answered request is in SQL. autocannon stops counting at the end of the run while up to
 * `connections` requests are still in flight; those are stored too, so the rows may exceed the
 * answers by at most that many.
 */
function everyAnswerStored(rows: number, r: LoadResult): boolean {
  return rows >= r.ok && rows <= r.ok + connections;
}

function throughputRow(figure: string, r: LoadResult, base: LoadResult, target: number, check: Record<string, unknown>): void {
  const ratio = Number((r.rps / base.rps).toFixed(2));
  const ok = Object.values(check).every((v) => v !== false) && r.failed === 0;
  figures[figure] = { ...r, ratio, ...check };
  rows.push({
    figure,
    value: `${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; ${r.ok} ok, ${r.failed} failed; ${Object.entries(check)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    ratio,
    target: `≥ ${target}× baseline${figure.includes('click') ? ', p99 < 50 ms' : ''}`,
    pass: ok && ratio >= target && (!figure.includes('click') || r.p99 < 50),
  });
}

/** The partner's clicks, from the counters kept in the same SQL transaction as each click. */
async function clicksOf(api: ApiClient, partnerId: string): Promise<number> {
  return (await api.get(`/v1/partners/${partnerId}?include[]=stats`)).data.stats!.total_clicks;
}

async function listFigures(
  databaseUrl: string,
  api: ApiClient,
  secretKey: string,
  organizationId: string,
  bigClicks: number,
  dashboardCookie: string,
): Promise<void> {
  const program = (await api.post('/v1/programs', { name: 'Lists' })).data[0];
  const today = new Date().toISOString().slice(0, 10);
  const ninetyDaysAgo = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
  // The dashboard's overview (figures of the period and the one before, top partners, recent
  // activity, the page) and the stats API it shares its figures with
  // (ingest/docs/dashboard.md#stats-api).
  const dashboardQueries: Record<string, { path: string; headers: Record<string, string> }> = {
    'dashboard overview page, 30 days': { path: `/dashboard/programs/${program.id}?days=30`, headers: { cookie: dashboardCookie } },
    'dashboard overview page, 90 days': { path: `/dashboard/programs/${program.id}?days=90`, headers: { cookie: dashboardCookie } },
    'GET /v1/programs/:id/stats, 90 days': {
      path: `/v1/programs/${program.id}/stats?start=${ninetyDaysAgo}&end=${today}`,
      headers: { authorization: `Bearer ${secretKey}` },
    },
  };
  const dashboard: Record<string, { p50: number; p99: number }>[] = [];
  const scales: ListScale[] = [
    { clicks: 10_000, customers: 100_000, transactions: 50_000 },
    { clicks: bigClicks, customers: 100_000, transactions: 50_000 },
  ];
  const seeded = await seedLists(databaseUrl, api, organizationId, program.id, scales[0]);
  const results: Record<string, { p50: number; p99: number }>[] = [];
  try {
    for (const [i, scale] of scales.entries()) {
      if (i > 0) await seeded.growClicks(scale.clicks);
      const headers = { authorization: `Bearer ${secretKey}` };
      const deep = await seeded.customerAt(Math.floor(scale.customers / 2));
      const queries: Record<string, string> = {
        'partners with include[]=stats': `/v1/partners?program_id=${program.id}&include[]=stats`,
        // One customer's e-mail, as a support search would find it; and a fragment shared by 11 % of them.
        'customers with search (one match)': `/v1/customers?program_id=${program.id}&search=user4242@`,
        'customers with search (11 % match)': `/v1/customers?program_id=${program.id}&search=shop7`,
        'commissions with expand[]=partner': `/v1/commissions?program_id=${program.id}&expand[]=partner`,
        'customers deep in a cursor walk': `/v1/customers?program_id=${program.id}&starting_after=${deep}`,
      };
      const measured: Record<string, { p50: number; p99: number }> = {};
      for (const [name, query] of Object.entries(queries)) {
        await timeGets(api.baseUrl + query, headers, 5);
        measured[name] = await timeGets(api.baseUrl + query, headers, 60);
      }
      results.push(measured);
      const pages: Record<string, { p50: number; p99: number }> = {};
      for (const [name, query] of Object.entries(dashboardQueries)) {
        await timeGets(api.baseUrl + query.path, query.headers, 5);
        pages[name] = await timeGets(api.baseUrl + query.path, query.headers, 60);
      }
      dashboard.push(pages);
    }
  } finally {
    await seeded.close();
  }
  figures.lists = { scales, results };
  figures.dashboard = dashboard;
  for (const name of Object.keys(dashboard[0])) {
    const [small, big] = [dashboard[0][name], dashboard[1][name]];
    rows.push({
      figure: name,
      value: `10 k clicks p50 ${small.p50} / p99 ${small.p99} ms; ${Math.round(bigClicks / 1000)} k clicks p50 ${big.p50} / p99 ${big.p99} ms`,
      ratio: Number((big.p50 / small.p50).toFixed(2)),
      target: 'p50 < 100 ms at 1 M clicks',
      pass: big.p50 < 100,
    });
  }
  for (const name of Object.keys(results[0])) {
    const [small, big] = [results[0][name], results[1][name]];
    const growth = Number((big.p50 / small.p50).toFixed(2));
    rows.push({
      figure: `list: ${name}`,
      value: `10 k clicks p50 ${small.p50} / p99 ${small.p99} ms; ${Math.round(bigClicks / 1000)} k clicks p50 ${big.p50} / p99 ${big.p99} ms`,
      ratio: growth,
      target: 'growth ≤ 2×, p50 < 20 ms',
      pass: growth <= 2 && big.p50 < 20,
    });
  }
}

/** A dashboard session cookie for the bench's owner (the sign-in form, as a browser posts it). */
async function signIn(ingestUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${ingestUrl}/dashboard/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }),
    redirect: 'manual',
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`dashboard sign-in answered ${res.status}`);
  return cookie;
}

async function openStorage(): Promise<{ env: Record<string, string>; databaseUrl?: string; close: () => Promise<void> }> {
  if (args.embedded) {
    // The embedded defaults, whatever this shell points at: ingest and the CLI inherit process.env.
    delete process.env.DATABASE_URL;
    delete process.env.REDIS_URL;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
    return {
      env: { SVC_DATA_DIR: dir },
      close: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const name = `svc_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), REDIS_URL: redisUrl, SVC_DATA_DIR: 'memory://' },
    databaseUrl: url.toString(),
    close: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * `--risk`: the service started as for the main figures (PostgreSQL + Redis, compiled), the
 * baseline's pace once for the record, then every rule on against every rule off
 * (risk-figures.ts), printed as Markdown.
 */
async function riskMain(): Promise<void> {
  if (args.embedded) throw new Error('--risk runs on PostgreSQL + Redis only (it reads and times SQL from this process)');
  const cleanups: (() => Promise<void>)[] = [];
  // An interrupted run (it is long) still stops the service and drops its database.
  const interrupted = async () => {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let text = '';
  try {
    const { storage, keys, ingest } = await startService(cleanups);
    const baseline = await startNode(tsxArgs('ingest/bench/baseline.ts'), {}, (port) => `http://127.0.0.1:${port}/echo`);
    cleanups.unshift(baseline.stop);
    const base = await load({
      url: `${baseline.url}/echo`,
      connections,
      duration,
      headers: { 'content-type': 'text/plain' },
      body: () => JSON.stringify({ key: keys.public_key, param: 'ref', value: 'echo', page: 'https://acme.example/?ref=echo' }),
    });
    await baseline.stop();
    figures.baseline = base;
    const loadBefore = os.loadavg().map((l) => Number(l.toFixed(2)));
    const riskIntervalSeconds = Number(process.env.SVC_RISK_INTERVAL_SECONDS || 30);
    // Longer than the job's interval, so that every click run holds at least one of its runs.
    const clickSeconds = Number(args['click-duration'] ?? Math.max(duration, riskIntervalSeconds + 5));
    const risk = await riskFigures({
      api: apiClient(ingest.url, keys.api_key, { idempotencyKeys: true }),
      ingestUrl: ingest.url,
      apiKey: keys.api_key,
      databaseUrl: storage.databaseUrl!,
      organizationId: keys.organization_id,
      ingestPid: ingest.child.pid!,
      otherClicks: Number(args['list-clicks']),
      steadyPace: Number(args['steady-pace']),
      connections,
      clickSeconds,
      seconds: duration,
      rounds: Number(args.rounds),
      links: Number(args.links),
      drainSeconds: Number(args['drain-seconds']),
      userAgent: CHROME_UA,
      riskIntervalSeconds,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    figures.risk = risk;
    figures.load_average = { before: loadBefore, after: os.loadavg().map((l) => Number(l.toFixed(2))) };
    figures.peak_rss_mb = ingest.peakRssMb();
    text = [
      `svc benchmark, fraud and risk rules — ${figures.storage}, service ${figures.service}, ${connections} connections, clicks ${clickSeconds} s and the other paths ${duration} s per run, ${args.rounds} rounds (off, on, on, off…), job interval ${riskIntervalSeconds} s, ${os.cpus().length} CPUs, Node ${process.version}`,
      `baseline (bare Express 5 echo, before the rounds): ${base.rps} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms; ingest peak RSS ${figures.peak_rss_mb} MB; load average (1, 5, 15 min) ${loadBefore.join(', ')} before the rounds, ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} after`,
      '',
      riskReport(risk),
    ].join('\n');
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
  process.stdout.write(`${text}\n`);
  if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(figures, null, 2)}\n`);
}

function report(): void {
  const lines = [
    `svc benchmark — ${figures.storage}, ${connections} connections, ${duration} s per run, ${os.cpus().length} CPUs, Node ${process.version}`,
    '',
    '| figure | result | ratio | target | met |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.figure} | ${r.value} | ${r.ratio ?? ''} | ${r.target ?? ''} | ${r.pass === undefined ? '' : r.pass ? 'yes' : 'no'} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (args.json) fs.writeFileSync(args.json, `${JSON.stringify({ ...figures, rows }, null, 2)}\n`);
}

const run = args.faults
  ? () =>
      runFaultBench({
        adminUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
        json: args.json,
        onlyWebhooks: args['only-webhooks'],
      })
  : args.risk
    ? riskMain
    : main;
run().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
