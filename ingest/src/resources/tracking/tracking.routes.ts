import cors from 'cors';
import type express from 'express';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { jsonParser } from '../../http/json-body.js';
import { RATE_WINDOW_SECONDS, rateLimit } from '../../http/rate-limit.js';
import { LinkNotFoundResponse } from '../clicks/clicks.schema.js';
import { programsByPublicKey } from '../programs/program-cache.js';
import { setReferralCookies } from './referral-cookies.js';
import { isScriptPath } from './script-asset.js';
import { TrackClick, TrackClickResponse, TrackSignup, TrackSignupResponse, trackingDocs } from './tracking.schema.js';
import { type ClickTracking, trackClick, trackSignup, type Visitor } from './tracking.service.js';

// The script posts JSON as text/plain so that browsers send no preflight; both types are JSON here.
const jsonOrText = jsonParser(['application/json', 'text/plain']);
const openCors = cors({ origin: '*', methods: ['POST'], allowedHeaders: ['Content-Type'], maxAge: 86_400 });

/**
 * The endpoints merchants' pages load from their own origin: svc.js (both its URLs) and the
 * script's /v1/track/* requests, matched case-insensitively like Express's routing. They get
 * Cross-Origin-Resource-Policy cross-origin (http/security-headers.ts).
 */
export const isPublicEndpoint = (path: string): boolean => isScriptPath(path) || /^\/v1\/track\//i.test(path);

/** The script's endpoints: authenticated by the program's public key, open to every origin, limited per IP address. */
export function registerTrackingRoutes(api: ApiBuilder, { db, store, writeClick, config, mailer }: RouteDeps): void {
  const programs = programsByPublicKey(db, store);
  const tracking: ClickTracking = { store, write: writeClick, programs, botFilter: config.botFilter };
  const limiter = store.createRateLimiter({ name: 'track', points: config.trackRateLimit, windowSeconds: RATE_WINDOW_SECONDS });
  const guards = [openCors, rateLimit(limiter, RATE_WINDOW_SECONDS, (res) => res.req.ip ?? 'unknown'), jsonOrText];
  const common = { tag: 'Tracking script', security: 'public', guards, errors: [401, 404] } as const;
  const visitorOf = (req: express.Request): Visitor => ({
    ip: req.ip ?? '',
    userAgent: req.get('user-agent'),
    headerCountry: config.countryHeader ? req.get(config.countryHeader) : undefined,
  });

  for (const path of ['/v1/track/click', '/v1/track/signup']) api.router.options(path, openCors);

  api.route({
    ...common,
    method: 'post',
    path: '/v1/track/click',
    summary: 'Record a click from the tracking script',
    description: trackingDocs.click,
    body: TrackClick,
    status: 200,
    response: TrackClickResponse,
    errorBodies: { 404: LinkNotFoundResponse },
    handler: async ({ req, res, body }) => {
      const tracked = await trackClick(db, tracking, body, visitorOf(req));
      if (!tracked) return { success: true, data: null };
      const cookie = setReferralCookies(req, res, tracked.svcData, tracked.maxAge, body.cookie_domain);
      return { success: true, data: tracked.data, max_age: tracked.maxAge, cookie };
    },
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/track/signup',
    summary: 'Turn the visitor’s click into a lead (window.svc.signup)',
    description: trackingDocs.signup,
    body: TrackSignup,
    response: TrackSignupResponse,
    status: 201,
    errors: [401, 404, 409],
    handler: async ({ req, res, body }) => {
      const tracked = await trackSignup(db, programs, body, visitorOf(req), mailer.kick);
      const cookie = setReferralCookies(req, res, tracked.svcData, tracked.maxAge, body.cookie_domain);
      return { success: true, data: tracked.data, max_age: tracked.maxAge, cookie };
    },
  });
}
