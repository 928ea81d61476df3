import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import {
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  webhookEndpointDocs,
} from './webhook-endpoints.schema.js';
import { toWebhookDelivery, toWebhookEndpoint } from './webhook-endpoints.serializer.js';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  requireEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhook-endpoints.service.js';

export function registerWebhookEndpointRoutes(api: ApiBuilder, { db, config, webhooks, secretGuards }: RouteDeps): void {
  const common = { tag: 'Webhook endpoints', security: 'secret', guards: secretGuards, errors: [404] } as const;
  const allowPrivate = config.webhooksAllowPrivate;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/webhook-endpoints',
    summary: 'Create a webhook endpoint',
    description: webhookEndpointDocs.create,
    body: WebhookEndpointCreate,
    carriesSecret: true,
    status: 201,
    response: manyResponse(WebhookEndpointWithSecret),
    handler: async ({ res, body }) => {
      const { endpoint, secret } = await createEndpoint(db, authOf(res).organizationId, body, allowPrivate);
      return envelope.many({ ...toWebhookEndpoint(endpoint), secret });
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/webhook-endpoints',
    summary: 'List webhook endpoints',
    description: webhookEndpointDocs.list,
    query: WebhookEndpointListQuery,
    status: 200,
    response: listResponse(WebhookEndpoint),
    handler: async ({ res, query }) => envelope.list(await listEndpoints(db, authOf(res).organizationId, query), (e) => e),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/webhook-endpoints/:id',
    summary: 'Retrieve a webhook endpoint',
    description: webhookEndpointDocs.retrieve,
    status: 200,
    response: oneResponse(WebhookEndpoint),
    handler: async ({ res, params }) => envelope.one(toWebhookEndpoint(await requireEndpoint(db, authOf(res).organizationId, params.id))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/webhook-endpoints/:id',
    summary: 'Update a webhook endpoint',
    description: webhookEndpointDocs.update,
    body: WebhookEndpointUpdate,
    status: 200,
    response: manyResponse(WebhookEndpoint),
    handler: async ({ res, params, body }) =>
      envelope.many(toWebhookEndpoint(await updateEndpoint(db, authOf(res).organizationId, params.id, body, allowPrivate))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/webhook-endpoints/:id',
    summary: 'Delete a webhook endpoint',
    description: webhookEndpointDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteEndpoint(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/webhook-endpoints/:id/rotate-secret',
    summary: "Rotate a webhook endpoint's signing secret",
    description: webhookEndpointDocs.rotate,
    carriesSecret: true,
    status: 200,
    response: manyResponse(WebhookEndpointWithSecret),
    handler: async ({ res, params }) => {
      const { endpoint, secret } = await rotateEndpointSecret(db, authOf(res).organizationId, params.id);
      return envelope.many({ ...toWebhookEndpoint(endpoint), secret });
    },
  });

  api.route({
    ...common,
    method: 'post',
    path: '/v1/webhook-endpoints/:id/test',
    summary: 'Send a test event to a webhook endpoint',
    description: webhookEndpointDocs.test,
    status: 201,
    response: manyResponse(WebhookDelivery),
    handler: async ({ res, params }) => {
      const delivery = await sendTestEvent(db, authOf(res).organizationId, params.id);
      webhooks.kick();
      return envelope.many(toWebhookDelivery(delivery));
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/webhook-endpoints/:id/deliveries',
    summary: "List a webhook endpoint's deliveries",
    description: webhookEndpointDocs.deliveries,
    query: WebhookDeliveryListQuery,
    status: 200,
    response: listResponse(WebhookDelivery),
    handler: async ({ res, params, query }) =>
      envelope.list(await listDeliveries(db, authOf(res).organizationId, params.id, query), (d) => d),
  });
}
