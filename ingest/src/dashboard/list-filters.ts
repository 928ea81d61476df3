import { z } from 'zod';
import type { Db } from '../db/database.js';
import { idField } from '../http/fields.js';
import { type Kept, type PickedRecord, type Picker, type PickerSource, queryOf } from '../pages/filters.js';
import { customerLabel, partnerName } from '../pages/format.js';
import { fromFields } from '../pages/forms.js';
import { findCustomersByName, requireProgramCustomer } from '../resources/customers/customers.service.js';
import { listPartners, requireProgramPartner } from '../resources/partners/partners.service.js';
import type { ProgramPageContext } from './context.js';
import { type ExportedList, exportPath } from './exports.routes.js';

/**
 * The filters of the dashboard's lists (ingest/docs/dashboard.md#list-filters): the
 * partner and customer pickers of a program, days as the API's timestamps, and each list's
 * filters as the query of its CSV download, which takes the API's own list parameters.
 */

/** The pickers' part of a list's address: the ids chosen (a malformed one is a 400) and the text typed to find one. */
const PickerQuery = z.strictObject({
  partner_id: idField.optional(),
  customer_id: idField.optional(),
  partner: z.string().max(254).optional(),
  customer: z.string().max(254).optional(),
});

const partnerRecord = (p: { id: string; first_name: string; last_name: string; email: string }): PickedRecord => {
  const name = partnerName(p);
  return { id: p.id, label: name, detail: name === p.email ? null : p.email };
};

const customerRecord = (c: { id: string; email: string | null; name: string | null }): PickedRecord => {
  const label = customerLabel(c);
  return { id: c.id, label, detail: c.name && c.name !== label ? c.name : null };
};

/** A picker whose filter is `<field>_id`, found by the text typed in `field`. */
const picker = (field: 'partner' | 'customer', noun: string, source: PickerSource): Picker => ({
  param: `${field}_id`,
  field,
  noun,
  source,
});

/**
 * The program's partners, found through the partners list's own search (part of the name or
 * e-mail); a partner id of another program or organization is a 404.
 */
function partnerPicker(db: Db, org: string, programId: string): Picker {
  return picker('partner', 'Partner', {
    byId: async (id) => partnerRecord(await requireProgramPartner(db, org, programId, id)),
    search: async (text, limit) => {
      const page = await listPartners(db, org, { program_id: programId, search: text, limit });
      return { records: page.rows.map(partnerRecord), more: page.has_more };
    },
  });
}

/** The program's customers, found by part of their e-mail or name; a customer id of another program or organization is a 404. */
function customerPicker(db: Db, org: string, programId: string): Picker {
  return picker('customer', 'Customer', {
    byId: async (id) => customerRecord(await requireProgramCustomer(db, org, programId, id)),
    search: async (text, limit) => {
      const { rows, more } = await findCustomersByName(db, org, programId, text, limit);
      return { records: rows.map(customerRecord), more };
    },
  });
}

/**
 * The pickers of one of the program's lists, in the form's order, and their part of the page's
 * address read (a malformed id is a 400; whether it is the program's, its picker says).
 */
export function listPickers(
  db: Db,
  ctx: ProgramPageContext,
  kinds: readonly ('partner' | 'customer')[],
  query: unknown,
): { pickers: Picker[]; picked: Record<string, string | undefined> } {
  const make = { partner: partnerPicker, customer: customerPicker };
  const pickers = kinds.map((kind) => make[kind](db, ctx.user.organization_id, ctx.program.id));
  return {
    pickers,
    picked: fromFields(
      PickerQuery,
      query,
      pickers.flatMap((p) => [p.param, p.field]),
      'query',
    ),
  };
}

/** A list's From and To days (UTC, both included) as the API's `created_gte` and `created_lte`. */
export function createdBetween(days: { from?: string; to?: string }): { created_gte?: string; created_lte?: string } {
  return {
    created_gte: days.from ? `${days.from}T00:00:00.000Z` : undefined,
    created_lte: days.to ? `${days.to}T23:59:59.999Z` : undefined,
  };
}

/** The same days as the dates a service's list query takes. */
export function createdBetweenDates(days: { from?: string; to?: string }): { created_gte?: Date; created_lte?: Date } {
  const { created_gte, created_lte } = createdBetween(days);
  return { created_gte: created_gte ? new Date(created_gte) : undefined, created_lte: created_lte ? new Date(created_lte) : undefined };
}

/** The commissions page's filters as the query of `GET /v1/commissions` (and so of its CSV download). */
export const commissionsCsvQuery = (f: {
  status?: string;
  partner_id?: string;
  customer_id?: string;
  from?: string;
  to?: string;
}): Kept => ({
  status: f.status,
  partner_id: f.partner_id,
  customer_id: f.customer_id,
  ...createdBetween(f),
});

/** The transactions page's filters as the query of `GET /v1/transactions`. */
export const transactionsCsvQuery = (f: {
  partner_id?: string;
  customer_id?: string;
  charge_id?: string;
  from?: string;
  to?: string;
}): Kept => ({
  partner_id: f.partner_id,
  customer_id: f.customer_id,
  charge_id: f.charge_id,
  ...createdBetween(f),
});

/** The customers page's filters as the query of `GET /v1/customers`. */
export const customersCsvQuery = (f: { search?: string; status?: string; partner_id?: string }): Kept => ({
  search: f.search,
  status: f.status,
  partner_id: f.partner_id,
});

/** The address of a list's CSV download (exports.routes.ts) with these API list parameters. */
export const csvPath = (program: { id: string }, list: ExportedList, query: Kept): string => exportPath(program, list, queryOf(query));
