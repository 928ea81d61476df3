import express, { type Request, type Response, type Router } from 'express';
import helmet from 'helmet';
import type { AppDeps } from '../deps.js';
import { toApiError } from '../http/error-handler.js';
import { ApiError } from '../http/errors.js';
import { trustedDevices } from '../http/trusted-devices.js';
import { serveAsset } from '../pages/assets.js';
import { fromThisOrigin } from '../pages/form-origin.js';
import { pagePolicy, sendPage } from '../pages/render.js';
import { partnersAwaitingReview } from '../resources/partners/partners.service.js';
import { listPrograms } from '../resources/programs/programs.service.js';
import { openRiskEventCount } from '../resources/risk/risk.service.js';
import { checkCredentials, closeSession, openSession } from '../resources/users/users.service.js';
import type { RateLimiter } from '../store/index.js';
import { type ContextOf, type PageContext, programPath, type Section } from './context.js';
import { registerExportRoutes } from './exports.routes.js';
import { ErrorPage } from './layout.js';
import { commissionNotices, registerCommissionPages } from './pages/commissions.js';
import { customerNotices, registerCustomersPages } from './pages/customers.js';
import { integrationNotices, registerIntegrationPages } from './pages/integrations.js';
import { registerStripePages, stripeNotices } from './pages/integrations-stripe.js';
import { registerWebhookPages, webhookNotices } from './pages/integrations-webhooks.js';
import { registerOverviewPages } from './pages/overview.js';
import { partnerNotices, registerPartnerPages } from './pages/partners.js';
import { payoutNotices, registerPayoutsPages } from './pages/payouts.js';
import { registerRiskPages, riskNotices } from './pages/risk.js';
import { registerSettingsPages, settingsNotices } from './pages/settings.js';
import { BRANDING_PATH, brandingFormBody, brandingNotices, registerBrandingPages } from './pages/settings-branding.js';
import { codeNotices, registerCodePages } from './pages/settings-codes.js';
import { flowNotices, registerFlowPages } from './pages/settings-flows.js';
import { groupNotices, registerGroupPages } from './pages/settings-groups.js';
import { registerRiskRulePages, riskRuleNotices } from './pages/settings-risk.js';
import { SignInPage } from './pages/sign-in.js';
import { registerTransactionsPages, transactionNotices } from './pages/transactions.js';
import {
  checkCsrf,
  clearSessionCookie,
  DashboardForbidden,
  requireSignIn,
  StaleForm,
  sessionToken,
  setSessionCookie,
  userOf,
} from './session-auth.js';

/**
 * The dashboard's own policy: everything from this origin only, no inline script or style, and
 * never in a frame (ingest/docs/dashboard.md). Replaces the API's `default-src 'none'`.
 */
