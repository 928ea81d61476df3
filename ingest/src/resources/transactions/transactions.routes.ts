import type { Db } from '../../db/database.js';
import { programTotal } from '../../db/list-counts.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { TransactionRow } from '../../db/schema.js';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { paginate } from '../../http/list.js';
import { deletedResponse, listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { toExpandedCustomer } from '../customers/customers.serializer.js';
import { presentWithPartnerAndProgram } from '../expand-partner-program.js';
import { cachedFlows } from '../flows/flow-cache.js';
import { requireProgram } from '../programs/programs.service.js';
import { selectTransactions } from './transactions.repository.js';
import {
  Transaction,
  TransactionCreate,
  TransactionExistsResponse,
  TransactionListQuery,
  TransactionRefund,
  TransactionRetrieveQuery,
  TransactionUpdate,
} from './transactions.schema.js';
import { toTransaction } from './transactions.serializer.js';
import { createTransaction, deleteTransaction, refundTransaction, requireTransaction, updateTransaction } from './transactions.service.js';

type Expand = 'customer' | 'partner' | 'program';

async function presentTransactions(db: Db, rows: TransactionRow[], expand: Expand[] = []) {
  const [base, customers] = await Promise.all([
    presentWithPartnerAndProgram(
      db,
      rows,
      expand.filter((e) => e !== 'customer'),
      toTransaction,
    ),
    expand.includes('customer')
      ? loadByIds(
          db,
          'customers',
          rows.map((r) => r.customer_id),
        )
      : null,
  ]);
  return base.map((t, i) => {
    const customer = customers?.get(rows[i].customer_id);
    return customer ? { ...t, customer: toExpandedCustomer(customer) } : t;
  });
}

export function registerTransactionRoutes(api: ApiBuilder, { db, store, secretGuards }: RouteDeps): void {
  const flowsOf = cachedFlows(db, store);
  const common = { tag: 'Transactions', security: 'secret', guards: secretGuards, errors: [404] } as const;
  const one = async (row: TransactionRow) => (await presentTransactions(db, [row]))[0];

  api.route({
    ...common,
    method: 'post',
    path: '/v1/transactions',
    summary: 'Record a payment of a referred customer',
    description:
      "The partner is the customer's. The program's payment flows run at once and their commissions are created in the same database transaction. A `charge_id` already recorded in the program answers 409 with the existing transaction in `data`, and creates nothing. A lead or trialing customer who pays becomes active.",
    body: TransactionCreate,
    status: 201,
    response: manyResponse(Transaction),
    errors: [404, 409],
    errorBodies: { 409: TransactionExistsResponse },
    handler: async ({ res, body }) => envelope.many(await one(await createTransaction(db, flowsOf, authOf(res).organizationId, body))),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/transactions',
    summary: 'List the transactions of a program',
    query: TransactionListQuery,
    status: 200,
    response: listResponse(Transaction),
    handler: async ({ res, query }) => {
      const { organizationId } = authOf(res);
      const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
      let base = selectTransactions(db, organizationId).where('program_id', '=', program.id);
      if (query.partner_id) base = base.where('partner_id', '=', query.partner_id);
      if (query.customer_id) base = base.where('customer_id', '=', query.customer_id);
      if (query.charge_id) base = base.where('charge_id', '=', query.charge_id);
      const page = await paginate(base, query, { createdAt: 'created_at', id: 'id' }, programTotal(db, 'transactions', program.id));
      return envelope.list({ ...page, rows: await presentTransactions(db, page.rows, query.expand) }, (t) => t);
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/transactions/:id',
    summary: 'Retrieve a transaction',
    query: TransactionRetrieveQuery,
    status: 200,
    response: oneResponse(Transaction),
    handler: async ({ res, params, query }) => {
      const transaction = await requireTransaction(db, authOf(res).organizationId, params.id);
      return envelope.one((await presentTransactions(db, [transaction], query.expand))[0]);
    },
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/transactions/:id',
    summary: 'Update a transaction',
    description:
      'Descriptive fields only; the amount changes through a refund. Commissions already created are not recomputed; a new `charge_id` replaces the old one on the commissions that carried it.',
    body: TransactionUpdate,
    status: 200,
    response: manyResponse(Transaction),
    errors: [404, 409],
    errorBodies: { 409: TransactionExistsResponse },
    handler: async ({ res, params, body }) =>
      envelope.many(await one(await updateTransaction(db, authOf(res).organizationId, params.id, body))),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/transactions/:id/refund',
    summary: 'Refund a transaction, fully or in part',
    description:
      "Without `amount`, refunds everything not yet refunded. A full refund marks the transaction's unpaid commissions refunded; a partial refund, or a refund of a paid commission, adds a `refund` commission with a negative amount proportional to the refunded share.",
    body: TransactionRefund,
    status: 200,
    response: manyResponse(Transaction),
    handler: async ({ res, params, body }) =>
      envelope.many(await one(await refundTransaction(db, authOf(res).organizationId, params.id, body.amount))),
  });

  api.route({
    ...common,
    method: 'delete',
    path: '/v1/transactions/:id',
    summary: 'Delete a transaction',
    description:
      'Soft delete: hidden and out of the totals, and its charge_id can be recorded again. Its commissions are settled as by a full refund, rejected instead of refunded: unpaid ones are rejected, a paid one gets an approved refund entry offsetting it.',
    status: 200,
    response: deletedResponse,
    handler: async ({ res, params }) => {
      await deleteTransaction(db, authOf(res).organizationId, params.id);
      return envelope.deleted(params.id);
    },
  });
}
