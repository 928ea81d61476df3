import express, { type RequestHandler } from 'express';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { badRequest } from '../../http/errors.js';
import { fromDecompression } from '../../http/json-body.js';
import { RATE_WINDOW_SECONDS, rateLimit } from '../../http/rate-limit.js';
import { deletedResponse, listResponse, oneResponse } from '../../http/responses.js';
import { cachedFlows } from '../flows/flow-cache.js';
import {
  StripeConnect,
  StripeEventListQuery,
  StripeEventRecord,
  StripeIntegration,
  StripeWebhookReceipt,
  stripeDocs,
} from './stripe.schema.js';
import { connectStripe, disconnectStripe, listStripeEvents, retrieveStripeIntegration } from './stripe.service.js';
import { receiveStripeEvent } from './stripe-webhook.js';

/** Stripe's events can be larger than the API's 100 KB bodies (an invoice with many lines). */
const WEBHOOK_BODY_LIMIT = '1mb';

/**
 * The signature covers the exact bytes Stripe sent, so the body is kept raw and handed over in
 * `res.locals.rawBody`, never parsed by the JSON parser. Stripe sends JSON; another
 * Content-Type is refused as on every other endpoint.
 */
const rawBody: RequestHandler = (req, res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const charset = /;\s*charset="?([^";]+)/i.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
  if (hasBody && (!req.is('application/json') || (charset && charset !== 'utf-8'))) {
    throw badRequest('Stripe events are UTF-8 JSON, sent with Content-Type: application/json');
  }
  express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT })(req, res, (err?: unknown) => {
    if (err) return next(fromDecompression(err));
    res.locals.rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    req.body = undefined;
    next();
  });
};

/** Where this server is reached, as the caller reached it (behind a proxy: as `trust proxy` allows). */

export function registerStripeRoutes(api: ApiBuilder, { db, store, config, mailer, metrics, secretGuards }: RouteDeps): void {
  const flowsOf = cachedFlows(db, store);
  // Unauthenticated until the signature is checked: limited per address, as the script's endpoints are.
  const webhookLimiter = store.createRateLimiter({
    name: 'stripe-webhook',
    points: config.stripeRateLimit,
    windowSeconds: RATE_WINDOW_SECONDS,
  });
  const common = { tag: 'Stripe', security: 'secret', guards: secretGuards, errors: [404] } as const;
  const path = '/v1/programs/:id/integrations/stripe';

  api.route({
    ...common,
    method: 'put',
    path,
    summary: 'Connect Stripe to a program, or change its options',
    description: stripeDocs.connect,
    body: StripeConnect,
    status: 200,
    response: oneResponse(StripeIntegration),
    handler: async ({ res, params, body }) =>
      envelope.one(await connectStripe(db, authOf(res).organizationId, params.id, body, config.publicUrl)),
  });

  api.route({
    ...common,
    method: 'get',
    path,
    summary: 'Retrieve the Stripe connection of a program',
    description: stripeDocs.retrieve,
    status: 200,
    response: oneResponse(StripeIntegration),
    handler: async ({ res, params }) =>
      envelope.one(await retrieveStripeIntegration(db, authOf(res).organizationId, params.id, config.publicUrl)),
  });

  api.route({
    ...common,
    method: 'delete',
    path,
    summary: 'Disconnect Stripe from a program',
    description: stripeDocs.disconnect,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await disconnectStripe(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: `${path}/events`,
    summary: 'List the Stripe events a program received',
    description: stripeDocs.events,
    query: StripeEventListQuery,
    status: 200,
    response: listResponse(StripeEventRecord),
    handler: async ({ res, params, query }) =>
      envelope.list(await listStripeEvents(db, authOf(res).organizationId, params.id, query), (e) => e),
  });

  api.route({
    method: 'post',
    path: '/v1/integrations/stripe/webhook/:program_id',
    tag: 'Stripe',
    summary: 'Receive a Stripe event (the URL to give Stripe)',
    description: stripeDocs.webhook,
    security: 'public',
    guards: [rateLimit(webhookLimiter, RATE_WINDOW_SECONDS, (res) => res.req.ip ?? 'unknown'), rawBody],
    status: 200,
    response: oneResponse(StripeWebhookReceipt),
    errors: [404, 429, 503],
    handler: async ({ req, res, params }) => {
      const receipt = await receiveStripeEvent(db, flowsOf, params.program_id, res.locals.rawBody, req.get('stripe-signature'), {
        onEmailQueued: mailer.kick,
        onFault: () => metrics?.stripeEventHandled('fault', false),
      });
      metrics?.stripeEventHandled(receipt.status, receipt.duplicate);
      return envelope.one(receipt);
    },
  });
}
