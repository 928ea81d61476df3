import type { ProgramObject } from '../resources/programs/programs.schema.js';
import type { SignedInUser } from '../resources/users/users.service.js';
import { assetUrl } from './assets.js';
import type { Children } from './render.js';

export type Section = 'overview' | 'partners' | 'customers' | 'transactions' | 'commissions' | 'payouts' | 'settings' | 'integrations';

/** What every signed-in page knows: who is looking, their programs, which one and which section. */
export interface PageContext {
  user: SignedInUser;
  programs: ProgramObject[];
  program: ProgramObject | null;
  section: Section | null;
  /** A one-line confirmation of what the last form did. */
  notice?: string | null;
  /** svc's public address, SVC_PUBLIC_URL (where the script tag loads svc.js from); never the request's Host. */
  publicUrl: string;
}

export const programPath = (program: { id: string }, rest = '') => `/dashboard/programs/${program.id}${rest}`;

/** The tag a program's pages load svc.js with (README.md#the-script-tag). */
export const scriptTag = (publicUrl: string, publicKey: string) =>
  `<script async src="${publicUrl}/svc.js" data-key="${publicKey}"></script>`;

/** The hidden field that proves a form comes from this session's pages (session-auth.ts). */
export const Csrf = ({ ctx }: { ctx: PageContext }) => <input type="hidden" name="_csrf" value={ctx.user.csrf_token} />;

export function Document({ title, children }: { title: string; children: Children }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · svc`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assetUrl('dashboard.css')} />
        <script defer src={assetUrl('dashboard.js')} />
      </head>
      <body>{children}</body>
    </html>
  );
}

function NavLink({ href, current, children }: { href: string; current: boolean; children: Children }) {
  return (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

export function Layout({ ctx, title, children }: { ctx: PageContext; title: string; children: Children }) {
  const { program, section, user } = ctx;
  return (
    <Document title={title}>
      <a class="skip" href="#main">
        Skip to content
      </a>
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
        {ctx.notice ? (
          <p class="notice" role="status">
            {ctx.notice}
          </p>
        ) : null}
        {children}
      </main>
    </Document>
  );
}

/** A page of its own for what went wrong (404, 403, 503 …), signed in or not. */
export function ErrorPage({ status, message }: { status: number; message: string }) {
  const heading = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status >= 500 ? 'Something went wrong' : 'Cannot do that';
  return (
    <Document title={heading}>
      <main id="main" class="narrow">
        <h1>{heading}</h1>
        <p>{message}</p>
        <p>
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </main>
    </Document>
  );
}
