import type { Router } from 'express';
import { type ZodObject, type ZodType, z } from 'zod';
import type { Db } from '../db/database.js';
import type { AppDeps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import type { ListParams, Page } from '../http/list.js';
import { walkList } from '../http/list-walk.js';
import { validate } from '../http/validation.js';
import { sendCsv } from '../pages/csv.js';
import { Commission, CommissionListQuery } from '../resources/commissions/commissions.schema.js';
import { listCommissions } from '../resources/commissions/commissions.service.js';
import { Customer, CustomerListQuery } from '../resources/customers/customers.schema.js';
import { listCustomers } from '../resources/customers/customers.service.js';
import { Partner, PartnerListQuery } from '../resources/partners/partners.schema.js';
import { listPartners } from '../resources/partners/partners.service.js';
import { Payout, PayoutListQuery } from '../resources/payouts/payouts.schema.js';
import { listPayouts } from '../resources/payouts/payouts.service.js';
import { Transaction, TransactionListQuery } from '../resources/transactions/transactions.schema.js';
import { listTransactions } from '../resources/transactions/transactions.service.js';
import { type ContextOf, programPath } from './context.js';

/**
 * CSV exports of the dashboard's lists (ingest/docs/dashboard.md#csv-exports):
 * `GET /dashboard/programs/:programId/<list>.csv?<the API's list filters>`, the whole filtered
 * list, streamed. Each row is the object the API's list answers, read through the same service
 * function, so the file and `GET /v1/<list>` with the same filters hold the same rows.
 */

export type ExportedList = 'partners' | 'customers' | 'transactions' | 'commissions' | 'payouts';

/**
 * Parameters of the API's list that an export refuses: it is the whole list (no page, no
 * cursor) of the program in its address, with the list's own fields (no expansion or include,
 * which would add columns the list does not show).
 */
const NOT_EXPORT_PARAMETERS = new Set(['limit', 'starting_after', 'ending_before', 'program_id', 'expand', 'include']);

interface ListExport {
  /** The header: the fields of the API object that the list always shows, in the API's order. */
  columns: string[];
  /** The rows of the program's list for these query parameters (checked here: a bad filter is a 400 before anything is read). */
  rows(db: Db, organizationId: string, programId: string, given: Record<string, unknown>): AsyncIterable<{ id: string }>;
}

function listExport<Query extends ListParams, Row extends { id: string }>(
  object: ZodObject,
  querySchema: ZodType<Query, unknown>,
  list: (db: Db, organizationId: string, query: Query) => Promise<Page<Row>>,
): ListExport {
  return {
    // An optional field is an expansion or an include, absent from the plain list.
    columns: Object.entries(object.shape)
      .filter(([, field]) => !(field instanceof z.ZodOptional))
      .map(([name]) => name),
    rows(db, organizationId, programId, given) {
      // A filter form sends its empty fields: an empty value is a filter left out, as on the list pages.
      const query = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== ''));
      const refused = Object.keys(query).find((name) => NOT_EXPORT_PARAMETERS.has(name));
      if (refused) {
        throw badRequest(
          `An export does not take ${refused}: it holds every row of the program's list that the filters keep, with the list's own fields`,
          refused,
        );
      }
      const filters = validate(querySchema, { ...query, program_id: programId }, 'query');
      return walkList((page: Query) => list(db, organizationId, page), filters);
    },
  };
}

const LIST_EXPORTS: Record<ExportedList, ListExport> = {
  partners: listExport(Partner, PartnerListQuery, listPartners),
  customers: listExport(Customer, CustomerListQuery, listCustomers),
  transactions: listExport(Transaction, TransactionListQuery, listTransactions),
  commissions: listExport(Commission, CommissionListQuery, listCommissions),
  payouts: listExport(Payout, PayoutListQuery, listPayouts),
};

/** The export's address, for a list page to link to with its own filters (a query string, with or without its `?`). */
export const exportPath = (program: { id: string }, list: ExportedList, filters = '') =>
  programPath(program, `/${list}.csv${filters ? `?${filters.replace(/^\?/, '')}` : ''}`);

export function registerExportRoutes(router: Router, { db, logger }: AppDeps, contextOf: ContextOf): void {
  for (const [list, spec] of Object.entries(LIST_EXPORTS) as [ExportedList, ListExport][]) {
    router.get(`/programs/:programId/${list}.csv`, async (req, res) => {
      const { user, program } = await contextOf(res, list, req.params.programId);
      const rows = spec.rows(db, user.organization_id, program.id, req.query);
      const day = new Date().toISOString().slice(0, 10);
      await sendCsv(res, { filename: `${list}-${program.subdomain}-${day}.csv`, columns: spec.columns, rows }, logger);
    });
  }
}
