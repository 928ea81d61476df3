import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import {
  Partner,
  PartnerCreate,
  PartnerExistsResponse,
  PartnerListQuery,
  PartnerRetrieveQuery,
  PartnerUpdate,
  partnerDocs,
} from './partners.schema.js';
import { toPartner } from './partners.serializer.js';
import { createPartner, deletePartner, listPartners, retrievePartner, updatePartner } from './partners.service.js';

export function registerPartnerRoutes(api: ApiBuilder, { db, store, mailer, secretGuards }: RouteDeps): void {
  const common = { tag: 'Partners', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/partners',
    summary: 'Create a partner',
    description: partnerDocs.create,
    body: PartnerCreate,
    status: 201,
    response: manyResponse(Partner),
    errors: [404, 409],
    errorBodies: { 409: PartnerExistsResponse },
    handler: async ({ res, body }) =>
      envelope.many(toPartner(await createPartner(db, authOf(res).organizationId, body, () => mailer.kick()))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/partners',
    summary: 'List the partners of a program',
    description: partnerDocs.list,
    query: PartnerListQuery,
    status: 200,
    response: listResponse(Partner),
    handler: async ({ res, query }) => envelope.list(await listPartners(db, authOf(res).organizationId, query), (p) => p),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/partners/:id',
    summary: 'Retrieve a partner',
    description: partnerDocs.retrieve,
    query: PartnerRetrieveQuery,
    status: 200,
    response: oneResponse(Partner),
    handler: async ({ res, params, query }) => envelope.one(await retrievePartner(db, authOf(res).organizationId, params.id, query)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/partners/:id',
    summary: 'Update a partner',
    description: partnerDocs.update,
    body: PartnerUpdate,
    status: 200,
    response: manyResponse(Partner),
    errors: [404, 409],
    handler: async ({ res, params, body }) =>
      envelope.many(toPartner(await updatePartner(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/partners/:id',
    summary: 'Delete a partner',
    description: partnerDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deletePartner(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
