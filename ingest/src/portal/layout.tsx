import type { ProgramRow } from '../db/schema.js';
import { Document, ErrorBody, errorHeading, NavLink, Notice, SkipLink } from '../pages/document.js';
import type { Children } from '../pages/render.js';
import type { PortalContext } from './context.js';

/**
 * The partner portal's pages (ingest/docs/partner-portal.md): server-rendered like the dashboard's,
 * with its stylesheet and script (copy buttons, the chart), and working without JavaScript.
 */

/** The hidden field that proves a form comes from this session's pages (portal-auth.ts). */
export const PortalCsrf = ({ ctx }: { ctx: PortalContext }) => <input type="hidden" name="_csrf" value={ctx.session.csrf_token} />;

export function PortalDocument({ program, title, children }: { program: Pick<ProgramRow, 'name'>; title: string; children: Children }) {
  return (
    <Document title={`${title} · ${program.name} partners`} stylesheets={['portal.css']} bodyClass="portal" noReferrer>
      {children}
    </Document>
  );
}

/** A signed-in page: the program, the partner's sections and, outside an iframe, sign-out. */
export function PortalLayout({ ctx, title, children }: { ctx: PortalContext; title: string; children: Children }) {
  const active = ctx.partner.status === 'active';
  return (
    <PortalDocument program={ctx.program} title={title}>
      <SkipLink />
      <header class="top">
        <a class="brand" href={`${ctx.base}/`}>
          {ctx.program.name}
        </a>
        {active ? (
          <nav aria-label="Main">
            <NavLink href={`${ctx.base}/`} current={ctx.section === 'home'}>
              Home
            </NavLink>
            <NavLink href={`${ctx.base}/referrals`} current={ctx.section === 'referrals'}>
              Referrals
            </NavLink>
            <NavLink href={`${ctx.base}/settings`} current={ctx.section === 'settings'}>
              Settings
            </NavLink>
          </nav>
        ) : null}
        {ctx.embedded ? null : (
          <form class="sign-out" method="post" action={`${ctx.base}/sign-out`}>
            <PortalCsrf ctx={ctx} />
            <span class="who">{ctx.partner.email}</span>
            <button type="submit">Sign out</button>
          </form>
        )}
      </header>
      <main id="main">
        <Notice text={ctx.notice} />
        {children}
      </main>
    </PortalDocument>
  );
}

/** A page of the portal shown before sign-in (join, sign-in, messages): narrow, with the program's name. */
export function PublicPage({ program, title, children }: { program: Pick<ProgramRow, 'name'>; title: string; children: Children }) {
  return (
    <PortalDocument program={program} title={title}>
      <main id="main" class="narrow sign-in">
        <p class="brand-line">{program.name} partner program</p>
        {children}
      </main>
    </PortalDocument>
  );
}

/** What went wrong, in the portal's words (404 for an unknown program or another partner's record). */
export function PortalErrorPage({ status, message, home, stale }: { status: number; message: string; home?: string; stale?: boolean }) {
  const heading = errorHeading(status, stale);
  return (
    <PortalDocument program={{ name: 'svc' }} title={heading}>
      <ErrorBody heading={heading} message={message} back={home ? { href: home, label: 'Back to the portal' } : undefined} />
    </PortalDocument>
  );
}
