import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { requireProgram } from '../programs/programs.service.js';
import { selectFlows } from './flows.repository.js';
import { Flow, FlowCreate, FlowListQuery, FlowUpdate } from './flows.schema.js';
import { toFlow } from './flows.serializer.js';
import { createFlow, deleteFlow, requireFlow, updateFlow } from './flows.service.js';

export function registerFlowRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const common = { tag: 'Commission flows', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/flows',
    summary: 'Create a commission flow',
    description:
      'A flow turns a payment (every transaction, renewals included) or a signup into a commission for the referring partner, when all its conditions hold. `group_id` limits it to one group. Approval defaults to scheduled after 30 days. A signup flow needs a fixed reward and only partner.* conditions.',
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
    query: FlowListQuery,
    status: 200,
    response: listResponse(Flow),
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectFlows(db, organizationId).where('program_id', '=', program.id);
      if (query.group_id) base = base.where('group_id', '=', query.group_id);
      if (query.trigger) base = base.where('trigger', '=', query.trigger);
      if (query.active !== undefined) base = base.where('active', '=', query.active);
      return envelope.list(await paginate(base, query, { createdAt: 'created_at', id: 'id' }), toFlow);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/flows/:id',
    summary: 'Retrieve a commission flow',
    status: 200,
    response: oneResponse(Flow),
    handler: async ({ res, params }) => envelope.one(toFlow(await requireFlow(db, authOf(res).organizationId, params.id))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/flows/:id',
    summary: 'Update a commission flow',
    description: 'Applies to payments and signups from now on; commissions already created keep their amounts.',
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
    description: 'The flow stops creating commissions; the commissions it created remain and keep their flow_id.',
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteFlow(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
