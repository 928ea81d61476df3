import type { Db } from '../../db/database.js';
import { conflictOnUnique } from '../../db/errors.js';
import { programTotal } from '../../db/list-counts.js';
import type { CustomerRow, PartnerRow, PromotionCodeRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import { queueEmail } from '../../mail/outbox.js';
import { requireClick } from '../clicks/clicks.service.js';
import { awardSignupCommissions } from '../commissions/award.js';
import { customerEmail } from '../partners/partner-emails.js';
import { lockPartner } from '../partners/partners.repository.js';
import { requirePartner } from '../partners/partners.service.js';
import { findProgram } from '../programs/programs.repository.js';
import { requireProgram } from '../programs/programs.service.js';
import { findPromotionCodes } from '../promotion-codes/promotion-codes.repository.js';
import { codeAppliesTo } from '../promotion-codes/promotion-codes.service.js';
import { flagCustomer, type SignupSignals } from '../risk/risk-flags.js';
import {
  findCustomer,
  findExistingCustomer,
  hasOtherCustomers,
  insertCustomer,
  selectCustomerList,
  selectCustomersNamed,
  softDeleteCustomer,
  sumCustomerRevenues,
  sumCustomerStats,
  updateCustomerRow,
} from './customers.repository.js';
import type {
  CustomerCreateInput,
  CustomerListQueryInput,
  CustomerObject,
  CustomerRetrieveQueryInput,
  CustomerUpdateInput,
  WarningObject,
} from './customers.schema.js';
import { presentCustomers, toCustomerStats, toCustomerWithIdentifier } from './customers.serializer.js';

/** The caller's live customer, or 404. */
export async function requireCustomer(db: Db, organizationId: string, customerId: string, param?: string): Promise<CustomerRow> {
  const found = await findCustomer(db, organizationId, customerId);
  if (!found) throw notFound('customer', customerId, param);
  return found;
}

/** A customer named by a filter of a program's list must be one of the program's: another program's or organization's is a 404, not an empty list. */
export async function requireProgramCustomer(db: Db, organizationId: string, programId: string, customerId: string): Promise<CustomerRow> {
  const customer = await requireCustomer(db, organizationId, customerId, 'customer_id');
  if (customer.program_id !== programId) throw notFound('customer', customerId, 'customer_id');
  return customer;
}

/**
 * The program's customers whose e-mail or name holds `text`, newest first, at most `limit`, and
 * whether more match: what the dashboard's customer picker offers (ingest/docs/dashboard.md#list-filters).
 */
export async function findCustomersByName(
  db: Db,
  organizationId: string,
  programId: string,
  text: string,
  limit: number,
): Promise<{ rows: CustomerObject[]; more: boolean }> {
  const rows = await selectCustomersNamed(db, organizationId, programId, text, limit + 1).execute();
  return { rows: await presentCustomers(db, rows.slice(0, limit), undefined), more: rows.length > limit };
}

/** A page of the program's customers, filtered; total_count of an unfiltered page comes from the kept counters. */
export async function listCustomers(db: Db, organizationId: string, query: CustomerListQueryInput): Promise<Page<CustomerObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filtered = selectCustomerList(db, organizationId, {
    programId: program.id,
    partnerId: query.partner_id,
    status: query.status,
    search: query.search,
  });
  const page = await paginate(filtered, query, { createdAt: 'created_at', id: 'id' }, programTotal(db, 'customers', program.id));
  return { ...page, rows: await presentCustomers(db, page.rows, query.expand) };
}

/** One customer with its expansions, and its stats when `include[]=stats` asks for them. */
export async function retrieveCustomer(db: Db, organizationId: string, id: string, query: CustomerRetrieveQueryInput) {
  const customer = await requireCustomer(db, organizationId, id);
  const [[presented], stats] = await Promise.all([
    presentCustomers(db, [customer], query.expand),
    query.include?.includes('stats') ? sumCustomerStats(db, customer.id) : undefined,
  ]);
  return stats ? { ...presented, stats: toCustomerStats(stats) } : presented;
}

