import { expectAxeClean } from './support/axe.js';
import { expect, test } from './support/fixtures.js';

/**
 * The accessibility check the page specs rely on (e2e/support/axe.ts) finds what axe finds: a
 * page with an image without a text alternative and a field without a label fails it, naming both,
 * and the same page mended passes. Also under a Content-Security-Policy that forbids every script,
 * as svc's pages send one.
 */

const PAGE = (mended: boolean) => `<!doctype html><html lang="en"><head><title>Check</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:"></head>
<body><main><h1>Check</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" ${mended ? 'alt="A dot"' : ''}>
<form>${mended ? '<label for="q">Search</label>' : ''}<input id="q" name="q"></form>
</main></body></html>`;

test('the axe check fails on violations, naming their rules and elements, and passes once they are mended', async ({ page }) => {
  await page.setContent(PAGE(false));
  const failure = await expectAxeClean(page, 'with violations').then(
    () => null,
    (err: Error) => err.message,
  );
  expect(failure).toContain('image-alt: img');
  expect(failure).toContain('label: #q');
  await page.setContent(PAGE(true));
  await expectAxeClean(page, 'mended');
});
