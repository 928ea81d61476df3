import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { cachedFlows } from '../flows/flow-cache.js';
import {
  Transaction,
  TransactionCreate,
  TransactionExistsResponse,
  TransactionListQuery,
  TransactionRefund,
  TransactionRetrieveQuery,
  TransactionUpdate,
  transactionDocs,
} from './transactions.schema.js';
import { toTransaction } from './transactions.serializer.js';
import {
  createTransaction,
  deleteTransaction,
  listTransactions,
  refundTransaction,
  retrieveTransaction,
  updateTransaction,
} from './transactions.service.js';

export function registerTransactionRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const flowsOf = cachedFlows(db, store);
  const common = { tag: 'Transactions', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/transactions',
    summary: 'Record a payment of a referred customer',
    description: transactionDocs.create,
    body: TransactionCreate,
    status: 201,
    response: manyResponse(Transaction),
    errors: [404, 409],
    errorBodies: { 409: TransactionExistsResponse },
    handler: async ({ res, body }) => envelope.many(toTransaction(await createTransaction(db, flowsOf, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/transactions',
    summary: 'List the transactions of a program',
    description: transactionDocs.list,
    query: TransactionListQuery,
    status: 200,
    response: listResponse(Transaction),
    handler: async ({ res, query }) => envelope.list(await listTransactions(db, authOf(res).organizationId, query), (t) => t),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/transactions/:id',
    summary: 'Retrieve a transaction',
    description: transactionDocs.retrieve,
    query: TransactionRetrieveQuery,
    status: 200,
    response: oneResponse(Transaction),
    handler: async ({ res, params, query }) =>
      envelope.one(await retrieveTransaction(db, authOf(res).organizationId, params.id, query.expand)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/transactions/:id',
    summary: 'Update a transaction',
    description: transactionDocs.update,
    body: TransactionUpdate,
    status: 200,
    response: manyResponse(Transaction),
    errors: [404, 409],
    errorBodies: { 409: TransactionExistsResponse },
    handler: async ({ res, params, body }) =>
      envelope.many(toTransaction(await updateTransaction(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/transactions/:id/refund',
    summary: 'Refund a transaction, fully or in part',
    description: transactionDocs.refund,
    body: TransactionRefund,
    status: 200,
    response: manyResponse(Transaction),
    handler: async ({ res, params, body }) =>
      envelope.many(toTransaction(await refundTransaction(db, authOf(res).organizationId, params.id, body.amount))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/transactions/:id',
    summary: 'Delete a transaction',
    description: transactionDocs.delete,
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteTransaction(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