/** The revenue (net of refunds) of each of these customers of the caller, per currency: `{currency: cents}` by customer id. */
export async function customerRevenues(
  db: Db,
  organizationId: string,
  customerIds: string[],
): Promise<Map<string, Record<string, number>>> {
  const revenues = new Map<string, Record<string, number>>();
  for (const row of await sumCustomerRevenues(db, organizationId, customerIds)) {
    revenues.set(row.customer_id, { ...revenues.get(row.customer_id), [row.currency]: row.revenue });
  }
  return revenues;
}

export interface CustomerWrite {
  customer: CustomerRow;
  warnings: WarningObject[];
}

/** 409 with the existing customer in `data`. */
function customerExists(existing: CustomerRow): ApiError {
  return new ApiError('conflict_error', 'Customer already exists', { extra: { data: toCustomerWithIdentifier(existing) } });
}

const notApplied = (code: string): WarningObject => ({
  code: 'promotion_code_not_applied',
  message: `Promotion code '${code}' does not belong to the referring partner, their group or the program, or is inactive; it was not applied`,
});

/** Called once an e-mail was queued, so the mailer sends it soon after the commit. */
export type OnEmailQueued = () => void;

/**
 * Inserts a customer and the commissions of the program's signup flows, together, and queues the
 * partner's first- or new-customer e-mail in the same SQL transaction
 * (ingest/docs/partner-emails.md). When the partner wants either, their row is locked first, before
 * the insert, so that customers made at once count each other and exactly one is the first. A taken
 * identifier or integrator id in the program answers 409 with the existing customer; unique indexes
 * decide, so simultaneous inserts yield one customer.
 */
async function insertWithSignupCommissions(
  db: Db,
  row: Omit<CustomerRow, 'deleted_at'>,
  partner: PartnerRow,
  onEmailQueued?: OnEmailQueued,
  signals: SignupSignals = {},
): Promise<CustomerRow> {
  const existing = await findExistingCustomer(db, row.program_id, { identifier: row.identifier, customerId: row.customer_id });
  if (existing) throw customerExists(existing);
  const taken = customerTaken(db, row.program_id, { identifier: row.identifier, customerId: row.customer_id });
  const notify = partner.first_customer_email_active || partner.new_customer_email_active;
  let queued = false;
  const customer = await conflictOnUnique(['customers_program_identifier', 'customers_program_customer_id'], taken, () =>
    inTransaction(db, async (trx) => {
      const current = notify ? await lockPartner(trx, partner.id) : undefined;
      const inserted = await insertCustomer(trx, row);
      // The risk rules flag the customer with its creation: its commissions are held from the start.
      await flagCustomer(trx, inserted, partner, signals);
      await awardSignupCommissions(trx, inserted);
      queued = current ? await queueCustomerEmail(trx, current, inserted) : false;
      return inserted;
    }),
  );
  if (queued) onEmailQueued?.();
  return customer;
}

/** The partner's e-mail about a new customer, if their switches want one; true when queued. */
async function queueCustomerEmail(trx: Db, partner: PartnerRow, customer: CustomerRow): Promise<boolean> {
  const program = await findProgram(trx, partner.organization_id, partner.program_id);
  if (!program) return false;
  const first = !(await hasOtherCustomers(trx, partner.id, customer.id));
  const email = customerEmail(partner, program, customer, first);
  if (email) await queueEmail(trx, email);
  return email !== undefined;
}

/** An identifier or integrator id taken in the program: 409 with the customer that has it. */
const customerTaken = (db: Db, programId: string, keys: Parameters<typeof findExistingCustomer>[2]) => async () => {
  const winner = await findExistingCustomer(db, programId, keys);
  return winner && customerExists(winner);
};

interface Attribution {
  partner: PartnerRow;
  clickId: string | null;
  /** The partner-owned code that attributed the customer, when nothing else did. */
  attributingCode?: PromotionCodeRow;
}

/**
 * Who a customer belongs to (ingest/docs/commissions.md#who-a-customer-belongs-to): partner_id or
 * click_id (agreeing), else a partner-owned promotion code.
 */
