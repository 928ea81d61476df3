import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import {
  Commission,
  CommissionCreate,
  CommissionListQuery,
  CommissionRetrieveQuery,
  CommissionUpdate,
  CommissionWriteQuery,
  commissionDocs,
  FullCommission,
} from './commissions.schema.js';
import { presentFullCommission } from './commissions.serializer.js';
import { createCommission, deleteCommission, listCommissions, retrieveCommission, updateCommission } from './commissions.service.js';

export function registerCommissionRoutes(api: ApiBuilder, { db, mailer, secretGuards }: RouteDeps): void {
  const common = { tag: 'Commissions', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/commissions',
    summary: 'Create a commission by hand',
    description: commissionDocs.create,
    body: CommissionCreate,
    query: CommissionWriteQuery,
    status: 201,
    response: manyResponse(FullCommission),
    handler: async ({ res, body, query }) =>
      envelope.many(presentFullCommission(await createCommission(db, authOf(res).organizationId, body), query.include)),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/commissions',
    summary: 'List the commissions of a program',
    description: commissionDocs.list,
    query: CommissionListQuery,
    status: 200,
    response: listResponse(Commission),
    handler: async ({ res, query }) => envelope.list(await listCommissions(db, authOf(res).organizationId, query), (c) => c),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/commissions/:id',
    summary: 'Retrieve a commission',
    description: commissionDocs.retrieve,
    query: CommissionRetrieveQuery,
    status: 200,
    response: oneResponse(Commission),
    handler: async ({ res, params, query }) => envelope.one(await retrieveCommission(db, authOf(res).organizationId, params.id, query)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/commissions/:id',
    summary: 'Update a commission',
    description: commissionDocs.update,
    body: CommissionUpdate,
    query: CommissionWriteQuery,
    status: 200,
    response: manyResponse(FullCommission),
    handler: async ({ res, params, body, query }) =>
      envelope.many(
        presentFullCommission(await updateCommission(db, authOf(res).organizationId, params.id, body, mailer.kick), query.include),
      ),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/commissions/:id',
    summary: 'Delete a commission',
    description: commissionDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteCommission(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
