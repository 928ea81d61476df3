import os from 'node:os';
import path from 'node:path';
import type { Locator } from '@playwright/test';
import { pngOf, SVG_LOGO } from '../ingest/test/support/images.js';
import { expectAxeClean } from './support/axe.js';
import { ownerPage, ownProgram } from './support/dashboard.js';
import { expect, test, unique } from './support/fixtures.js';
import { signInLinkCausedBy } from './support/outbox.js';

/**
 * The program's logo and accent color (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color)
 * in real Chromium (on the embedded demo instance, as every page: e2e/playwright.config.ts):
 * uploaded on the dashboard's Settings › Portal branding (a refused SVG first), then shown on the
 * portal's sign-in page and a signed-in partner's home, with axe finding nothing. Server-side rules in detail: ingest/test/dashboard/branding.test.ts.
 */

const ACCENT = '#0b7a75';

/**
 * The image's decoded size once it has loaded (null before): an <img> with width and height set is
 * "visible" before its bytes arrive, so its size is polled, not read once.
 */
function loadedSize(img: Locator) {
  return img.evaluate((el: HTMLImageElement) => (el.complete ? [el.naturalWidth, el.naturalHeight] : null));
}

test("a logo and an accent color set in Settings show on the program's portal, readable", async ({ browser, api, demo }) => {
  const program = await ownProgram(api, { type: 'public' });
  const { subdomain } = (await api.get(`/v1/programs/${program.id}`)).data;
  const portalUrl = `${demo.ingestUrl}/p/${subdomain}`;

  const page = await ownerPage(browser, demo);
  await page.goto(`${demo.ingestUrl}/dashboard/programs/${program.id}/settings`);
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Portal branding' }).click();

  // An SVG, and a PNG declared as a JPEG, are refused with a sentence beside the logo's field.
  await page.getByLabel('Logo').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: SVG_LOGO });
  await page.getByRole('button', { name: 'Save branding' }).click();
  await expect(page.getByRole('alert')).toHaveText('This form was not saved: see the message beside the field.');
  await expect(page.getByLabel('Logo')).toHaveAccessibleDescription(/The logo must be a PNG, JPEG or WebP image \(SVG is not accepted\)\./);
  await page.getByLabel('Logo').setInputFiles({ name: 'logo.jpg', mimeType: 'image/jpeg', buffer: pngOf(10, 10) });
  await page.getByRole('button', { name: 'Save branding' }).click();
  await expect(page.getByLabel('Logo')).toHaveAccessibleDescription(/says it is image\/jpeg, but its content is image\/png/);
  await expectAxeClean(page);

  await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: pngOf(160, 48) });
  await page.getByLabel('Accent color as text (#rrggbb)').fill(ACCENT);
  await page.getByRole('button', { name: 'Save branding' }).click();
  await expect(page.getByRole('status')).toHaveText('Portal branding saved.');
  const preview = page.getByRole('img', { name: `${program.name} logo` });
  await expect(preview).toBeVisible();
  await expect.poll(() => loadedSize(preview)).toEqual([160, 48]);

  // The portal's sign-in page: the logo for the program's name, the accent on its button.
  const portal = await (await browser.newContext()).newPage();
  await portal.goto(`${portalUrl}/sign-in`);
  const logo = portal.getByRole('img', { name: program.name });
  await expect(logo).toBeVisible();
  await expect.poll(() => loadedSize(logo)).toEqual([160, 48]);
  await expect(portal.getByRole('button', { name: 'Send me a sign-in link' })).toHaveCSS('background-color', 'rgb(11, 122, 117)');
  await expectAxeClean(portal);

  // A partner signed in: the logo in the header, the accent on its band and the links.
  const email = `${unique('Brandy')}@partners.example`;
  await api.post('/v1/partners', { program_id: program.id, first_name: 'Brandy', last_name: 'Logo', email, status: 'active' });
  const link = await signInLinkCausedBy(demo.outboxDir, email, async () => {
    await portal.getByLabel('E-mail').fill(email);
    await portal.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await expect(portal.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
  });
  await portal.goto(link);
  await portal.getByRole('button', { name: 'Sign in' }).click();
  const header = portal.getByRole('banner');
  await expect(header.getByRole('link', { name: program.name })).toBeVisible();
  await expect(header.getByRole('img', { name: program.name })).toBeVisible();
  await expect(header).toHaveCSS('border-top-color', 'rgb(11, 122, 117)');
  await expectAxeClean(portal);
  // To look at: the branded home, in the system's temporary directory.
  await portal.screenshot({ path: path.join(os.tmpdir(), `svc-portal-branding-${test.info().project.name}.png`), fullPage: true });

  // A very light color still reads: near-black text on the buttons, links darkened.
  await page.getByLabel('Accent color as text (#rrggbb)').fill('#fde047');
  await page.getByRole('button', { name: 'Save branding' }).click();
  await expect(page.getByRole('status')).toHaveText('Portal branding saved.');
  await portal.context().clearCookies();
  await portal.goto(`${portalUrl}/sign-in`);
  await expect(portal.getByRole('button', { name: 'Send me a sign-in link' })).toHaveCSS('color', 'rgb(17, 17, 17)');
  await expectAxeClean(portal);
  // At a phone's width too.
  await portal.setViewportSize({ width: 390, height: 844 });
  await expectAxeClean(portal);
});
