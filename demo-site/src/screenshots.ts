import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { findChromium } from '../../e2e/support/chromium.js';
import { apiClient } from '../../ingest/client/api-client.js';

/**
 * `npm run screenshots`: the pictures of the dashboard and the portal in ingest/docs/dashboard.md and
 * ingest/docs/partner-portal.md, taken from a seeded demo so they stay current. Starts `npm run demo` (in memory, test hooks on to age clicks), fills
 * its program with five weeks of partners, clicks, signups, payments and a refund through the API,
 * signs in as the seeded owner in Chromium and writes demo-site/screenshots/*.png: the overview (and
 * at a phone's width), a partner, the commissions, a refused settings form, and a partner's portal.
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
    const pictured = await seed(api, state.ingestUrl, state.program_id);
    await shoot(state, await portalAddress(api, pictured));
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

function parsedOrNull(text: string): State | null {
  try {
    return JSON.parse(text) as State;
  } catch {
    return null;
  }
}

async function waitForState(file: string, child: ChildProcess): Promise<State> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the demo exited with ${child.exitCode}`);
    // The demo may be halfway through writing it: a file that does not parse yet is not there yet.
    const state = await fs.readFile(file, 'utf8').then(parsedOrNull, () => null);
    if (state) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the demo did not start within a minute');
}

/** Seeds the program; answers the first partner's id (whose portal is pictured). */
async function seed(api: ReturnType<typeof apiClient>, ingestUrl: string, programId: string): Promise<string> {
  const next = random(42);
  const ids: string[] = [];
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
    ids.push(partner.id);
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
  return ids[0];
}

/** A partner's portal for the pictures: an embed token (the API's), so no sign-in e-mail is needed. */
async function portalAddress(api: ReturnType<typeof apiClient>, partnerId: string): Promise<string> {
  // The client has no type for this answer: { data: [{ url }] }, an absolute address on svc's public
  // URL (ingest/src/resources/partner-access/partner-access.schema.ts).
  const answer = (await api.post(`/v1/partners/${partnerId}/embed-tokens`, {})) as { data: { url: string }[] };
  return answer.data[0].url;
}

async function shoot(state: State, portal: string): Promise<void> {
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

    const program = `${state.ingestUrl}/dashboard/programs/${state.program_id}`;
    await page.goto(`${program}/commissions`);
    await page.screenshot({ path: path.join(OUT, 'commissions.png'), fullPage: false });

    // A refused form: the message beside its field, what was typed kept.
    await page.goto(`${program}/settings`);
    await page.getByLabel(/Cookie duration/).fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('[aria-invalid="true"]').first().waitFor();
    await page.screenshot({ path: path.join(OUT, 'refused-form.png'), fullPage: false });

    await page.goto(portal);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.screenshot({ path: path.join(OUT, 'portal-home.png'), fullPage: true });

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(program);
    await phone.locator('#chart canvas').waitFor();
    await phone.screenshot({ path: path.join(OUT, 'overview-phone.png'), fullPage: false });
    const written = ['overview.png', 'partner.png', 'commissions.png', 'refused-form.png', 'portal-home.png', 'overview-phone.png'];
    console.log(`wrote ${written.map((f) => path.join('demo-site/screenshots', f)).join(', ')}`);
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
