import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { findChromium } from './support/chromium.js';
import type { DemoOptions } from './support/fixtures.js';

/**
 * Real Chromium against the real demo site + ingest (`npm run demo`'s entry point), started by
 * Playwright: `embedded` (PGlite in memory + in-process store) always, `postgres` (its own demo
 * instance on PostgreSQL + Redis) when DATABASE_URL and REDIS_URL are set. svc.js is built once
 * by the global setup before any test runs.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const onPostgres = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const base = Number(process.env.E2E_PORT_BASE ?? 47300);
// Found (never installed) here: `npm test` / `npm run test:e2e` run support/ensure-chromium.ts first,
// which obtains one when none is present. Unset (null), Playwright looks for its own download.
const chromium = findChromium();

interface Instance {
  name: 'embedded' | 'postgres';
  ingestPort: number;
  demoPort: number;
  env: string;
}

const instances: Instance[] = [
  // Embedded defaults: whatever DATABASE_URL / REDIS_URL the shell has must not leak in.
  { name: 'embedded', ingestPort: base + 87, demoPort: base, env: 'env -u DATABASE_URL -u REDIS_URL SVC_DATA_DIR=memory://' },
  // PostgreSQL: a database of its own for this run, dropped when the server stops.
  ...(onPostgres
    ? [
        {
          name: 'postgres' as const,
          ingestPort: base + 88,
          demoPort: base + 1,
          env: 'node_modules/.bin/tsx e2e/support/with-throwaway-db.ts env',
        },
      ]
    : []),
];

/**
 * The pages (the dashboard, the portal, the API reference) run on the embedded instance only, what
 * `npm start` serves; their server side runs on PostgreSQL + Redis in the API suite
 * (ingest/test/dashboard, ingest/test/portal), so each page is driven on both setups once. The
 * journeys of the tracking path (the script, the click, the signup, Stripe), where the two
 * setups store and share state differently, run on both.
 */
const PAGE_SPECS = ['dashboard*.spec.ts', 'portal*.spec.ts', 'docs.spec.ts'];

const stateFile = (i: Instance) => path.join(os.tmpdir(), `svc-e2e-${i.name}-${i.demoPort}.json`);

// biome-ignore lint/complexity/noBannedTypes: Playwright's way to say the projects add no test fixtures
export default defineConfig<{}, DemoOptions>({
  testDir: '.',
  testMatch: '*.spec.ts',
  // Per port base, so that two runs side by side (E2E_PORT_BASE) do not clear each other's.
  outputDir: path.join(os.tmpdir(), `svc-e2e-results-${base}`),
  globalSetup: './support/global-setup.ts',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: 'list',
  // Room for a loaded machine (two workers, two demo instances and Chromium on two shared cores):
  // a passing test takes what it takes, only a failing one waits this long.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: Boolean(process.env.CI),
  use: {
    launchOptions: {
      executablePath: chromium?.path,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        // www.shop.test and app.shop.test: two subdomains of one site, for the shared cookie.
        '--host-resolver-rules=MAP *.shop.test 127.0.0.1',
        // Browsers send Sec-Fetch-Site (which same-site mode relies on) to trustworthy origins only:
        // https, or localhost. These plain-http demo origins stand in for an https site.
        `--unsafely-treat-insecure-origin-as-secure=${instances.flatMap((i) => ['www', 'app'].map((sub) => `http://${sub}.shop.test:${i.demoPort}`)).join(',')}`,
      ],
    },
    trace: 'off',
    screenshot: 'off',
  },
  projects: instances.map((i) => ({
    name: i.name,
    testIgnore: i.name === 'embedded' ? [] : PAGE_SPECS,
    use: { stateFile: stateFile(i), demoPort: i.demoPort, baseURL: `http://localhost:${i.demoPort}` },
  })),
  webServer: instances.map((i) => ({
    name: i.name,
    cwd: root,
    command: [
      `rm -f ${stateFile(i)} &&`,
      i.env,
      `INGEST_PORT=${i.ingestPort} DEMO_PORT=${i.demoPort} DEMO_HOST=localhost DEMO_MODE=proxy DEMO_STATE_FILE=${stateFile(i)}`,
      // Ingest's test hooks (POST /__test/clicks/:id/age), which the expiry test calls on ingest's URL.
      'SVC_TEST_HOOKS=1',
      // No SVC_BOT_FILTER: the demo turns the filter off itself (HeadlessChrome is a bot by its
      // User-Agent), so every scenario is also a check of `npm run demo` as QA drives it. The
      // limits are per IP and every visitor here is 127.0.0.1.
      'SVC_TRACK_RATE_LIMIT=10000 SVC_API_RATE_LIMIT=10000 LOG_LEVEL=warn',
      'node_modules/.bin/tsx demo-site/src/main.ts',
    ].join(' '),
    url: `http://localhost:${i.demoPort}/partners`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
  })),
});
