import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import {
  PromotionCode,
  PromotionCodeCreate,
  PromotionCodeListQuery,
  PromotionCodeRetrieveQuery,
  PromotionCodeUpdate,
  promotionCodeDocs,
} from './promotion-codes.schema.js';
import { presentPromotionCode } from './promotion-codes.serializer.js';
import {
  createPromotionCode,
  deletePromotionCode,
  listPromotionCodes,
  requirePromotionCode,
  updatePromotionCode,
} from './promotion-codes.service.js';

export function registerPromotionCodeRoutes(api: ApiBuilder, { db, secretGuards }: RouteDeps): void {
  const common = { tag: 'Promotion codes', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/promotion-codes',
    summary: 'Create a promotion code',
    description: promotionCodeDocs.create,
    body: PromotionCodeCreate,
    status: 201,
    response: manyResponse(PromotionCode),
    errors: [404, 409],
    handler: async ({ res, body }) =>
      envelope.many(await presentPromotionCode(db, await createPromotionCode(db, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/promotion-codes',
    summary: 'List the promotion codes of a program',
    description: promotionCodeDocs.list,
    query: PromotionCodeListQuery,
    status: 200,
    response: listResponse(PromotionCode),
    handler: async ({ res, query }) => envelope.list(await listPromotionCodes(db, authOf(res).organizationId, query), (c) => c),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/promotion-codes/:id',
    summary: 'Retrieve a promotion code',
    description: promotionCodeDocs.retrieve,
    query: PromotionCodeRetrieveQuery,
    status: 200,
    response: oneResponse(PromotionCode),
    handler: async ({ res, params, query }) =>
      envelope.one(await presentPromotionCode(db, await requirePromotionCode(db, authOf(res).organizationId, params.id), query.expand)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/promotion-codes/:id',
    summary: 'Update a promotion code',
    description: promotionCodeDocs.update,
    body: PromotionCodeUpdate,
    status: 200,
    response: manyResponse(PromotionCode),
    errors: [404, 409],
    handler: async ({ res, params, body }) =>
      envelope.many(await presentPromotionCode(db, await updatePromotionCode(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/promotion-codes/:id',
    summary: 'Delete a promotion code',
    description: promotionCodeDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deletePromotionCode(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