const dashboardHeaders = helmet({
  contentSecurityPolicy: pagePolicy(["'none'"]),
  xFrameOptions: { action: 'deny' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  referrerPolicy: { policy: 'same-origin' },
});

/**
 * The confirmations a form's redirect may show (`?notice=code`), each page's own: a code, never
 * text, so that a crafted link cannot put words on the page.
 */
const NOTICES: Record<string, string> = {
  ...partnerNotices,
  ...customerNotices,
  ...transactionNotices,
  ...commissionNotices,
  ...payoutNotices,
  ...riskNotices,
  ...settingsNotices,
  ...flowNotices,
  ...groupNotices,
  ...codeNotices,
  ...brandingNotices,
  ...riskRuleNotices,
  ...integrationNotices,
  ...stripeNotices,
  ...webhookNotices,
};

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** Failed sign-in attempts allowed per e-mail address, per client address, and per browser that signed in before, in SIGN_IN_WINDOW_SECONDS. */
export const SIGN_IN_LIMITS = { email: 10, client: 100, device: 10 };

/** Where a signed-in user lands after signing in: a dashboard path only, never another site. */
const safeNext = (next: unknown) =>
  typeof next === 'string' && /^\/dashboard(\/[^\\]*)?$/.test(next) && !next.startsWith('//') ? next : '/dashboard';

export function dashboardRouter(deps: AppDeps): Router {
  const { db, store, logger } = deps;
  const router = express.Router();
  router.use(dashboardHeaders);
  router.get('/assets/:name', serveAsset);
  router.use(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 2000 }));
  // The one multipart form (the portal's logo) is read here, so that the CSRF check below finds its _csrf.
  router.post(BRANDING_PATH, brandingFormBody);

  const perEmail = store.createRateLimiter({ name: 'sign-in-email', points: SIGN_IN_LIMITS.email, windowSeconds: SIGN_IN_WINDOW_SECONDS });
  const perClient = store.createRateLimiter({
    name: 'sign-in-client',
    points: SIGN_IN_LIMITS.client,
    windowSeconds: SIGN_IN_WINDOW_SECONDS,
  });
  const perDevice = store.createRateLimiter({
    name: 'sign-in-device',
    points: SIGN_IN_LIMITS.device,
    windowSeconds: SIGN_IN_WINDOW_SECONDS,
  });
  const devices = trustedDevices(store, 'dashboard');

  router.get('/sign-in', (req, res) => {
    sendPage(res, <SignInPage next={typeof req.query.next === 'string' ? safeNext(req.query.next) : undefined} />);
  });

  router.post('/sign-in', async (req, res) => {
    const email = typeof req.body?.email === 'string' ? req.body.email.trim().slice(0, 254) : '';
    const password = typeof req.body?.password === 'string' ? req.body.password.slice(0, 1000) : '';
    const next = safeNext(req.body?.next);
    const again = (status: number, error: string) => sendPage(res, <SignInPage email={email} error={error} next={next} />, status);
    if (!fromThisOrigin(req, deps.config.publicUrl)) return again(403, 'This sign-in form was sent from another site.');
    if (!email || !password) return again(400, 'Enter your e-mail and password.');
    // Every attempt takes a point before the password is checked (so that parallel guesses cannot
    // all pass a check made before any of them failed), and a success gives it back: only failures
    // count, and a right password is never held back by others' failures elsewhere. A browser that
    // signed in before is counted on its own (ingest/docs/api.md#shared-addresses): others'
    // failures at its address do not stop it, nor others' failures on its own account.
    const emailKey = email.toLowerCase();
    const device = await devices.recognize(req);
    const counted: [RateLimiter, string][] = device
      ? [[perDevice, device.key], ...(device.identity === emailKey ? [] : [[perEmail, emailKey] as [RateLimiter, string]])]
      : [
          [perEmail, emailKey],
          [perClient, req.ip ?? ''],
        ];
    const decisions = await Promise.all(counted.map(([limiter, key]) => limiter.consume(key)));
    const refused = decisions.filter((d) => !d.allowed);
    if (refused.length > 0) {
      const minutes = Math.max(1, Math.ceil(Math.max(...refused.map((d) => d.resetMs)) / 60_000));
      res.set('Retry-After', String(minutes * 60));
      return again(429, `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    const user = await checkCredentials(db, email, password);
    if (!user) return again(401, 'That e-mail and password do not match an account.');
    await Promise.all(counted.map(([limiter, key]) => limiter.refund(key)));
    setSessionCookie(req, res, await openSession(db, user.id));
    await devices.remember(req, res, device, emailKey, '/dashboard');
    res.redirect(303, next);
  });

  const signedIn = express.Router();
  signedIn.use(requireSignIn(db), checkCsrf(deps.config.publicUrl));

  signedIn.post('/sign-out', async (req, res) => {
    const token = sessionToken(req);
    if (token) await closeSession(db, token);
    clearSessionCookie(req, res);
    res.redirect(303, '/dashboard/sign-in');
  });

  async function pageContext(res: Response, section: Section | null, programId?: string): Promise<PageContext> {
    const user = userOf(res);
    // A program's page counts its partners awaiting review and its open risk events for the
    // navigation, one query each beside the programs' (ingest/docs/dashboard.md#pending-partners-in-the-navigation,
    // ingest/docs/dashboard.md#risk).
    const [{ rows: programs }, pendingPartners, openRiskEvents] = await Promise.all([
      listPrograms(db, user.organization_id, { limit: 100, order: 'asc' }),
      programId === undefined ? undefined : partnersAwaitingReview(db, user.organization_id),
      programId === undefined ? undefined : openRiskEventCount(db, user.organization_id, programId),
    ]);
    // A page of the organization (integrations) keeps the first program's links in the header.
    const program = programId === undefined ? (programs[0] ?? null) : (programs.find((p) => p.id === programId) ?? null);
    if (programId !== undefined && !program) throw notFoundPage();
    const code = res.req.query.notice;
    const notice = typeof code === 'string' && Object.hasOwn(NOTICES, code) ? NOTICES[code] : null;
    return { user, programs, program, section, notice, publicUrl: deps.config.publicUrl, pendingPartners, openRiskEvents };
  }
  const contextOf = pageContext as ContextOf;

  signedIn.get('/', async (req: Request, res) => {
    const ctx = await contextOf(res, null);
    const wanted = ctx.programs.find((p) => p.id === req.query.program) ?? ctx.programs[0];
    res.redirect(303, wanted ? programPath(wanted) : '/dashboard/integrations');
  });

  registerExportRoutes(signedIn, deps, contextOf);
  registerOverviewPages(signedIn, deps, contextOf);
  registerPartnerPages(signedIn, deps, contextOf);
  registerCustomersPages(signedIn, deps, contextOf);
  registerTransactionsPages(signedIn, deps, contextOf);
  registerCommissionPages(signedIn, deps, contextOf);
  registerPayoutsPages(signedIn, deps, contextOf);
  registerRiskPages(signedIn, deps, contextOf);
  registerSettingsPages(signedIn, deps, contextOf);
  registerFlowPages(signedIn, deps, contextOf);
  registerGroupPages(signedIn, deps, contextOf);
  registerCodePages(signedIn, deps, contextOf);
  registerBrandingPages(signedIn, deps, contextOf);
  registerRiskRulePages(signedIn, deps, contextOf);
  registerIntegrationPages(signedIn, deps, contextOf);
  registerStripePages(signedIn, deps, contextOf);
  registerWebhookPages(signedIn, deps, contextOf);

  router.use(signedIn);
  router.use(() => {
    throw notFoundPage();
  });
  router.use((err: unknown, req: Request, res: Response, next: (err?: unknown) => void) => {
    if (res.headersSent) return next(err);
    if (err instanceof DashboardForbidden) return sendPage(res, <ErrorPage status={403} message={err.message} />, 403);
    if (err instanceof StaleForm) return sendPage(res, <ErrorPage status={err.status} message={err.message} stale />, err.status);
    const apiError = toApiError(err, req, logger);
    if (apiError.options.headers) res.set(apiError.options.headers);
    sendPage(res, <ErrorPage status={apiError.status} message={apiError.message} />, apiError.status);
  });
  return router;
}

/** The same 404 for a page that does not exist and for an id of another organization. */
function notFoundPage(): ApiError {
  return new ApiError('not_found_error', 'There is no such page in your organization.');
}
