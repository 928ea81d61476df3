import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, oneResponse } from '../../http/responses.js';
import {
  Customer,
  CustomerCreate,
  CustomerExistsResponse,
  CustomerList,
  CustomerListQuery,
  CustomerRetrieveQuery,
  CustomerUpdate,
  CustomerWrite,
  customerDocs,
} from './customers.schema.js';
import { toCustomerWithIdentifier } from './customers.serializer.js';
import {
  createCustomer,
  deleteCustomer,
  listCustomers,
  retrieveCustomer,
  updateCustomer,
  type CustomerWrite as Written,
} from './customers.service.js';

/** Create/update body: the customer (with its identifier) and any warnings. */
const written = ({ customer, warnings }: Written) => ({
  ...envelope.many(toCustomerWithIdentifier(customer)),
  ...(warnings.length ? { warnings } : {}),
});

export function registerCustomerRoutes(api: ApiBuilder, { db, mailer, secretGuards }: RouteDeps): void {
  const common = { tag: 'Customers', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/customers',
    summary: 'Create a customer (a referred lead)',
    description: customerDocs.create,
    body: CustomerCreate,
    status: 201,
    response: CustomerWrite,
    errors: [404, 409],
    errorBodies: { 409: CustomerExistsResponse },
    handler: async ({ res, body }) => written(await createCustomer(db, authOf(res).organizationId, body, mailer.kick)),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/customers',
    summary: 'List the customers of a program',
    description: customerDocs.list,
    query: CustomerListQuery,
    status: 200,
    response: CustomerList,
    handler: async ({ res, query }) => {
      const page = await listCustomers(db, authOf(res).organizationId, query);
      return { success: true, data: { data: page.rows }, has_more: page.has_more, total_count: page.total_count };
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/customers/:id',
    summary: 'Retrieve a customer',
    description: customerDocs.retrieve,
    query: CustomerRetrieveQuery,
    status: 200,
    response: oneResponse(Customer),
    handler: async ({ res, params, query }) => envelope.one(await retrieveCustomer(db, authOf(res).organizationId, params.id, query)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/customers/:id',
    summary: 'Update a customer',
    description: customerDocs.update,
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
    description: customerDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteCustomer(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
