import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';
import type { AxeResults, RunOptions } from 'axe-core';
import { expect } from './fixtures.js';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Every rule of axe-core (none left out), reporting violations only: what the pages are held to. */
const OPTIONS: RunOptions = { resultTypes: ['violations'], iframes: false };

/**
 * Every axe rule, every impact: the page has no violation (named by rule and element when it has).
 *
 * axe-core runs in the page itself, injected once per document (through the DevTools protocol, so
 * the pages' Content-Security-Policy does not apply to it). @axe-core/playwright's AxeBuilder did
 * the same work and then opened a blank page to merge the results of each analysis: about 1.9 s per
 * call on the 2-core machine, against 0.3–0.4 s for axe itself, over some 80 calls. The pages have
 * no frames, so only the top document is analysed (`iframes: false`).
 */
export async function expectAxeClean(page: Page, label = page.url()): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    (options) => (window as unknown as { axe: { run(c: Document, o: RunOptions): Promise<AxeResults> } }).axe.run(document, options),
    OPTIONS,
  );
  expect(
    violations.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    label,
  ).toEqual([]);
}

/** A phone's width (an iPhone SE's), where the pages must hold together too. */
export const PHONE = { width: 375, height: 740 };
