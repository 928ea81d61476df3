import { sql } from 'kysely';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { requireProgram } from '../programs/programs.service.js';
import { selectPartners } from './partners.repository.js';
import { Partner, PartnerCreate, PartnerExistsResponse, PartnerListQuery, PartnerRetrieveQuery, PartnerUpdate } from './partners.schema.js';
import { createPartner, deletePartner, presentPartners, requirePartner, updatePartner } from './partners.service.js';

export function registerPartnerRoutes(api: ApiBuilder, { db, store, mailer, secretGuards }: RouteDeps): void {
  const common = { tag: 'Partners', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/partners',
    summary: 'Create a partner',
    description:
      'A partner whose e-mail (compared case-insensitively) already exists in the program answers 409 with `error: "Partner with this email already exists"` and the existing partner in `data`.',
    body: PartnerCreate,
    status: 201,
    response: manyResponse(Partner),
    errors: [404, 409],
    errorBodies: { 409: PartnerExistsResponse },
    handler: async ({ res, body }) => {
      const partner = await createPartner(db, authOf(res).organizationId, body, () => mailer.kick());
      return envelope.many((await presentPartners(db, [partner]))[0]);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/partners',
    summary: 'List the partners of a program',
    description:
      'Partners who have not completed onboarding are hidden, except from an `email` lookup. `expand[]=program` here includes cookie_duration, payout_methods, payout_term and url_params. `include[]=stats` adds total_clicks, total_customers (not leads), total_revenue (net of refunds) and total_commission (not rejected or refunded, net of refund entries).',
    query: PartnerListQuery,
    status: 200,
    response: listResponse(Partner),
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectPartners(db, organizationId).where('program_id', '=', program.id);
      if (query.group_id) base = base.where('group_id', '=', query.group_id);
      if (query.status) base = base.where('status', '=', query.status);
      base =
        query.email !== undefined
          ? base.where(sql`lower(email)`, '=', query.email.toLowerCase())
          : base.where('completed_onboarding', '=', true);
      const page = await paginate(base, query, { createdAt: 'created_at', id: 'id' });
      const data = await presentPartners(db, page.rows, query.expand, { programWithTerms: true, include: query.include });
      return envelope.list({ ...page, rows: data }, (p) => p);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/partners/:id',
    summary: 'Retrieve a partner',
    query: PartnerRetrieveQuery,
    status: 200,
    response: oneResponse(Partner),
    handler: async ({ res, params, query }) => {
      const partner = await requirePartner(db, authOf(res).organizationId, params.id);
      return envelope.one((await presentPartners(db, [partner], query.expand, { include: query.include }))[0]);
    },
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/partners/:id',
    summary: 'Update a partner',
    description: 'Changing payout_method without payout_details clears the details of the old method.',
    body: PartnerUpdate,
    status: 200,
    response: manyResponse(Partner),
    errors: [404, 409],
    handler: async ({ res, params, body }) => {
      const partner = await updatePartner(db, authOf(res).organizationId, params.id, body);
      return envelope.many((await presentPartners(db, [partner]))[0]);
    },
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/partners/:id',
    summary: 'Delete a partner',
    description:
      'Soft delete: the partner is hidden from the API and its e-mail is free again; its links are deleted and stop resolving; its transactions and commissions remain.',
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deletePartner(db, store, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
