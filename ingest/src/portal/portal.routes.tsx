import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import helmet from 'helmet';
import type { AppDeps } from '../deps.js';
import { toApiError } from '../http/error-handler.js';
import { trustedDevices } from '../http/trusted-devices.js';
import { fromThisOrigin } from '../pages/form-origin.js';
import { orRefused } from '../pages/refusal.js';
import { pagePolicy, sendPage } from '../pages/render.js';
import {
  closePartnerSession,
  portalProgram,
  readPartnerSession,
  redeemSignInLink,
  SIGN_IN_LINK_MINUTES,
  sendSignInLink,
  signInLinkUsable,
} from '../resources/partner-access/partner-access.service.js';
import { signUpPartner } from '../resources/partner-access/portal-sign-up.js';
import { registerBrandAssets } from './brand-assets.js';
import { notFoundPage, type PortalContextOf } from './context.js';
import { PortalErrorPage } from './layout.js';
import { homeNotices, registerHomePages } from './pages/home.js';
import { HONEYPOT, JOIN_LABELS, JoinedPage, JoinPage } from './pages/join.js';
import { referralsNotices, registerReferralsPages } from './pages/referrals.js';
import { registerSettingsPages, settingsNotices } from './pages/settings.js';
import { CheckEmailPage, LinkUsedPage, SignInPage, UseLinkPage } from './pages/sign-in.js';
import { StatusPage } from './pages/status.js';
import {
  checkPortalCsrf,
  clearPortalCookie,
  portalCookieToken,
  portalOf,
  programOf,
  requireEmbedToken,
  requirePortalCookie,
  setPortalCookie,
} from './portal-auth.js';

/**
 * The partner portal at `/p/:subdomain` (ingest/docs/partner-portal.md): sign-up, sign-in by e-mail
 * link, and the partner's own pages, in a browser tab (cookie session) or in the merchant's app
 * (`/p/:subdomain/embed/:token/…`, an embed token from the API).
 */
const common = {
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  crossOriginResourcePolicy: { policy: 'same-origin' as const },
  // Embed pages carry their token in the URL: no page of the portal tells another site its address.
  referrerPolicy: { policy: 'no-referrer' as const },
};
/** The portal in a tab: never in a frame. */
const portalHeaders = helmet({ ...common, contentSecurityPolicy: pagePolicy(["'none'"]), xFrameOptions: { action: 'deny' } });
/**
 * The embedded portal: any site may frame it, since only the merchant's server can make its token
 * (the service-wide X-Frame-Options: DENY is taken off; CSP's frame-ancestors is what browsers obey).
 */
const embedPolicy = helmet({ ...common, contentSecurityPolicy: pagePolicy(['*']), xFrameOptions: false });
const embedHeaders: RequestHandler = (req, res, next) => {
  res.removeHeader('X-Frame-Options');
  embedPolicy(req, res, next);
};

const NOTICES: Record<string, string> = { ...homeNotices, ...referralsNotices, ...settingsNotices };

export const PORTAL_WINDOW_SECONDS = 15 * 60;
/**
 * In PORTAL_WINDOW_SECONDS: sign-in links asked for per e-mail address, per client address, and per
 * browser that signed in to the program before (counted instead of its address); sign-ups per
 * client address and program. What each lets an attacker at a shared address deny is in the
 * ingest/docs/api.md#shared-addresses.
 */
export const PORTAL_LIMITS = { linkPerEmail: 5, linkPerClient: 100, linkPerDevice: 20, joinPerClient: 10 };

const contextOf: PortalContextOf = (res, section) => {
  const code = res.req.query.notice;
  const notice = typeof code === 'string' && Object.hasOwn(NOTICES, code) ? NOTICES[code] : null;
  return { ...portalOf(res), section, notice };
};

/**
 * The page a signed-in form is drawn on, to send it again from: forms post to their page's own
 * path (ingest/README.md#how-to-add-a-dashboard-or-portal-page), but for the first link's and
 * sign-out's, which are on home (sign-out on every page: home is one).
 */
const formPage = (path: string) => (path === '/links' || path === '/sign-out' ? '/' : path);

/**
 * A form that did not come from a page of this portal session (a tab left open from an earlier
 * session, another site, an address svc is no longer at): 403 and nothing done, with the page to
 * send it again from.
 */
function sendStaleForm(res: Response, formAt: string): void {
  sendPage(
    res,
    <PortalErrorPage
      program={programOf(res)}
      status={403}
      stale
      message="It was opened in an earlier session or sent from another site, so nothing was saved. Open the page again and send the form from there."
      back={{ href: formAt, label: 'Open the page again' }}
    />,
    403,
  );
}
const staleForm: RequestHandler = (req, res) => sendStaleForm(res, `${portalOf(res).base}${formPage(req.path)}`);

