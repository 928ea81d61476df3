import { stringify } from 'csv-stringify';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import type { ApiBuilder, FileAnswer } from '../../http/api.js';
import { authOf } from '../../http/auth.js';
import { envelope } from '../../http/envelope.js';
import { listResponse, manyResponse, oneResponse } from '../../http/responses.js';
import { Commission } from '../commissions/commissions.schema.js';
import {
  Balance,
  BalanceListQuery,
  GenerateResult,
  Payout,
  PayoutCommissionsQuery,
  PayoutExportQuery,
  PayoutGenerate,
  PayoutListQuery,
  PayoutRetrieveQuery,
  PayoutUpdate,
  payoutDocs,
} from './payouts.schema.js';
import { toPayout } from './payouts.serializer.js';
import {
  exportPayouts,
  generateProgramPayouts,
  listBalances,
  listPayoutCommissions,
  listPayouts,
  type PayoutExport,
  retrievePayout,
  updatePayout,
} from './payouts.service.js';

/** The content type of a batch file (this route's and the dashboard's download). */
export const PAYOUT_FILE_TYPE = 'text/csv';

/** A batch file as it is sent: its rows through the CSV writer (this route's and the dashboard's download). */
export function payoutFile(file: PayoutExport): FileAnswer {
  // A name such as "=HYPERLINK(…)" stays text when the file is opened in a spreadsheet.
  const csv = stringify({
    header: file.header !== null,
    columns: file.header ?? undefined,
    record_delimiter: 'windows',
    escape_formulas: true,
  });
  return { filename: file.filename, body: file.rows, through: [csv] };
}

export function registerPayoutRoutes(api: ApiBuilder, { db, mailer, secretGuards }: RouteDeps): void {
  const common = { tag: 'Payouts', security: 'secret', guards: secretGuards, errors: [404] } as const;

  api.route({
    ...common,
    method: 'post',
    path: '/v1/payouts/generate',
    summary: "Generate payouts of a program's payable balances",
    description: payoutDocs.generate,
    body: PayoutGenerate,
    status: 201,
    response: oneResponse(GenerateResult),
    handler: async ({ res, body }) => envelope.one(await generateProgramPayouts(db, authOf(res).organizationId, body)),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/payouts',
    summary: 'List the payouts of a program',
    description: payoutDocs.list,
    query: PayoutListQuery,
    status: 200,
    response: listResponse(Payout),
    handler: async ({ res, query }) => envelope.list(await listPayouts(db, authOf(res).organizationId, query), (p) => p),
  });

  // Before /v1/payouts/:id, which would take "export" for an id.
  api.route({
    ...common,
    method: 'get',
    path: '/v1/payouts/export',
    summary: 'Export payouts as a batch file (PayPal, Wise, CSV)',
    description: payoutDocs.export,
    query: PayoutExportQuery,
    file: PAYOUT_FILE_TYPE,
    status: 200,
    response: z.string().meta({ description: 'The CSV file' }),
    handler: async ({ res, query }): Promise<FileAnswer> => {
      return payoutFile(await exportPayouts(db, authOf(res).organizationId, query));
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/payouts/:id',
    summary: 'Retrieve a payout',
    description: payoutDocs.retrieve,
    query: PayoutRetrieveQuery,
    status: 200,
    response: oneResponse(Payout),
    handler: async ({ res, params, query }) => envelope.one(await retrievePayout(db, authOf(res).organizationId, params.id, query.expand)),
  });

  api.route({
    ...common,
    method: 'put',
    path: '/v1/payouts/:id',
    summary: 'Update a payout: mark it processing, paid, failed or canceled; set its reference',
    description: payoutDocs.update,
    body: PayoutUpdate,
    status: 200,
    response: manyResponse(Payout),
    handler: async ({ res, params, body }) => {
      return envelope.many(toPayout(await updatePayout(db, authOf(res).organizationId, params.id, body, mailer.kick)));
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/payouts/:id/commissions',
    summary: 'List the commissions of a payout',
    description: payoutDocs.commissions,
    query: PayoutCommissionsQuery,
    status: 200,
    response: listResponse(Commission),
    handler: async ({ res, params, query }) =>
      envelope.list(await listPayoutCommissions(db, authOf(res).organizationId, params.id, query), (c) => c),
  });

  api.route({
    ...common,
    method: 'get',
    path: '/v1/programs/:id/balances',
    summary: "List what the program's partners are owed",
    description: payoutDocs.balances,
    query: BalanceListQuery,
    status: 200,
    response: listResponse(Balance),
    handler: async ({ res, params, query }) =>
      envelope.list(await listBalances(db, authOf(res).organizationId, params.id, query), (b) => b),
  });
}
