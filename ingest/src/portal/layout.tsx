import type { ProgramRow } from '../db/schema.js';
import { Document, ErrorBody, errorHeading, NavLink, Notice, SkipLink } from '../pages/document.js';
import type { Children } from '../pages/render.js';
import { type BrandedProgram, logoPath, themePath } from '../resources/branding/branding.service.js';
import type { PortalContext } from './context.js';

/**
 * The partner portal's pages (ingest/docs/partner-portal.md): server-rendered like the dashboard's,
 * with its stylesheet and script (copy buttons, the chart), and working without JavaScript.
 */

/** The hidden field that proves a form comes from this session's pages (portal-auth.ts). */
export const PortalCsrf = ({ ctx }: { ctx: PortalContext }) => <input type="hidden" name="_csrf" value={ctx.session.csrf_token} />;

/** What a portal page shows of its program: the name, and its brand when it has one (the error pages have none). */
type ShownProgram = Pick<ProgramRow, 'name'> & Partial<Pick<BrandedProgram, 'subdomain' | 'brand'>>;

// The program's brand (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color): its
// accent color comes as a stylesheet of its own (no inline style: the pages' CSP refuses them),
// its logo stands for its name (alt) in the header and above the public pages.
const themeOf = (program: ShownProgram) =>
  program.subdomain && program.brand?.accentColor ? themePath(program.subdomain, program.brand.accentColor) : null;

/** The program as its pages name it: its logo (the name as its text), else its name. */
function BrandMark({ program }: { program: ShownProgram }) {
  const logo = program.brand?.logo;
  if (!program.subdomain || !logo) return <>{program.name}</>;
  return <img class="logo" src={logoPath(program.subdomain, logo)} alt={program.name} width={logo.width} height={logo.height} />;
}

export function PortalDocument({ program, title, children }: { program: ShownProgram; title: string; children: Children }) {
  const theme = themeOf(program);
  return (
    <Document
      title={`${title} · ${program.name} partners`}
      stylesheets={theme ? ['portal.css', theme as `/${string}`] : ['portal.css']}
      bodyClass="portal"
      noReferrer
    >
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
          <BrandMark program={ctx.program} />
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
export function PublicPage({ program, title, children }: { program: ShownProgram; title: string; children: Children }) {
  return (
    <PortalDocument program={program} title={title}>
      <main id="main" class="narrow sign-in">
        <p class="brand-line">
          <BrandMark program={program} /> partner program
        </p>
        {children}
      </main>
    </PortalDocument>
  );
}

/**
 * What went wrong, in the portal's words (404 for an unknown program or another partner's record,
 * 429, a form that expired …), under the program's name and colors when the program is known,
 * with the way back.
 */
export function PortalErrorPage({
  program,
  status,
  message,
  back,
  stale,
}: {
  program?: ShownProgram;
  status: number;
  message: string;
  back?: { href: string; label: string };
  stale?: boolean;
}) {
  const heading = errorHeading(status, stale);
  return (
    <PortalDocument program={program ?? { name: 'svc' }} title={heading}>
      {program ? (
        <header class="top">
          <span class="brand">
            <BrandMark program={program} />
          </span>
        </header>
      ) : null}
      <ErrorBody heading={heading} message={message} back={back} />
    </PortalDocument>
  );
}
