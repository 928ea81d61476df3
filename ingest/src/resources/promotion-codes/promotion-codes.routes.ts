import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { presentWithPartnerAndProgram } from '../expand-partner-program.js';
import { requireProgram } from '../programs/programs.service.js';
import { selectPromotionCodes } from './promotion-codes.repository.js';
import {
  PromotionCode,
  PromotionCodeCreate,
  PromotionCodeListQuery,
  PromotionCodeRetrieveQuery,
  PromotionCodeUpdate,
} from './promotion-codes.schema.js';
import {
  createPromotionCode,
  deletePromotionCode,
  requirePromotionCode,
  toPromotionCode,
  updatePromotionCode,
} from './promotion-codes.service.js';

export function registerPromotionCodeRoutes(api: ApiBuilder, { db, secretGuards }: RouteDeps): void {
  const common = { tag: 'Promotion codes', security: 'secret', guards: secretGuards, errors: [404] } as const;
  const present = async (row: Parameters<typeof toPromotionCode>[0], expand?: ('partner' | 'program')[]) =>
    (await presentWithPartnerAndProgram(db, [row], expand, toPromotionCode))[0];

  api.route({
    ...common,
    method: 'post',
    path: '/v1/promotion-codes',
    summary: 'Create a promotion code',
    description:
      'Owned by a partner (`partner_id`), a group (`group_id`) or, with neither, the whole program. `code` is unique in the program, compared case-insensitively (409).',
    body: PromotionCodeCreate,
    status: 201,
    response: manyResponse(PromotionCode),
    errors: [404, 409],
    handler: async ({ res, body }) => envelope.many(await present(await createPromotionCode(db, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/promotion-codes',
    summary: 'List the promotion codes of a program',
    query: PromotionCodeListQuery,
    status: 200,
    response: listResponse(PromotionCode),
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectPromotionCodes(db, organizationId).where('program_id', '=', program.id);
      if (query.partner_id) base = base.where('partner_id', '=', query.partner_id);
      const page = await paginate(base, query, { createdAt: 'created_at', id: 'id' });
      return envelope.list({ ...page, rows: await presentWithPartnerAndProgram(db, page.rows, query.expand, toPromotionCode) }, (c) => c);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/promotion-codes/:id',
    summary: 'Retrieve a promotion code',
    query: PromotionCodeRetrieveQuery,
    status: 200,
    response: oneResponse(PromotionCode),
    handler: async ({ res, params, query }) =>
      envelope.one(await present(await requirePromotionCode(db, authOf(res).organizationId, params.id), query.expand)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/promotion-codes/:id',
    summary: 'Update a promotion code',
    description: 'The owner cannot change; create a new code for another owner.',
    body: PromotionCodeUpdate,
    status: 200,
    response: manyResponse(PromotionCode),
    errors: [404, 409],
    handler: async ({ res, params, body }) =>
      envelope.many(await present(await updatePromotionCode(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/promotion-codes/:id',
    summary: 'Delete a promotion code',
    description: 'Customers who used it keep their promotion_code_id.',
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deletePromotionCode(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
