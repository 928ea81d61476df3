import { badRequest } from '../http/errors.js';
import { parseMajorUnits, toMajorUnits } from '../money.js';
import type { Children } from '../pages/render.js';
import { Tabs } from '../pages/tabs.js';
import { type ProgramPageContext, programPath } from './context.js';
import { Layout } from './layout.js';

/** What the settings pages share: the frame with its sub-navigation, and form fields → the API's JSON shapes. */

/* Form fields → the API's JSON shapes. Conversions only: the schema decides what is valid. */

/** A number typed in a form, as a number; anything else stays text for the schema to refuse. */
export function numberField(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim();
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
}

/** An amount typed in the currency's major unit ("49.00") → cents; empty → left out; not an amount → 400. */
export function amountField(value: unknown, currency: string, field: string): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const cents = parseMajorUnits(value, currency);
  if (cents === null) throw badRequest(`Invalid ${field}: enter an amount in ${currency}, e.g. ${toMajorUnits(4900, currency)}`, field);
  return cents;
}

/** "ref, via" or "ref via" → ["ref", "via"]; empty → left out. */
export function listField(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const items = value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

const SETTINGS_TABS = [
  { path: '', label: 'General' },
  { path: '/flows', label: 'Commission flows' },
  { path: '/groups', label: 'Groups' },
  { path: '/promotion-codes', label: 'Promotion codes' },
  { path: '/branding', label: 'Portal branding' },
  { path: '/risk-rules', label: 'Risk rules' },
] as const;

export type SettingsTab = (typeof SETTINGS_TABS)[number]['path'];

/** The settings pages' frame: heading, the sub-navigation (one tab per page), the page. */
export function SettingsLayout({
  ctx,
  tab,
  title,
  children,
}: {
  ctx: ProgramPageContext;
  tab: SettingsTab;
  title: string;
  children: Children;
}) {
  const program = ctx.program;
  return (
    <Layout ctx={ctx} title={title}>
      <div class="page-head">
        <h1>Settings</h1>
      </div>
      <Tabs
        label="Settings"
        tabs={SETTINGS_TABS.map((t) => ({ href: programPath(program, `/settings${t.path}`), label: t.label, current: t.path === tab }))}
      />
      {children}
    </Layout>
  );
}
