import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The hardening headers every response carries (helmet). Both variants below are built once, at
 * start-up: helmet turns static options into fixed header values then, so a request only costs
 * a dozen setHeader calls (the click path is benchmarked against bare Express).
 *
 * - Content-Security-Policy `default-src 'none'; frame-ancestors 'none'`: the API answers JSON,
 *   which never needs to load anything or be framed; should a response ever be rendered as a
 *   page (a browser opening an error), nothing in it can run. /docs, the one HTML page, replaces
 *   it with a policy that fits its viewer (api-docs.ts).
 * - X-Frame-Options DENY: frame-ancestors for browsers that predate it.
 * - X-Content-Type-Options nosniff: a browser takes the declared Content-Type (JSON stays JSON,
 *   svc.js is only ever run as JavaScript).
 * - Strict-Transport-Security for a year, for this host only: self-hosted svc may share its
 *   domain with sites that are not on https, so no includeSubDomains (and it is ignored over
 *   plain http, e.g. localhost).
 * - helmet's other defaults: Cross-Origin-Opener-Policy same-origin, Origin-Agent-Cluster,
 *   Referrer-Policy no-referrer, X-DNS-Prefetch-Control off, X-Download-Options noopen,
 *   X-Permitted-Cross-Domain-Policies none, X-XSS-Protection 0, and no X-Powered-By.
 * - Cross-Origin-Resource-Policy same-origin, except on the public endpoints (securityHeaders).
 */
const common: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  xFrameOptions: { action: 'deny' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
};

const privateHeaders = helmet({ ...common, crossOriginResourcePolicy: { policy: 'same-origin' } });
const publicHeaders = helmet({ ...common, crossOriginResourcePolicy: { policy: 'cross-origin' } });

/**
 * Every response gets these headers (mounted first in createApp: errors and 404s included).
 * `isPublic` names the endpoints merchants' pages load from another origin (the tracking
 * resource decides which: svc.js and the script's /v1/track/* requests). They carry
 * Cross-Origin-Resource-Policy cross-origin: same-origin would make browsers refuse svc.js to
 * every merchant's page (a <script> tag is a no-cors load, which CORP governs), and a page with
 * Cross-Origin-Embedder-Policy requires it. Everything else is same-origin.
 */
export function securityHeaders(isPublic: (path: string) => boolean): RequestHandler {
  return (req, res, next) => {
    (isPublic(req.path) ? publicHeaders : privateHeaders)(req, res, next);
  };
}
