import type { Children } from '../pages/render.js';
import { Tabs } from '../pages/tabs.js';
import type { PageContext } from './context.js';
import { Layout } from './layout.js';

/**
 * What the Integrations tabs share (ingest/docs/dashboard.md#integrations): their addresses and the
 * frame, a heading and the tabs, each tab a page of its own registered by the router
 * (pages/integrations*.tsx). A secret made by a tab's form is shown once at the top of its tab.
 */

const INTEGRATIONS = '/dashboard/integrations';

const TABS = [
  { path: '/script-tag', label: 'Script tag' },
  { path: '/api-keys', label: 'API keys' },
  { path: '/stripe', label: 'Stripe' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/users', label: 'Users' },
] as const;

export type IntegrationsTab = (typeof TABS)[number]['path'];

/** A tab's address, or one under it (`integrationsPath('/webhooks', '/we_…')`). */
export const integrationsPath = (tab: IntegrationsTab, rest = '') => `${INTEGRATIONS}${tab}${rest}`;

/** The page of a program's Stripe connection, under the Stripe tab. */
export const stripePath = (programId: string) => integrationsPath('/stripe', `/${programId}`);

/** The page of a webhook endpoint, under the Webhooks tab. */
export const endpointPath = (id: string) => integrationsPath('/webhooks', `/${id}`);

export function IntegrationsLayout({
  ctx,
  tab,
  title,
  once,
  children,
}: {
  ctx: PageContext;
  tab: IntegrationsTab;
  /** The page's own part of the title, e.g. "Stripe for Acme" (the tab's name when left out). */
  title?: string;
  /** A secret the form just made (ShownOnce): above everything else of the tab. */
  once?: Children;
  children: Children;
}) {
  const current = TABS.find((t) => t.path === tab)!;
  return (
    <Layout ctx={ctx} title={`${title ?? current.label} · Integrations`}>
      <div class="page-head">
        <h1>Integrations</h1>
      </div>
      <Tabs label="Integrations" tabs={TABS.map((t) => ({ href: integrationsPath(t.path), label: t.label, current: t.path === tab }))} />
      {once}
      {children}
    </Layout>
  );
}
