import { z } from 'zod';
import type { Db } from '../db/database.js';
import { idField } from '../http/fields.js';
import { type Kept, type PickedRecord, type Picker, queryOf } from '../pages/filters.js';
import { customerLabel, partnerName } from '../pages/format.js';
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
export const PickerQuery = z.strictObject({
  partner_id: idField.optional(),
  customer_id: idField.optional(),
  partner: z.string().max(254).optional(),
  customer: z.string().max(254).optional(),
});
export const PICKER_FIELDS = ['partner_id', 'customer_id', 'partner', 'customer'] as const;

const partnerRecord = (p: { id: string; first_name: string; last_name: string; email: string }): PickedRecord => {
  const name = partnerName(p);
  return { id: p.id, label: name, detail: name === p.email ? null : p.email };
};

const customerRecord = (c: { id: string; email: string | null; name: string | null }): PickedRecord => {
  const label = customerLabel(c);
  return { id: c.id, label, detail: c.name && c.name !== label ? c.name : null };
};

/**
 * The program's partners, found through the partners list's own search (part of the name or
 * e-mail); a partner id of another program or organization is a 404.
 */
export function partnerPicker(db: Db, ctx: ProgramPageContext): Picker {
  const org = ctx.user.organization_id;
  const programId = ctx.program.id;
  return {
    param: 'partner_id',
    field: 'partner',
    noun: 'Partner',
    source: {
      byId: async (id) => partnerRecord(await requireProgramPartner(db, org, programId, id)),
      search: async (text, limit) => {
        const page = await listPartners(db, org, { program_id: programId, search: text, limit });
        return { records: page.rows.map(partnerRecord), more: page.has_more };
      },
    },
  };
}

/** The program's customers, found by part of their e-mail or name; a customer id of another program or organization is a 404. */
export function customerPicker(db: Db, ctx: ProgramPageContext): Picker {
  const org = ctx.user.organization_id;
  const programId = ctx.program.id;
  return {
    param: 'customer_id',
    field: 'customer',
    noun: 'Customer',
    source: {
      byId: async (id) => customerRecord(await requireProgramCustomer(db, org, programId, id)),
      search: async (text, limit) => {
        const found = await findCustomersByName(db, org, programId, text, limit);
        return { records: found.rows.map(customerRecord), more: found.more };
      },
    },
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
