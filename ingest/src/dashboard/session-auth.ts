import { parse as parseCookies } from 'cookie';
import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/database.js';
import { fromThisOrigin, sameToken } from '../pages/form-origin.js';
import { type OpenedSession, readSession, type SignedInUser } from '../resources/users/users.service.js';

/**
 * Who is signed in to the dashboard (ingest/docs/dashboard.md). The session cookie holds a random
 * token whose SHA-256 names a row of `sessions` (SQL, so sessions survive a Redis loss and every
 * process sees them). HttpOnly, SameSite=Lax, and over https Secure with the `__Host-` prefix
 * (bound to this host, path /).
 *
 * Every state-changing request proves it comes from a dashboard page: the form carries the
 * session's CSRF token (`_csrf`), and a browser's Sec-Fetch-Site or Origin, when sent, must name
 * this origin. SameSite=Lax alone would not do: other ports and subdomains are the same site.
 */
const COOKIE = 'svc_session';
const SECURE_COOKIE = '__Host-svc_session';

const cookieName = (req: Request) => (req.secure ? SECURE_COOKIE : COOKIE);
const cookieOptions = (req: Request, expires: Date): CookieOptions => ({
  httpOnly: true,
  sameSite: 'lax',
  secure: req.secure,
  path: '/',
  expires,
});

export function sessionToken(req: Request): string | undefined {
  const value = parseCookies(req.get('cookie') ?? '')[cookieName(req)];
  return value && /^[0-9A-Za-z]{20,100}$/.test(value) ? value : undefined;
}

export function setSessionCookie(req: Request, res: Response, session: OpenedSession): void {
  res.cookie(cookieName(req), session.token, cookieOptions(req, session.expiresAt));
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(cookieName(req), { ...cookieOptions(req, new Date(0)), expires: undefined });
}

export const userOf = (res: Response): SignedInUser => res.locals.user as SignedInUser;

/** The signed-in user into `res.locals.user`; without a live session, GETs go to the sign-in page and a form gets 401 (StaleForm). */
export function requireSignIn(db: Db): RequestHandler {
  return async (req, res, next) => {
    const token = sessionToken(req);
    const user = token ? await readSession(db, token) : null;
    if (!user) {
      if (req.method === 'GET') {
        const back = req.originalUrl.startsWith('/dashboard') ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
        res.redirect(303, `/dashboard/sign-in${back}`);
        return;
      }
      throw new StaleForm(401, 'Your session ended while this form was open, so nothing was saved. Sign in again, then send it anew.');
    }
    if (user.renewed) setSessionCookie(req, res, { token: token!, expiresAt: new Date(user.expires_at) });
    res.locals.user = user;
    next();
  };
}

/**
 * CSRF: refuses a state-changing request that does not come from a dashboard page of this session
 * (a form opened before the session it is sent in, or sent from another site): nothing is done,
 * and the dashboard's error page says the form has expired.
 */
export const checkCsrf =
  (publicUrl: string): RequestHandler =>
  (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!fromThisOrigin(req, publicUrl) || !sameToken(req.body?._csrf, userOf(res).csrf_token)) {
      throw new StaleForm(
        403,
        'This form did not come from a page of your current session, so nothing was saved. Open the page again and send it anew.',
      );
    }
    next();
  };

/** Only owners manage API keys, integrations and users. */
export const requireOwner: RequestHandler = (_req, res, next) => {
  if (userOf(res).role !== 'owner') {
    res.status(403);
    throw new DashboardForbidden();
  }
  next();
};

export class DashboardForbidden extends Error {
  constructor() {
    super('Only owners of the organization can open this page.');
  }
}

/** A form that cannot be taken (no session any more, or not from this session's pages): the dashboard's "form has expired" page. */
export class StaleForm extends Error {
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
  }
}
