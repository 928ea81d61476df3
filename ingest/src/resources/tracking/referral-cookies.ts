import { isIP } from 'node:net';
import type { Request, Response } from 'express';
import type { SvcDataObject } from './tracking.schema.js';

/**
 * What a cookie's Domain attribute can be: dot-separated DNS labels. The body's `cookie_domain`
 * is looser (any of a-z, 0-9, `.` and `-`), and `res.cookie` throws on a domain such as `..` or
 * `a-`, which would fail the click after it was recorded.
 */
const COOKIE_DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * Same-site mode: when the merchant proxies the API under its own origin (e.g. /svc/*), the
 * browser calls it same-origin and the response can set the referral cookies itself. Cookies
 * set by a response, unlike cookies written by script, are not capped at 7 days by Safari.
 * Returns whether it set them.
 */
export function setReferralCookies(
  req: Request,
  res: Response,
  data: SvcDataObject,
  maxAgeSeconds: number,
  requestedDomain?: string | null,
): boolean {
  if (req.get('sec-fetch-site') !== 'same-origin') return false;
  const origin = parseOrigin(req.get('origin'));
  const host = origin?.hostname ?? req.hostname;
  // The script's probed domain is used only when it is the page's host or a parent of it (and a
  // domain at all); otherwise the cookies are the host's alone. So are an IP address's: it has no
  // parent (`0.1` is no parent of 127.0.0.1, though WebKit takes it; script/src/cookies.ts).
  const usable = requestedDomain && COOKIE_DOMAIN.test(requestedDomain) && !isIP(host);
  const domain = usable && (host === requestedDomain || host.endsWith(`.${requestedDomain}`)) ? requestedDomain : undefined;
  const options = {
    domain,
    path: '/',
    sameSite: 'lax' as const,
    secure: origin ? origin.protocol === 'https:' : req.secure,
    maxAge: maxAgeSeconds * 1000,
  };
  res.cookie('svc_data', JSON.stringify(data), options);
  res.cookie('svc_ref', data.click_id, options);
  return true;
}

function parseOrigin(value: string | undefined): URL | null {
  try {
    return value ? new URL(value) : null;
  } catch {
    return null;
  }
}