/** A form sent after the cookie session ended: 401 and nothing done, with the way to sign in again. */
const signedOut: RequestHandler = (_req, res) => {
  const program = programOf(res);
  sendPage(
    res,
    <PortalErrorPage
      program={program}
      status={401}
      message="Your session has ended, so nothing was saved. Sign in again, then send the form once more."
      back={{ href: `/p/${program.subdomain}/sign-in`, label: 'Sign in again' }}
    />,
    401,
  );
};

export function portalRouter(deps: AppDeps): Router {
  const { db, store, mailer, logger } = deps;
  const router = express.Router();
  const portal = express.Router({ mergeParams: true });

  const loadProgram: RequestHandler = async (req, res, next) => {
    const program = await portalProgram(db, String(req.params.subdomain));
    if (!program) throw notFoundPage();
    res.locals.program = program;
    next();
  };
  router.use(express.urlencoded({ extended: false, limit: '50kb', parameterLimit: 200 }));
  router.use('/:subdomain', loadProgram, portal);

  const limiter = (name: string, points: number) => store.createRateLimiter({ name, points, windowSeconds: PORTAL_WINDOW_SECONDS });
  const linkPerEmail = limiter('portal-link-email', PORTAL_LIMITS.linkPerEmail);
  const linkPerClient = limiter('portal-link-client', PORTAL_LIMITS.linkPerClient);
  const linkPerDevice = limiter('portal-link-device', PORTAL_LIMITS.linkPerDevice);
  const devices = trustedDevices(store, 'portal');
  const joinPerClient = limiter('portal-join-client', PORTAL_LIMITS.joinPerClient);
  /**
   * True when every limiter lets the request go on; else 429 with Retry-After and a page that says
   * what was refused (`tooMany`) and when to try again, with a link back to the form.
   */
  async function allowed(
    res: Response,
    checks: Promise<{ allowed: boolean; resetMs: number }>[],
    tooMany: string,
    back: { href: string; label: string },
  ) {
    const refused = (await Promise.all(checks)).filter((d) => !d.allowed);
    if (refused.length === 0) return true;
    const minutes = Math.max(1, Math.ceil(Math.max(...refused.map((d) => d.resetMs)) / 60_000));
    res.set('Retry-After', String(minutes * 60));
    const when = `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
    sendPage(res, <PortalErrorPage program={programOf(res)} status={429} message={`${tooMany} ${when}`} back={back} />, 429);
    return false;
  }

  // The partner's own pages, the same in a tab and in an iframe.
  const partnerPages = express.Router({ mergeParams: true });
  partnerPages.use((req, res, next) => {
    if (portalOf(res).partner.status === 'active') return next();
    if (req.method === 'GET' || req.method === 'HEAD') return sendPage(res, <StatusPage ctx={contextOf(res, null)} />);
    res.status(403);
    throw new PortalForbidden('Only active partners can do that.');
  });
  registerHomePages(partnerPages, deps, contextOf);
  registerReferralsPages(partnerPages, deps, contextOf);
  registerSettingsPages(partnerPages, deps, contextOf);

  // The program's logo and colors, for its pages (in a tab or embedded) and its e-mails.
  registerBrandAssets(portal, deps);

  const embedExpired: RequestHandler = (_req, res) =>
    sendPage(
      res,
      <PortalErrorPage
        program={programOf(res)}
        status={401}
        message="This view has expired. Reload the page of the app it is shown in to open it again."
      />,
      401,
    );
  const csrf = checkPortalCsrf(deps.config.publicUrl, staleForm);
  portal.use('/embed/:token', embedHeaders, requireEmbedToken(db, embedExpired), csrf, partnerPages);

  portal.use(portalHeaders);

  portal.get('/join', (_req, res) => {
    const program = programOf(res);
    sendPage(res, <JoinPage program={program} />, program.type === 'public' ? 200 : 403);
  });

  portal.post('/join', async (req, res) => {
    const program = programOf(res);
    const joinAt = `/p/${program.subdomain}/join`;
    if (program.type !== 'public') return sendPage(res, <JoinPage program={program} />, 403);
    if (!fromThisOrigin(req, deps.config.publicUrl)) return sendStaleForm(res, joinAt);
    const fromHere = joinPerClient.consume(`${program.id}:${req.ip ?? ''}`);
    const back = { href: joinAt, label: 'Back to the form' };
    if (!(await allowed(res, [fromHere], 'Too many sign-ups were sent from this network.', back))) return;
    // A bot fills the hidden field: it is told what a person would be, and nothing is made.
    if (typeof req.body?.[HONEYPOT] === 'string' && req.body[HONEYPOT] !== '') {
      logger.info({ program_id: program.id }, 'portal sign-up refused: the hidden field was filled');
      return sendPage(res, <JoinedPage program={program} outcome="applied" />);
    }
    const values = Object.fromEntries(
      Object.entries(req.body ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== HONEYPOT),
    );
    await orRefused(
      async () => {
        const outcome = await signUpPartner(db, store, program, values, deps.config.publicUrl);
        mailer.kick();
        // An address that is a partner already is answered like a new application: the page tells no one who is a partner.
        sendPage(
          res,
          <JoinedPage
            program={program}
            outcome={outcome === 'already-a-partner' ? (program.auto_approve_partners ? 'approved' : 'applied') : outcome}
          />,
        );
      },
      JOIN_LABELS,
      (refusal) => sendPage(res, <JoinPage program={program} values={values} refusal={refusal} />, refusal.status),
    );
  });

  portal.get('/sign-in', async (req, res) => {
    const program = programOf(res);
    // Signed in already (a live session, not just a cookie: an ended one would send the
    // partner back and forth): straight to the portal.
    const token = portalCookieToken(req);
    if (token && (await readPartnerSession(db, token, program.id, 'cookie'))) return res.redirect(303, `/p/${program.subdomain}/`);
    sendPage(res, <SignInPage program={program} />);
  });

  portal.post('/sign-in', async (req, res) => {
    const program = programOf(res);
    const signInAt = `/p/${program.subdomain}/sign-in`;
    const email = typeof req.body?.email === 'string' ? req.body.email.trim().slice(0, 254) : '';
    if (!fromThisOrigin(req, deps.config.publicUrl)) return sendStaleForm(res, signInAt);
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      const refusal = { field: 'email', message: 'Enter the e-mail address you joined with, like name@example.com.', status: 400 };
      return sendPage(res, <SignInPage program={program} email={email} refusal={refusal} />, 400);
    }
    // A browser that signed in to this program before is counted on its own, not with its address.
    const device = await devices.recognize(req);
    const fromHere = device?.identity === program.id ? linkPerDevice.consume(device.key) : linkPerClient.consume(req.ip ?? '');
    const tooMany = `Too many sign-in links were asked for this address or from this network. A link already sent works for ${SIGN_IN_LINK_MINUTES} minutes.`;
    const back = { href: signInAt, label: 'Back to sign-in' };
    if (!(await allowed(res, [linkPerEmail.consume(email.toLowerCase()), fromHere], tooMany, back))) return;
    if (await sendSignInLink(db, program, email, deps.config.publicUrl)) mailer.kick();
    sendPage(res, <CheckEmailPage program={program} />);
  });

  portal.get('/sign-in/:token', async (req, res) => {
    const program = programOf(res);
    const token = String(req.params.token);
    if (!(await signInLinkUsable(db, program.id, token))) return sendPage(res, <LinkUsedPage program={program} />, 410);
    sendPage(res, <UseLinkPage program={program} token={token} />);
  });

  portal.post('/sign-in/:token', async (req, res) => {
    const program = programOf(res);
    if (!fromThisOrigin(req, deps.config.publicUrl)) return sendPage(res, <LinkUsedPage program={program} />, 403);
    const session = await redeemSignInLink(db, program.id, String(req.params.token));
    if (!session) return sendPage(res, <LinkUsedPage program={program} />, 410);
    setPortalCookie(req, res, program, session);
    await devices.remember(req, res, await devices.recognize(req), program.id, `/p/${program.subdomain}`);
    res.redirect(303, `/p/${program.subdomain}/`);
  });

  const signedIn = express.Router({ mergeParams: true });
  signedIn.use(requirePortalCookie(db, signedOut), csrf);
  signedIn.post('/sign-out', async (req, res) => {
    const program = programOf(res);
    const token = portalCookieToken(req);
    if (token) await closePartnerSession(db, token);
    clearPortalCookie(req, res, program);
    res.redirect(303, `/p/${program.subdomain}/sign-in`);
  });
  signedIn.use(partnerPages);
  portal.use(signedIn);

  router.use(() => {
    throw notFoundPage();
  });
  router.use((err: unknown, req: Request, res: Response, next: (err?: unknown) => void) => {
    if (res.headersSent) return next(err);
    if (!res.get('Content-Security-Policy')) portalHeaders(req, res, () => undefined);
    const program = res.locals.program ? programOf(res) : undefined;
    const back = res.locals.portal ? { href: `${portalOf(res).base}/`, label: 'Back to the portal' } : undefined;
    if (err instanceof PortalForbidden)
      return sendPage(res, <PortalErrorPage program={program} status={403} message={err.message} back={back} />, 403);
    const apiError = toApiError(err, req, logger);
    if (apiError.options.headers) res.set(apiError.options.headers);
    sendPage(res, <PortalErrorPage program={program} status={apiError.status} message={apiError.message} back={back} />, apiError.status);
  });
  return router;
}

class PortalForbidden extends Error {}
