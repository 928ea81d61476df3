import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { findChromium } from '../../e2e/support/chromium.js';
import { apiClient } from '../../ingest/client/api-client.js';

/**
 * `npm run screenshots`: the dashboard's pictures in ingest/docs/dashboard.md, taken from a seeded
 * demo so they stay current. Starts `npm run demo` (in memory, test hooks on to age clicks), fills
 * its program with five weeks of partners, clicks, signups, payments and a refund through the API,
 * signs in as the seeded owner in Chromium and writes demo-site/screenshots/*.png.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = path.join(ROOT, 'demo-site', 'screenshots');
const INGEST_PORT = 47_687;
const DEMO_PORT = 47_600;
const DAY = 86_400;

const PARTNERS = [
  ['Maya', 'Lopez', 'maya'],
  ['Jonas', 'Berg', 'jonas'],
  ['Priya', 'Nair', 'priya'],
  ['Sam', 'Okafor', 'sam'],
  ['Lena', 'Fischer', 'lena'],
] as const;

/** A repeatable pseudo-random sequence, so the pictures change only when the product does. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

async function main(): Promise<void> {
  const stateFile = path.join(os.tmpdir(), `svc-screenshots-${process.pid}.json`);
  // The embedded defaults, whatever this shell points at.
  const { DATABASE_URL: _sql, REDIS_URL: _redis, ...env } = process.env;
  const demo = spawn(process.execPath, ['--import', 'tsx', 'demo-site/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...env,
      INGEST_PORT: String(INGEST_PORT),
      DEMO_PORT: String(DEMO_PORT),
      DEMO_STATE_FILE: stateFile,
      SVC_TEST_HOOKS: '1',
      SVC_API_RATE_LIMIT: '100000',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const state = await waitForState(stateFile, demo);
    const api = apiClient(state.ingestUrl, state.api_key);
    await seed(api, state.ingestUrl, state.program_id);
    await shoot(state);
  } finally {
    demo.kill('SIGTERM');
    await fs.rm(stateFile, { force: true });
  }
}

interface State {
  ingestUrl: string;
  program_id: string;
  api_key: string;
  owner_email: string;
  owner_password: string;
}

async function waitForState(file: string, child: ChildProcess): Promise<State> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the demo exited with ${child.exitCode}`);
    const state = await fs.readFile(file, 'utf8').then(JSON.parse, () => null);
    if (state) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the demo did not start within a minute');
}

async function seed(api: ReturnType<typeof apiClient>, ingestUrl: string, programId: string): Promise<void> {
  const next = random(42);
  const age = (clickId: string, seconds: number) =>
    fetch(`${ingestUrl}/__test/clicks/${clickId}/age`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds }),
    });
  for (const [rank, [first, last, value]] of PARTNERS.entries()) {
    const partner = (
      await api.post('/v1/partners', { program_id: programId, first_name: first, last_name: last, email: `${value}@partners.example` })
    ).data[0];
    await api.post('/v1/links', { partner_id: partner.id, param: 'ref', value });
    const strength = 1 - rank * 0.17;
    for (let day = 34; day >= 0; day--) {
      const growth = 0.6 + (34 - day) / 50;
      const clicks = Math.round((3 + next() * 9) * strength * growth);
      for (let c = 0; c < clicks; c++) {
        const click = (await api.post('/v1/clicks', { partner_id: partner.id })).data[0];
        const seconds = day * DAY + Math.floor(next() * DAY * 0.9);
        await age(click.id, seconds);
        if (next() < 0.12) {
          const when = new Date(Date.now() - seconds * 1000 + 600_000);
          if (when.getTime() > Date.now()) continue;
          const email = `${value}.buyer${day}x${c}@customers.example`;
          const customer = (
            await api.post('/v1/customers', { partner_id: partner.id, email, click_id: click.id, created_at: when.toISOString() })
          ).data[0];
          if (next() < 0.55) {
            const paid = new Date(Math.min(Date.now(), when.getTime() + 3_600_000));
            const amount = next() < 0.3 ? 19_900 : 4_900;
            const payment = (await api.post('/v1/transactions', { customer_id: customer.id, amount, created_at: paid.toISOString() }))
              .data[0];
            if (next() < 0.08) await api.put(`/v1/transactions/${payment.id}/refund`, {});
          }
        }
      }
    }
  }
  const pending = (
    await api.post('/v1/partners', {
      program_id: programId,
      first_name: 'Noah',
      last_name: 'Kim',
      email: 'noah@partners.example',
      status: 'pending',
    })
  ).data[0];
  void pending;
}

async function shoot(state: State): Promise<void> {
  const browser = await chromium.launch({
    executablePath: findChromium()?.path,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(`${state.ingestUrl}/dashboard`);
    await page.getByLabel('E-mail').fill(state.owner_email);
    await page.getByLabel('Password').fill(state.owner_password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#chart canvas').waitFor();
    await fs.mkdir(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'overview.png'), fullPage: true });
    await page.getByRole('link', { name: 'Maya Lopez' }).first().click();
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.screenshot({ path: path.join(OUT, 'partner.png'), fullPage: false });

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(page.url().replace(/\/partners\/.*$/, ''));
    await phone.locator('#chart canvas').waitFor();
    await phone.screenshot({ path: path.join(OUT, 'overview-phone.png'), fullPage: false });
    console.log(
      `wrote ${['overview.png', 'partner.png', 'overview-phone.png'].map((f) => path.join('demo-site/screenshots', f)).join(', ')}`,
    );
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