async function attribute(db: Db, organizationId: string, input: CustomerCreateInput): Promise<Attribution> {
  const click = input.click_id ? await requireClick(db, organizationId, input.click_id, 'click_id') : null;
  if (input.partner_id) {
    const partner = await requirePartner(db, organizationId, input.partner_id, 'partner_id');
    if (click && click.partner_id !== partner.id) throw badRequest('click_id is a click of another partner than partner_id', 'click_id');
    return { partner, clickId: click?.id ?? null };
  }
  if (click) return { partner: await requirePartner(db, organizationId, click.partner_id, 'click_id'), clickId: click.id };
  if (!input.promotion_code) {
    throw badRequest("Give partner_id, click_id or a partner's promotion_code to attribute the customer", 'partner_id');
  }
  const owned = (await findPromotionCodes(db, { organizationId, programId: input.program_id, code: input.promotion_code })).filter(
    (c) => c.partner_id && c.active,
  );
  if (owned.length === 0) {
    throw badRequest("promotion_code is not an active partner's code, so it cannot attribute the customer", 'promotion_code');
  }
  if (owned.length > 1) throw badRequest('More than one program has this promotion code; give program_id', 'program_id');
  const partner = await requirePartner(db, organizationId, owned[0].partner_id!, 'promotion_code');
  return { partner, clickId: null, attributingCode: owned[0] };
}

/** The id of the code when it applies to this partner's customer, else a warning. */
async function applyPromotionCode(
  db: Db,
  organizationId: string,
  partner: PartnerRow,
  code: string,
): Promise<{ promotionCodeId: string } | { warning: WarningObject }> {
  const [found] = await findPromotionCodes(db, { organizationId, programId: partner.program_id, code });
  return found && codeAppliesTo(found, partner) ? { promotionCodeId: found.id } : { warning: notApplied(code) };
}

/** What identifies a customer in its program: `identifier`, else the e-mail, else the integrator id. */
const identifierOf = (input: CustomerCreateInput): string | undefined => input.identifier ?? input.email ?? input.customer_id ?? undefined;

/**
 * The program's customer that these details name (by identifier or integrator id), else a new one
 * made from them: for Stripe's events, which want a customer where the API answers 409. The unique
 * indexes that give the API its 409 also decide between simultaneous creations here: the one that
 * loses gets the winner.
 */
export async function findOrCreateCustomer(
  db: Db,
  organizationId: string,
  programId: string,
  input: CustomerCreateInput,
  onEmailQueued?: OnEmailQueued,
): Promise<CustomerRow> {
  const keys = { identifier: identifierOf(input), customerId: input.customer_id };
  const existing = keys.identifier ? await findExistingCustomer(db, programId, keys) : undefined;
  if (existing) return existing;
  try {
    return (await createCustomer(db, organizationId, input, onEmailQueued)).customer;
  } catch (err) {
    const winner = err instanceof ApiError && err.type === 'conflict_error' ? await findExistingCustomer(db, programId, keys) : undefined;
    if (winner) return winner;
    throw err;
  }
}

export async function createCustomer(
  db: Db,
  organizationId: string,
  input: CustomerCreateInput,
  onEmailQueued?: OnEmailQueued,
): Promise<CustomerWrite> {
  const identifier = identifierOf(input);
  if (!identifier) throw badRequest('Give email, customer_id or identifier to identify the customer', 'email');
  const { partner, clickId, attributingCode } = await attribute(db, organizationId, input);
  if (input.program_id && input.program_id !== partner.program_id) {
    throw badRequest('program_id is not the program of the referring partner', 'program_id');
  }

  const warnings: WarningObject[] = [];
  let promotionCodeId: string | null = attributingCode?.id ?? null;
  if (input.promotion_code && !attributingCode) {
    const applied = await applyPromotionCode(db, organizationId, partner, input.promotion_code);
    if ('warning' in applied) warnings.push(applied.warning);
    else promotionCodeId = applied.promotionCodeId;
  }

  const createdAt = input.created_at ?? new Date();
  const status = input.status ?? 'lead';
  const customer = await insertWithSignupCommissions(
    db,
    {
      id: newId('customer'),
      organization_id: organizationId,
      program_id: partner.program_id,
      partner_id: partner.id,
      identifier,
      email: input.email ?? null,
      name: input.name ?? null,
      customer_id: input.customer_id ?? null,
      subscription_id: input.subscription_id ?? null,
      click_id: clickId,
      promotion_code_id: promotionCodeId,
      status,
      plan: input.plan ?? null,
      lead_at: input.lead_at ?? createdAt,
      active_at: input.active_at ?? (status === 'active' ? createdAt : null),
      created_at: createdAt,
      updated_at: new Date(),
    },
    partner,
    onEmailQueued,
  );
  return { customer, warnings };
}

