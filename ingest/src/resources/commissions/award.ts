import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CommissionRow, CustomerRow, NewCommission } from '../../db/schema.js';
import { newId } from '../../ids.js';
import { activeFlows } from '../flows/flows.repository.js';
import type { FlowTrigger } from '../flows/flows.schema.js';
import { type EngineFlow, type EngineTransaction, factsRead, planCommissions } from './engine.js';

/** A customer with what every flow may ask about them and their partner, read in one query. */
export interface Earner {
  customer: CustomerRow;
  partner: { status: string; deleted: boolean; group_id: string; country_code: string | null };
  /** The program's currency. */
  currency: string;
}

/** What some flows ask besides, each costing a query: see `factsRead`. */
export interface CountedFacts {
  /** The customer's live transactions, not counting one being recorded now. */
  transactionCount?: number;
  partnerCustomers?: number;
}

/** The live customer of the organization with its partner and program facts; `lock` holds the customer row until the SQL transaction ends. */
export async function loadEarner(db: Db, organizationId: string, customerId: string, { lock = false } = {}): Promise<Earner | undefined> {
  let query = db
    .selectFrom('customers as c')
    .innerJoin('partners as p', 'p.id', 'c.partner_id')
    .innerJoin('programs as pr', 'pr.id', 'c.program_id')
    .selectAll('c')
    .select([
      'p.status as partner_status',
      'p.deleted_at as partner_deleted_at',
      'p.group_id as partner_group_id',
      'p.country_code as partner_country_code',
      'pr.currency_code',
    ])
    .where('c.id', '=', customerId)
    .where('c.organization_id', '=', organizationId)
    .where('c.deleted_at', 'is', null);
  if (lock) query = query.forUpdate('c');
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const { partner_status, partner_deleted_at, partner_group_id, partner_country_code, currency_code, ...customer } = row;
  return {
    customer,
    partner: {
      status: partner_status,
      deleted: partner_deleted_at !== null,
      group_id: partner_group_id,
      country_code: partner_country_code,
    },
    currency: currency_code,
  };
}

/**
 * The counts these flows read, and only those. Under the customer's lock (a statement after
 * the one that took it, so that it sees payments committed while it waited) the transaction
 * count is exact.
 */
export async function loadCountedFacts(db: Db, earner: Earner, flows: EngineFlow[]): Promise<CountedFacts> {
  const reads = factsRead(flows);
  if (!reads.transactionCount && !reads.partnerCustomers) return {};
  const { customer } = earner;
  const row = await db
    .selectNoFrom([
      reads.transactionCount
        ? sql<number>`(select count(*) from transactions t where t.customer_id = ${customer.id} and t.deleted_at is null)::int`.as(
            'transaction_count',
          )
        : sql<null>`null`.as('transaction_count'),
      reads.partnerCustomers
        ? sql<number>`(select coalesce(sum(s.customers), 0) from partner_stats s where s.partner_id = ${customer.partner_id})::int`.as(
            'partner_customers',
          )
        : sql<null>`null`.as('partner_customers'),
    ])
    .executeTakeFirstOrThrow();
  return { transactionCount: row.transaction_count ?? undefined, partnerCustomers: row.partner_customers ?? undefined };
}

export interface RewardedEvent {
  trigger: FlowTrigger;
  /** When the payment or the signup happened. */
  at: Date;
  /** For a payment: the transaction about to be recorded, with its id. */
  transaction?: EngineTransaction & { id: string; charge_id: string | null; status: string };
}

/**
 * The commissions an event earns under these flows, as rows to insert. Only an active partner
 * earns; the record of the event stays either way.
 */
export function planRewards(flows: EngineFlow[], earner: Earner, facts: CountedFacts, event: RewardedEvent): NewCommission[] {
  const { customer, partner } = earner;
  if (partner.deleted || partner.status !== 'active') return [];
  const t = event.transaction;
  const planned = planCommissions(flows, {
    trigger: event.trigger,
    at: event.at,
    transaction: t,
    customer: {
      transaction_count: facts.transactionCount === undefined ? undefined : facts.transactionCount + (t ? 1 : 0),
      lead_at: new Date(customer.lead_at),
    },
    partner: { group_id: partner.group_id, country_code: partner.country_code, total_customers: facts.partnerCustomers },
  });
  const now = new Date();
  return planned.map((p) => ({
    id: newId('commission'),
    organization_id: customer.organization_id,
    program_id: customer.program_id,
    partner_id: customer.partner_id,
    customer_id: customer.id,
    transaction_id: t?.id ?? null,
    flow_id: p.flow_id,
    refund_of: null,
    type: 'reward',
    status: p.status,
    amount: p.amount,
    revenue: t?.amount ?? null,
    currency: t?.currency ?? earner.currency,
    charge_id: t?.charge_id ?? null,
    charge_status: t?.status ?? null,
    source: t?.source ?? null,
    approval_type: p.approval_type,
    scheduled_approval_date: p.scheduled_approval_date,
    payout_id: null,
    created_at: event.at,
    updated_at: now,
  }));
}

/** A new customer's signup commissions, inside the SQL transaction that created it. */
export async function awardSignupCommissions(trx: Db, customer: CustomerRow): Promise<CommissionRow[]> {
  const flows = await activeFlows(trx, customer.program_id, 'signup');
  if (flows.length === 0) return [];
  const earner = await loadEarner(trx, customer.organization_id, customer.id);
  if (!earner) return [];
  const rows = planRewards(flows, earner, await loadCountedFacts(trx, earner, flows), {
    trigger: 'signup',
    at: new Date(customer.created_at),
  });
  return rows.length ? trx.insertInto('commissions').values(rows).returningAll().execute() : [];
}
