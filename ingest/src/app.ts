import express from 'express';
import { pinoHttp } from 'pino-http';
import { dashboardRouter } from './dashboard/dashboard.routes.js';
import { pingDatabase } from './db/database.js';
import type { AppDeps, RouteDeps } from './deps.js';
import { ApiBuilder } from './http/api.js';
import { apiDocs } from './http/api-docs.js';
import { authenticateSecretKey, authOf } from './http/auth.js';
import { errorHandler, unknownRoute } from './http/error-handler.js';
import { idempotency } from './http/idempotency.js';
import { jsonBody } from './http/json-body.js';
import { parseQueryString } from './http/query-string.js';
import { RATE_WINDOW_SECONDS, rateLimit } from './http/rate-limit.js';
import { securityHeaders } from './http/security-headers.js';
import { untrustedProxyWarning } from './http/untrusted-proxy-warning.js';
import { portalRouter } from './portal/portal.routes.js';
import { registerApiKeyRoutes } from './resources/api-keys/api-keys.routes.js';
import { createClickWriter } from './resources/clicks/click-writer.js';
import { clickTestHooks, registerClickRoutes } from './resources/clicks/clicks.routes.js';
import { registerCommissionRoutes } from './resources/commissions/commissions.routes.js';
import { registerCustomerRoutes } from './resources/customers/customers.routes.js';
import { registerEventRoutes } from './resources/events/events.routes.js';
import { registerFlowRoutes } from './resources/flows/flows.routes.js';
import { registerGroupRoutes } from './resources/groups/groups.routes.js';
import { registerLinkRoutes } from './resources/links/links.routes.js';
import { partnerAccessTestHooks, registerPartnerAccessRoutes } from './resources/partner-access/partner-access.routes.js';
import { registerPartnerRoutes } from './resources/partners/partners.routes.js';
import { registerPayoutRoutes } from './resources/payouts/payouts.routes.js';
import { registerProgramRoutes } from './resources/programs/programs.routes.js';
import { registerPromotionCodeRoutes } from './resources/promotion-codes/promotion-codes.routes.js';
import { registerRiskRoutes } from './resources/risk/risk.routes.js';
import { registerStatsRoutes } from './resources/stats/stats.routes.js';
import { registerStripeRoutes } from './resources/stripe/stripe.routes.js';
import { SCRIPT_PATHS, serveScript } from './resources/tracking/script-asset.js';
import { isPublicEndpoint, registerTrackingRoutes } from './resources/tracking/tracking.routes.js';
import { registerTransactionRoutes } from './resources/transactions/transactions.routes.js';
import { registerWebhookEndpointRoutes } from './resources/webhook-endpoints/webhook-endpoints.routes.js';
import { withTimeout } from './with-timeout.js';

const READY_TIMEOUT_MS = 2000;

/** Builds the Express app from its dependencies; it opens nothing and listens nowhere. */
export function createApp(deps: AppDeps): express.Express {
  const { db, store, config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // API answers are not revalidated by clients: hashing every body for an ETag is wasted work.
  app.set('etag', false);
  app.set('query parser', parseQueryString);
  app.set('trust proxy', config.trustProxy);
  // Before everything else, so that every response is timed: refusals and 404s included.
  if (deps.metrics) app.use(deps.metrics.httpRequests);
  app.use(untrustedProxyWarning(logger));
  // First, so that every response carries them: errors, 404s and early refusals included.
  app.use(securityHeaders(isPublicEndpoint));
  // Access lines are debug-level: below that level the per-request logger is not even built.
  // Unhandled errors are logged by the error handler at any level.
  if (logger.isLevelEnabled('debug')) {
    app.use(
      pinoHttp({ logger, quietReqLogger: true, customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'debug') }),
    );
  }

  app.get('/healthz', (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });
  // Ready means SQL answers: it is the system of record. A shared store that is down is
  // reported but keeps the process ready, since every request has a fallback for it; taking
  // every process out of a load balancer for it would turn a degraded service into an outage.
  app.get('/readyz', async (_req, res) => {
    const checks = await Promise.allSettled([withTimeout(pingDatabase(db), READY_TIMEOUT_MS), withTimeout(store.ping(), READY_TIMEOUT_MS)]);
    const [sqlCheck, storeCheck] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
    const ready = sqlCheck === 'ok';
    res.status(ready ? 200 : 503).json({ success: ready, data: { sql: sqlCheck, shared_state: storeCheck } });
  });

  const apiLimiter = store.createRateLimiter({ name: 'api', points: config.apiRateLimit, windowSeconds: RATE_WINDOW_SECONDS });
  const routeDeps: RouteDeps = {
    ...deps,
    writeClick: createClickWriter(db, deps.metrics?.clicksCommitted),
    secretGuards: [
      authenticateSecretKey(db, store, config.authFailureLimit),
      rateLimit(apiLimiter, RATE_WINDOW_SECONDS, (res) => authOf(res).apiKeyId),
      jsonBody,
      idempotency(db, logger, (res) => authOf(res).organizationId),
    ],
  };

  const api = new ApiBuilder();
  // The router tries routes in order: the script's endpoints, the busiest, come first.
  registerTrackingRoutes(api, routeDeps);
  registerApiKeyRoutes(api, routeDeps);
  registerProgramRoutes(api, routeDeps);
  registerGroupRoutes(api, routeDeps);
  registerRiskRoutes(api, routeDeps);
  registerPartnerRoutes(api, routeDeps);
  registerLinkRoutes(api, routeDeps);
  registerClickRoutes(api, routeDeps);
  registerPromotionCodeRoutes(api, routeDeps);
  registerCustomerRoutes(api, routeDeps);
  registerFlowRoutes(api, routeDeps);
  registerTransactionRoutes(api, routeDeps);
  registerCommissionRoutes(api, routeDeps);
  registerPayoutRoutes(api, routeDeps);
  registerStatsRoutes(api, routeDeps);
  registerPartnerAccessRoutes(api, routeDeps);
  registerStripeRoutes(api, routeDeps);
  registerWebhookEndpointRoutes(api, routeDeps);
  registerEventRoutes(api, routeDeps);

  let openApi: object | undefined;
  app.get('/v1/openapi.json', (_req, res) => {
    openApi ??= api.openApiDocument();
    res.json(openApi);
  });
  app.get(SCRIPT_PATHS, serveScript());
  app.use('/docs', apiDocs());
  app.use('/dashboard', dashboardRouter(deps));
  app.use('/p', portalRouter(deps));
  app.use(api.router);
  if (config.testHooks) {
    // For the browser tests (e2e/) only: outside /v1, without an API key, not in the OpenAPI document.
    app.use('/__test', clickTestHooks(db), partnerAccessTestHooks(db));
    logger.warn(
      'test hooks on (SVC_TEST_HOOKS=1): POST /__test/clicks/:id/age and /__test/partners/:id/expire-access change records without an API key; never in production',
    );
  }
  app.use(unknownRoute);
  app.use(errorHandler(logger));
  return app;
}
