import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { listResponse, oneResponse } from '../../http/responses.js';
import { WebhookDelivery } from '../webhook-endpoints/webhook-endpoints.schema.js';
import { resendEvent } from '../webhook-endpoints/webhook-endpoints.service.js';
import { Event, EventListQuery, EventResend, eventDocs } from './events.schema.js';
import { listEvents, retrieveEvent } from './events.service.js';

export function registerEventRoutes(api: ApiBuilder, { db, webhooks, secretGuards }: RouteDeps): void {
  const common = { tag: 'Events', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'get',
    path: '/v1/events',
    summary: 'List events',
    description: eventDocs.list,
    query: EventListQuery,
    status: 200,
    response: listResponse(Event),
    handler: async ({ res, query }) => envelope.list(await listEvents(db, authOf(res).organizationId, query), (e) => e),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/events/:id',
    summary: 'Retrieve an event',
    description: eventDocs.retrieve,
    status: 200,
    response: oneResponse(Event),
    handler: async ({ res, params }) => envelope.one(await retrieveEvent(db, authOf(res).organizationId, params.id)),
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/events/:id/resend',
    summary: 'Send an event again',
    description: eventDocs.resend,
    body: EventResend,
    status: 200,
    response: oneResponse(z.array(WebhookDelivery)),
    handler: async ({ res, params, body }) => {
      const deliveries = await resendEvent(db, authOf(res).organizationId, params.id, body);
      webhooks.kick();
      return envelope.one(deliveries);
    },
  });
}
