import { sql } from 'kysely';
import { programTotal } from '../../db/list-counts.js';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, oneResponse } from '../../http/responses.js';
import { presentWithPartnerAndProgram } from '../expand-partner-program.js';
import { requireProgram } from '../programs/programs.service.js';
import { loadCustomerStats } from './customer-stats.js';
import { likePattern, selectCustomers } from './customers.repository.js';
import {
  Customer,
  CustomerCreate,
  CustomerExistsResponse,
  CustomerList,
  CustomerListQuery,
  CustomerRetrieveQuery,
  CustomerUpdate,
  CustomerWrite,
} from './customers.schema.js';
import { toCustomer, toCustomerWithIdentifier } from './customers.serializer.js';
import { createCustomer, deleteCustomer, requireCustomer, updateCustomer, type CustomerWrite as Written } from './customers.service.js';

/** Create/update body: the customer (with its identifier) and any warnings. */
const written = ({ customer, warnings }: Written) => ({
  ...envelope.many(toCustomerWithIdentifier(customer)),
  ...(warnings.length ? { warnings } : {}),
});

export function registerCustomerRoutes(api: ApiBuilder, { db, secretGuards }: RouteDeps): void {
  const common = { tag: 'Customers', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/customers',
    summary: 'Create a customer (a referred lead)',
    description:
      "Attributed by `partner_id` or `click_id` (both given must agree), or else by a partner's own promotion code. A promotion code is applied only when it belongs to the referring partner, their group or the program; otherwise the customer is still created and `warnings` holds `promotion_code_not_applied`. A taken identifier or customer_id in the program → 409 with the existing customer in `data`.",
    body: CustomerCreate,
    status: 201,
    response: CustomerWrite,
    errors: [404, 409],
    errorBodies: { 409: CustomerExistsResponse },
    handler: async ({ res, body }) => written(await createCustomer(db, authOf(res).organizationId, body)),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/customers',
    summary: 'List the customers of a program',
    description: 'As the spec says, the customers are in `data.data`.',
    query: CustomerListQuery,
    status: 200,
    response: CustomerList,
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectCustomers(db, organizationId).where('program_id', '=', program.id);
      if (query.partner_id) base = base.where('partner_id', '=', query.partner_id);
      if (query.status) base = base.where('status', '=', query.status);
      if (query.search) base = base.where(sql<boolean>`email ilike ${likePattern(query.search)} escape '\\'`);
      const page = await paginate(base, query, { createdAt: 'created_at', id: 'id' }, programTotal(db, 'customers', program.id));
      const data = await presentWithPartnerAndProgram(db, page.rows, query.expand, toCustomer);
      return { success: true, data: { data }, has_more: page.has_more, total_count: page.total_count };
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/customers/:id',
    summary: 'Retrieve a customer',
    description:
      '`include[]=stats` adds total_revenue (net of refunds), total_commission (not rejected or refunded, net of refund entries), total_orders (refunded ones included) and last_order_at.',
    query: CustomerRetrieveQuery,
    status: 200,
    response: oneResponse(Customer),
    handler: async ({ res, params, query }) => {
      const customer = await requireCustomer(db, authOf(res).organizationId, params.id);
      const [[presented], stats] = await Promise.all([
        presentWithPartnerAndProgram(db, [customer], query.expand, toCustomer),
        query.include?.includes('stats') ? loadCustomerStats(db, customer.id) : undefined,
      ]);
      return envelope.one(stats ? { ...presented, stats } : presented);
    },
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/customers/:id',
    summary: 'Update a customer',
    description:
      'The referring partner does not change. A promotion code that does not belong to the partner, their group or the program leaves the customer as it was and adds the `promotion_code_not_applied` warning.',
    body: CustomerUpdate,
    status: 200,
    response: CustomerWrite,
    errors: [404, 409],
    errorBodies: { 409: CustomerExistsResponse },
    handler: async ({ res, params, body }) => written(await updateCustomer(db, authOf(res).organizationId, params.id, body)),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/customers/:id',
    summary: 'Delete a customer',
    description: 'Soft delete: the customer is hidden and its identifier free again; its transactions and commissions remain.',
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteCustomer(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
