import type { Browser, BrowserContext, BrowserContextOptions, Page } from '@playwright/test';
import { type Api, type DemoState, expect, unique } from './fixtures.js';

/**
 * The merchant dashboard (ingest/docs/dashboard.md) in the e2e specs: signing in through its form, and
 * the demo's owner on a page of its own.
 */

/** Fills in and sends the sign-in form (as the demo's owner unless told); the caller checks what follows. */
export async function signIn(page: Page, demo: DemoState, email = demo.owner_email!, password = demo.owner_password!): Promise<void> {
  await page.goto(`${demo.ingestUrl}/dashboard`);
  await expect(page).toHaveURL(/\/dashboard\/sign-in/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * The owner's session of each demo instance, signed in once per worker and reused by every spec:
 * each sign-in costs a password hash (about 0.3 s alone, several times that on a busy machine).
 * No test signs it out.
 */
const ownerSessions = new Map<string, Promise<Awaited<ReturnType<BrowserContext['storageState']>>>>();

async function ownerSession(browser: Browser, demo: DemoState) {
  let session = ownerSessions.get(demo.ingestUrl);
  if (!session) {
    session = (async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await signIn(page, demo);
        await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
        return await context.storageState();
      } finally {
        await context.close();
      }
    })();
    ownerSessions.set(demo.ingestUrl, session);
    // A failed sign-in is not kept: the next test signs in anew.
    session.catch(() => ownerSessions.delete(demo.ingestUrl));
  }
  return session;
}

/** A page of a browser context of its own, signed in as the demo's owner and showing the overview. */
export async function ownerPage(browser: Browser, demo: DemoState, options: BrowserContextOptions = {}): Promise<Page> {
  const storageState = await ownerSession(browser, demo);
  const page = await (await browser.newContext({ ...options, storageState })).newPage();
  await page.goto(`${demo.ingestUrl}/dashboard`);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  return page;
}

/** A program of the test's own, so that what a test reads is its own (tests run in parallel on one organization). */
export async function ownProgram(api: Api, fields: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const name = unique('Program ');
  const program = (await api.post('/v1/programs', { name, ...fields })).data[0];
  return { id: program.id, name };
}
