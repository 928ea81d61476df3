import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures.js';

/** Every axe rule, every impact: the page has no violation (named by rule and element when it has). */
export async function expectAxeClean(page: Page, label = page.url()): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    label,
  ).toEqual([]);
}

/** A phone's width (an iPhone SE's), where the pages must hold together too. */
export const PHONE = { width: 375, height: 740 };
