import { programTotal } from '../../db/list-counts.js';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { requireProgram } from '../programs/programs.service.js';
import { selectCommissions } from './commissions.repository.js';
import {
  Commission,
  CommissionCreate,
  CommissionListQuery,
  CommissionRetrieveQuery,
  CommissionUpdate,
  FullCommission,
} from './commissions.schema.js';
import { toFullCommission } from './commissions.serializer.js';
import { createCommission, deleteCommission, presentCommissions, requireCommission, updateCommission } from './commissions.service.js';

export function registerCommissionRoutes(api: ApiBuilder, { db, secretGuards }: RouteDeps): void {
  const common = { tag: 'Commissions', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/commissions',
    summary: 'Create a commission by hand',
    description:
      'For a customer (`customer_id`: its partner and program are used), or without one (`program_id` and `partner_id` are then required). Any status may be given (default pending); `paid` assigns a `payout_id`. The response shows every field, with `amount` and `revenue` as strings.',
    body: CommissionCreate,
    status: 201,
    response: manyResponse(FullCommission),
    handler: async ({ res, body }) => envelope.many(toFullCommission(await createCommission(db, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/commissions',
    summary: 'List the commissions of a program',
    description: 'Shows the short field set of the spec. Refund entries (negative amounts) are commissions too.',
    query: CommissionListQuery,
    status: 200,
    response: listResponse(Commission),
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectCommissions(db, organizationId).where('program_id', '=', program.id);
      if (query.partner_id) base = base.where('partner_id', '=', query.partner_id);
      if (query.customer_id) base = base.where('customer_id', '=', query.customer_id);
      if (query.transaction_id) base = base.where('transaction_id', '=', query.transaction_id);
      if (query.status) base = base.where('status', '=', query.status);
      const page = await paginate(base, query, { createdAt: 'created_at', id: 'id' }, programTotal(db, 'commissions', program.id));
      return envelope.list({ ...page, rows: await presentCommissions(db, page.rows, query.expand) }, (c) => c);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/commissions/:id',
    summary: 'Retrieve a commission',
    description: 'Shows the short field set of the spec.',
    query: CommissionRetrieveQuery,
    status: 200,
    response: oneResponse(Commission),
    handler: async ({ res, params, query }) => {
      const commission = await requireCommission(db, authOf(res).organizationId, params.id);
      return envelope.one((await presentCommissions(db, [commission], query.expand))[0]);
    },
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/commissions/:id',
    summary: 'Update a commission',
    description:
      "Moving to `paid` assigns a `payout_id`; leaving `paid` clears it. A reward's unpaid refund entries leave the totals with it (rejected, refunded) and come back with it. A refund entry's `amount` and `transaction_id`, and a flow commission's `transaction_id`, cannot change (400). The response shows every field, with `amount` and `revenue` as strings.",
    body: CommissionUpdate,
    status: 200,
    response: manyResponse(FullCommission),
    handler: async ({ res, params, body }) =>
      envelope.many(toFullCommission(await updateCommission(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/commissions/:id',
    summary: 'Delete a commission',
    description:
      "Soft delete: hidden from the API and from partner and customer totals, with the reward's refund entries that are not paid.",
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteCommission(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
