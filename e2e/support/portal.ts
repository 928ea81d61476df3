import type { Page } from '@playwright/test';
import { type DemoState, expect } from './fixtures.js';
import { signInLinkCausedBy } from './outbox.js';

/**
 * The partner portal (ingest/docs/partner-portal.md) in the e2e specs: signing a partner in by the
 * link e-mailed to them (read from ingest's .eml outbox), on the demo program's portal unless told.
 */

/** Asks for a sign-in link on the portal's form; answers the link in the one e-mail that asking caused. */
export async function askSignInLink(page: Page, demo: DemoState, email: string, portalUrl = demo.portalUrl): Promise<string> {
  return signInLinkCausedBy(demo.outboxDir, email, async () => {
    await page.goto(`${portalUrl}/sign-in`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await expect(page.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
  });
}

/** Asks for a sign-in link on the portal's form and opens it from the outbox; the page is then signed in. */
export async function signInToPortal(page: Page, demo: DemoState, email: string, portalUrl = demo.portalUrl): Promise<string> {
  const link = await askSignInLink(page, demo, email, portalUrl);
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return link;
}
