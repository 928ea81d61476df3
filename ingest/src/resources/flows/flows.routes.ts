import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { Flow, FlowCreate, FlowListQuery, FlowUpdate, flowDocs } from './flows.schema.js';
import { toFlow } from './flows.serializer.js';
import { createFlow, deleteFlow, listFlows, requireFlow, updateFlow } from './flows.service.js';

export function registerFlowRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const common = { tag: 'Commission flows', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/flows',
    summary: 'Create a commission flow',
    description: flowDocs.create,
    body: FlowCreate,
    status: 201,
    response: manyResponse(Flow),
    handler: async ({ res, body }) => envelope.many(toFlow(await createFlow(db, store, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/flows',
    summary: 'List the commission flows of a program',
    description: flowDocs.list,
    query: FlowListQuery,
    status: 200,
    response: listResponse(Flow),
    handler: async ({ res, query }) => envelope.list(await listFlows(db, authOf(res).organizationId, query), (f) => f),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/flows/:id',
    summary: 'Retrieve a commission flow',
    description: flowDocs.retrieve,
    status: 200,
    response: oneResponse(Flow),
    handler: async ({ res, params }) => envelope.one(toFlow(await requireFlow(db, authOf(res).organizationId, params.id))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/flows/:id',
    summary: 'Update a commission flow',
    description: flowDocs.update,
    body: FlowUpdate,
    status: 200,
    response: manyResponse(Flow),
    handler: async ({ res, params, body }) =>
      envelope.many(toFlow(await updateFlow(db, store, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/flows/:id',
    summary: 'Delete a commission flow',
    description: flowDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteFlow(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
