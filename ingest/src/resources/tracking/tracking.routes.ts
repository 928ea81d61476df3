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
import { TrackClick, TrackClickResponse, TrackSignup, TrackSignupResponse } from './tracking.schema.js';
import { isBotVisitor, programByPublicKey, trackClick, trackSignup, type Visitor } from './tracking.service.js';

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
export function registerTrackingRoutes(api: ApiBuilder, { db, store, writeClick, config }: RouteDeps): void {
  const programs = programsByPublicKey(db, store);
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
    description:
      "Authenticated by `key`, the program's public key. Accepts JSON sent as `text/plain`. A repeat by the same visitor on the same link within an hour returns the same click. With `attribution_model: first_click` a visitor whose `click_id` is still within the cookie duration keeps it (the new click is still recorded). Bots (by User-Agent) get `data: null` and nothing is recorded. When called same-origin (the merchant proxies the API), the response also sets the `svc_data` and `svc_ref` cookies.",
    body: TrackClick,
    status: 200,
    response: TrackClickResponse,
    errorBodies: { 404: LinkNotFoundResponse },
    handler: async ({ req, res, body }) => {
      const program = await programByPublicKey(programs, body.key);
      const visitor = visitorOf(req);
      if (config.botFilter && isBotVisitor(visitor)) return { success: true, data: null };
      const { data, maxAge } = await trackClick(db, store, writeClick, program, body, visitor);
      const cookie = setReferralCookies(req, res, data, maxAge, body.cookie_domain);
      return { success: true, data, max_age: maxAge, cookie };
    },
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/track/signup',
    summary: 'Turn the visitor’s click into a lead (window.svc.signup)',
    description:
      'Creates a customer (status lead) attributed to the click’s partner, with the given identifier (also its e-mail when it is one). A taken identifier → 409 `Customer already exists`.',
    body: TrackSignup,
    response: TrackSignupResponse,
    status: 201,
    errors: [401, 404, 409],
    handler: async ({ req, res, body }) => {
      const program = await programByPublicKey(programs, body.key);
      const { data, maxAge } = await trackSignup(db, program, body);
      const svcData = {
        click_id: data.click_id,
        cookie_duration: program.cookie_duration,
        partner_id: data.partner_id,
        program_id: program.id,
        customer_id: data.customer_id,
      };
      const cookie = setReferralCookies(req, res, svcData, maxAge, body.cookie_domain);
      return { success: true, data, max_age: maxAge, cookie };
    },
  });
}
