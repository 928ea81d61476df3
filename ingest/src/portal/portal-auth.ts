import { parse as parseCookies } from 'cookie';
import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/database.js';
import type { PartnerRow, ProgramRow } from '../db/schema.js';
import { ApiError } from '../http/errors.js';
import { fromThisOrigin, sameToken } from '../pages/form-origin.js';
import type { BrandedProgram } from '../resources/branding/branding.service.js';
import { type OpenedPartnerSession, type PartnerSession, readPartnerSession } from '../resources/partner-access/partner-access.service.js';
import { requirePartner } from '../resources/partners/partners.service.js';
import { rememberPortalBrowser } from '../resources/risk/risk-flags.js';
import { visitorHash } from '../resources/risk/risk-identity.js';

/**
 * Who is signed in to a program's portal (ingest/docs/partner-portal.md).
 *
 * - In a browser tab, a cookie session: an HttpOnly, SameSite=Lax cookie scoped to the program's
 *   path (`/p/<subdomain>`), so one browser can hold the portals of several programs; Secure and
 *   `__Secure-` over https.
 * - In an iframe, an embed token in the URL (`/p/<subdomain>/embed/<token>/…`): no cookie, since
 *   browsers block third-party ones. Every link and form of an embedded page carries the token.
 *
 * State-changing requests prove they come from a portal page, as in the dashboard: the form's
 * `_csrf` must be the session's, and the browser's Sec-Fetch-Site or Origin must be this origin.
 * What a refused request is shown (a page of the portal's) is the router's to say: these take it
 * as a handler.
 */
const COOKIE = 'svc_portal';
const SECURE_COOKIE = '__Secure-svc_portal';

/** What every signed-in portal page knows (res.locals.portal). */
export interface PortalSession {
  program: BrandedProgram;
  partner: PartnerRow;
  session: PartnerSession;
  /** The path every link of the page starts with: `/p/<subdomain>`, or `/p/<subdomain>/embed/<token>` in an iframe. */
  base: string;
  embedded: boolean;
}

export const programOf = (res: Response): BrandedProgram => res.locals.program as BrandedProgram;
export const portalOf = (res: Response): PortalSession => res.locals.portal as PortalSession;

const cookieName = (req: Request) => (req.secure ? SECURE_COOKIE : COOKIE);
const cookieOptions = (req: Request, program: ProgramRow, expires: Date): CookieOptions => ({
  httpOnly: true,
  sameSite: 'lax',
  secure: req.secure,
  path: `/p/${program.subdomain}`,
  expires,
});

const TOKEN = /^[0-9A-Za-z]{20,100}$/;

export function portalCookieToken(req: Request): string | undefined {
  const value = parseCookies(req.get('cookie') ?? '')[cookieName(req)];
  return value && TOKEN.test(value) ? value : undefined;
}

export function setPortalCookie(req: Request, res: Response, program: ProgramRow, session: OpenedPartnerSession): void {
  res.cookie(cookieName(req), session.token, cookieOptions(req, program, session.expiresAt));
}

export function clearPortalCookie(req: Request, res: Response, program: ProgramRow): void {
  res.clearCookie(cookieName(req), { ...cookieOptions(req, program, new Date(0)), expires: undefined });
}

/**
 * The partner of a live session (the session's read checked they were not deleted); one deleted
 * since, between the two reads, is signed out like an ended session.
 */
async function signedInPartner(db: Db, session: PartnerSession | null): Promise<PartnerRow | undefined> {
  if (!session) return undefined;
  try {
    return await requirePartner(db, session.organization_id, session.partner_id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * The browser a signed-in partner uses, as a fingerprint of the program (never the address): the
 * self-referral rule finds a customer who signs up from it (ingest/docs/risk.md).
 */
function rememberBrowser(db: Db, req: Request, program: ProgramRow, partner: PartnerRow): Promise<void> {
  return rememberPortalBrowser(db, partner, visitorHash(program.risk_salt, req.ip ?? '', req.get('user-agent')));
}

/**
 * A cookie session of this program's portal into res.locals.portal; without one, GETs go to the
 * sign-in page and a form sent meanwhile gets `signedOut` (nothing it asked is done).
 */
export function requirePortalCookie(db: Db, signedOut: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    const program = programOf(res);
    const token = portalCookieToken(req);
    const session = token ? await readPartnerSession(db, token, program.id, 'cookie') : null;
    const partner = await signedInPartner(db, session);
    if (!session || !partner) {
      if (req.method === 'GET' || req.method === 'HEAD') return res.redirect(303, `/p/${program.subdomain}/sign-in`);
      return signedOut(req, res, next);
    }
    if (session.renewed) setPortalCookie(req, res, program, { token: token!, expiresAt: new Date(session.expires_at) });
    await rememberBrowser(db, req, program, partner);
    res.locals.portal = { program, partner, session, base: `/p/${program.subdomain}`, embedded: false } satisfies PortalSession;
    next();
  };
}

/** An embed token of this program in the URL (`:token`) into res.locals.portal; an unknown or expired one is a 401 page. */
export function requireEmbedToken(db: Db, expired: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    const program = programOf(res);
    const token = String(req.params.token ?? '');
    const session = TOKEN.test(token) ? await readPartnerSession(db, token, program.id, 'embed') : null;
    const partner = await signedInPartner(db, session);
    if (!session || !partner) return expired(req, res, next);
    await rememberBrowser(db, req, program, partner);
    res.locals.portal = {
      program,
      partner,
      session,
      base: `/p/${program.subdomain}/embed/${token}`,
      embedded: true,
    } satisfies PortalSession;
    next();
  };
}

/** CSRF: a state-changing request that does not come from a portal page of this session gets `stale` instead. */
export const checkPortalCsrf =
  (publicUrl: string, stale: RequestHandler): RequestHandler =>
  (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!fromThisOrigin(req, publicUrl) || !sameToken(req.body?._csrf, portalOf(res).session.csrf_token)) return stale(req, res, next);
    next();
  };
