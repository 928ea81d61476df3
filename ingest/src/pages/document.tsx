import { type AssetName, assetUrl } from './assets.js';
import type { Children } from './render.js';

/**
 * The document shell, navigation and notices of every page of the dashboard and the partner portal
 * (ingest/README.md#how-to-add-a-dashboard-or-portal-page): one stylesheet and script from svc itself,
 * no inline script or style (the pages' Content-Security-Policy, render.tsx).
 */
export function Document({
  title,
  stylesheets = [],
  bodyClass,
  noReferrer = false,
  children,
}: {
  /** The whole `<title>`, e.g. "Partners · Acme · svc". */
  title: string;
  /** Stylesheets after dashboard.css: an asset name, or a path svc serves (a program's theme). */
  stylesheets?: readonly (AssetName | `/${string}`)[];
  bodyClass?: string;
  /** Pages whose URL carries a secret (the portal's embed token) send no Referer anywhere. */
  noReferrer?: boolean;
  children: Children;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {noReferrer ? <meta name="referrer" content="no-referrer" /> : null}
        <title>{title}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assetUrl('dashboard.css')} />
        {stylesheets.map((s) => (
          <link rel="stylesheet" href={s.startsWith('/') ? s : assetUrl(s as AssetName)} />
        ))}
        <script defer src={assetUrl('dashboard.js')} />
      </head>
      <body class={bodyClass}>{children}</body>
    </html>
  );
}

export function SkipLink() {
  return (
    <a class="skip" href="#main">
      Skip to content
    </a>
  );
}

export function NavLink({ href, current, children }: { href: string; current: boolean; children: Children }) {
  return (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

/** The confirmation of what the last form did, announced to screen readers. */
export function Notice({ text }: { text?: string | null }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}

/** The heading of a page of its own for what went wrong. */
export function errorHeading(status: number, stale = false): string {
  if (stale) return 'This form has expired';
  if (status === 404) return 'Not found';
  if (status === 403) return 'Not allowed';
  if (status === 401) return 'Signed out';
  if (status === 429) return 'Too many requests';
  if (status >= 500) return 'Something went wrong';
  return 'Cannot do that';
}

/**
 * A page of its own for what went wrong (404, 403, 429, a stale form, 503 …), signed in or not,
 * in the shell of the half it belongs to, with the way back.
 */
export function ErrorBody({ heading, message, back }: { heading: string; message: string; back?: { href: string; label: string } }) {
  return (
    <main id="main" class="narrow">
      <h1>{heading}</h1>
      <p>{message}</p>
      {back ? (
        <p>
          <a href={back.href}>{back.label}</a>
        </p>
      ) : null}
    </main>
  );
}