export async function updateCustomer(db: Db, organizationId: string, id: string, input: CustomerUpdateInput): Promise<CustomerWrite> {
  const current = await requireCustomer(db, organizationId, id);
  const partner = await requirePartner(db, organizationId, current.partner_id).catch(() => null);
  const { promotion_code, click_id, ...plain } = input;

  if (click_id !== undefined) {
    const click = await requireClick(db, organizationId, click_id, 'click_id');
    if (click.partner_id !== current.partner_id) {
      throw badRequest("click_id is a click of another partner; a customer's attribution does not change on update", 'click_id');
    }
  }
  if (input.customer_id && input.customer_id !== current.customer_id) {
    const existing = await findExistingCustomer(db, current.program_id, { customerId: input.customer_id });
    if (existing) throw customerExists(existing);
  }

  const warnings: WarningObject[] = [];
  let promotionCodeId: string | undefined;
  if (promotion_code !== undefined) {
    const applied = partner
      ? await applyPromotionCode(db, organizationId, partner, promotion_code)
      : { warning: notApplied(promotion_code) };
    if ('warning' in applied) warnings.push(applied.warning);
    else promotionCodeId = applied.promotionCodeId;
  }

  // active_at records the first time the customer became active, unless given.
  const becomesActive = input.status === 'active' && current.active_at === null && input.active_at === undefined;
  const emailChanged = input.email !== undefined && input.email !== current.email;
  const customer = await conflictOnUnique(
    ['customers_program_customer_id'],
    customerTaken(db, current.program_id, { customerId: input.customer_id }),
    () =>
      inTransaction(db, async (trx) => {
        const updated = await updateCustomerRow(trx, current.id, {
          ...plain,
          ...(click_id !== undefined ? { click_id } : {}),
          ...(promotionCodeId ? { promotion_code_id: promotionCodeId } : {}),
          ...(becomesActive ? { active_at: new Date() } : {}),
          updated_at: new Date(),
        });
        // A new e-mail is looked at by the risk rules as a new customer's is.
        if (emailChanged && partner) await flagCustomer(trx, updated, partner);
        return updated;
      }),
  );
  return { customer, warnings };
}

/** Soft delete: hidden from the API, identifier free again; transactions and commissions stay. */
export async function deleteCustomer(db: Db, organizationId: string, id: string): Promise<void> {
  const customer = await requireCustomer(db, organizationId, id);
  await softDeleteCustomer(db, customer.id, new Date());
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The tracking script's signup: the click becomes a lead of the click's partner, identified by
 * the given string (also kept as `email` when it is one). A taken identifier → 409.
 */
export async function convertClickToLead(
  db: Db,
  q: { organizationId: string; clickId: string; identifier: string },
  signals: SignupSignals,
  onEmailQueued?: OnEmailQueued,
): Promise<CustomerRow> {
  const click = await requireClick(db, q.organizationId, q.clickId, 'click_id');
  const partner = await requirePartner(db, q.organizationId, click.partner_id, 'click_id');
  const now = new Date();
  return insertWithSignupCommissions(
    db,
    {
      id: newId('customer'),
      organization_id: q.organizationId,
      program_id: partner.program_id,
      partner_id: partner.id,
      identifier: q.identifier,
      email: EMAIL.test(q.identifier) ? q.identifier : null,
      name: null,
      customer_id: null,
      subscription_id: null,
      click_id: click.id,
      promotion_code_id: null,
      status: 'lead',
      plan: null,
      lead_at: now,
      active_at: null,
      created_at: now,
      updated_at: now,
    },
    partner,
    onEmailQueued,
    signals,
  );
}
