import { Document, ErrorBody, errorHeading, NavLink, Notice, SkipLink } from '../pages/document.js';
import { count } from '../pages/format.js';
import type { Children } from '../pages/render.js';
import { type PageContext, programPath } from './context.js';

/** The tag a program's pages load svc.js with (README.md#the-script-tag). */
export const scriptTag = (publicUrl: string, publicKey: string) =>
  `<script async src="${publicUrl}/svc.js" data-key="${publicKey}"></script>`;

/** The hidden field that proves a form comes from this session's pages (session-auth.ts). */
export const Csrf = ({ ctx }: { ctx: PageContext }) => <input type="hidden" name="_csrf" value={ctx.user.csrf_token} />;

/** A dashboard page's shell: its title, then svc's. */
export const DashboardDocument = ({ title, children }: { title: string; children: Children }) => (
  <Document title={`${title} · svc`}>{children}</Document>
);

export function Layout({ ctx, title, children }: { ctx: PageContext; title: string; children: Children }) {
  const { program, section, user } = ctx;
  return (
    <DashboardDocument title={title}>
      <SkipLink />
      <header class="top">
        <a class="brand" href="/dashboard">
          svc
        </a>
        {ctx.programs.length > 1 && program ? (
          <form class="program-switch" method="get" action="/dashboard">
            <label for="program-select" class="visually-hidden">
              Program
            </label>
            <select id="program-select" name="program" data-autosubmit>
              {ctx.programs.map((p) => (
                <option value={p.id} selected={p.id === program.id}>
                  {p.name}
                </option>
              ))}
            </select>
            <button type="submit" class="js-hidden">
              Open
            </button>
          </form>
        ) : program ? (
          <span class="program-name">{program.name}</span>
        ) : null}
        <nav aria-label="Main">
          {program ? (
            <>
              <NavLink href={programPath(program)} current={section === 'overview'}>
                Overview
              </NavLink>
              <NavLink href={programPath(program, '/partners')} current={section === 'partners'}>
                Partners
                <NavCount count={ctx.pendingPartners?.get(program.id) ?? 0} words={(n) => `partner${n === 1 ? '' : 's'} awaiting review`} />
              </NavLink>
              <NavLink href={programPath(program, '/customers')} current={section === 'customers'}>
                Customers
              </NavLink>
              <NavLink href={programPath(program, '/transactions')} current={section === 'transactions'}>
                Transactions
              </NavLink>
              <NavLink href={programPath(program, '/commissions')} current={section === 'commissions'}>
                Commissions
              </NavLink>
              <NavLink href={programPath(program, '/payouts')} current={section === 'payouts'}>
                Payouts
              </NavLink>
              <NavLink href={programPath(program, '/risk')} current={section === 'risk'}>
                Risk
                <NavCount count={ctx.openRiskEvents ?? 0} words={(n) => `open risk event${n === 1 ? '' : 's'}`} />
              </NavLink>
              <NavLink href={programPath(program, '/settings')} current={section === 'settings'}>
                Settings
              </NavLink>
            </>
          ) : null}
          {user.role === 'owner' ? (
            <NavLink href="/dashboard/integrations" current={section === 'integrations'}>
              Integrations
            </NavLink>
          ) : null}
        </nav>
        <form class="sign-out" method="post" action="/dashboard/sign-out">
          <Csrf ctx={ctx} />
          <span class="who">{user.email}</span>
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main id="main">
        <WebsitePrompt ctx={ctx} />
        <Notice text={ctx.notice} />
        {children}
      </main>
    </DashboardDocument>
  );
}

/**
 * A count beside a section's name in the navigation, read by screen readers as words, not as a
 * bare number: the partners awaiting review beside "Partners" (partnersAwaitingReview:
 * ingest/docs/dashboard.md#pending-partners-in-the-navigation) and the open risk events beside
 * "Risk" (openRiskEventCount: ingest/docs/dashboard.md#risk), both counted for program pages by
 * the router's contextOf.
 */
function NavCount({ count: n, words }: { count: number; words: (n: number) => string }) {
  if (n <= 0) return null;
  return (
    <>
      {' '}
      <span class="nav-count" aria-hidden="true">
        {count(n)}
      </span>
      <span class="visually-hidden">{`(${count(n)} ${words(n)})`}</span>
    </>
  );
}

/**
 * While the program has no website address, every page of it asks for one: without it partners
 * get no link they can share (shareableLink, resources/links/link-address.ts). Not on Settings,
 * whose form asks for it, nor on the organization's pages.
 */
function WebsitePrompt({ ctx }: { ctx: PageContext }) {
  const { program, section } = ctx;
  if (!program || program.website_url || section === null || section === 'settings' || section === 'integrations') return null;
  return (
    <p class="setup-prompt">
      <a href={programPath(program, '/settings')}>Add your website address in Settings so partners get links they can share</a>
    </p>
  );
}

/** A page of its own for what went wrong (404, 403, 429, a stale form, 503 …), signed in or not. */
export function ErrorPage({ status, message, stale }: { status: number; message: string; stale?: boolean }) {
  const heading = errorHeading(status, stale);
  return (
    <DashboardDocument title={heading}>
      <ErrorBody heading={heading} message={message} back={{ href: '/dashboard', label: 'Back to the dashboard' }} />
    </DashboardDocument>
  );
}
