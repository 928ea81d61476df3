import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CommissionRow, CustomerRow, TransactionRow } from '../../db/schema.js';
import { newId } from '../../ids.js';
import { activeFlows } from '../flows/flows.repository.js';
import type { FlowTrigger } from '../flows/flows.schema.js';
import { planCommissions, type EngineEvent, type EngineFlow } from './engine.js';

/** A customer with what the flows may ask about them and their partner, read in one query. */
export interface AwardSubject {
  customer: CustomerRow;
  partner: { status: string; deleted: boolean; group_id: string; country_code: string | null; total_customers: number };
  currency: string;
  /** The customer's live transactions, not counting one being recorded now. */
  transactionCount: number;
}

/**
 * The live customer of the organization with its award facts, or undefined. `lock` holds the
 * customer row until the SQL transaction ends, so that simultaneous payments of one customer
 * count each other exactly.
 */
export async function loadAwardSubject(trx: Db, organizationId: string, customerId: string, { lock = false } = {}): Promise<AwardSubject | undefined> {
  // The lock comes first, on its own: a statement that waited for a lock still reads with its
  // earlier snapshot, so the counts below would miss a payment that committed meanwhile.
  if (lock) await trx.selectFrom('customers').select('id').where('id', '=', customerId).where('organization_id', '=', organizationId).forUpdate().execute();
  const row = await trx
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
      sql<number>`(select count(*) from transactions t where t.customer_id = c.id and t.deleted_at is null)::int`.as('transaction_count'),
      sql<number>`(select coalesce(sum(s.customers), 0) from partner_stats s where s.partner_id = c.partner_id)::int`.as('partner_total_customers'),
    ])
    .where('c.id', '=', customerId)
    .where('c.organization_id', '=', organizationId)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { partner_status, partner_deleted_at, partner_group_id, partner_country_code, currency_code, transaction_count, partner_total_customers, ...customer } = row;
  return {
    customer,
    partner: {
      status: partner_status,
      deleted: partner_deleted_at !== null,
      group_id: partner_group_id,
      country_code: partner_country_code,
      total_customers: partner_total_customers,
    },
    currency: currency_code,
    transactionCount: transaction_count,
  };
}

/**
 * Runs the program's flows for an event and writes the commissions they earn, inside the
 * caller's SQL transaction. Only an active partner earns; the record of the event stays either way.
 */
async function award(trx: Db, trigger: FlowTrigger, flows: EngineFlow[], subject: AwardSubject, transaction?: TransactionRow): Promise<CommissionRow[]> {
  const { customer, partner } = subject;
  if (partner.deleted || partner.status !== 'active') return [];

  const t = transaction;
  const at = new Date(t ? t.created_at : customer.created_at);
  const event: EngineEvent = {
    trigger,
    at,
    transaction: t && {
      amount: t.amount,
      billing_type: t.billing_type,
      interval: t.interval,
      product_id: t.product_id,
      product_name: t.product_name,
      source: t.source,
      currency: t.currency,
    },
    customer: { transaction_count: subject.transactionCount + (t ? 1 : 0), lead_at: new Date(customer.lead_at) },
    partner: { group_id: partner.group_id, country_code: partner.country_code, total_customers: partner.total_customers },
  };
  const planned = planCommissions(flows, event);
  if (planned.length === 0) return [];

  const now = new Date();
  return trx
    .insertInto('commissions')
    .values(
      planned.map((p) => ({
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
        currency: t?.currency ?? subject.currency,
        charge_id: t?.charge_id ?? null,
        charge_status: t?.status ?? null,
        source: t?.source ?? null,
        approval_type: p.approval_type,
        scheduled_approval_date: p.scheduled_approval_date,
        payout_id: null,
        created_at: at,
        updated_at: now,
      })),
    )
    .returningAll()
    .execute();
}

/** The payment's commissions; `subject` was loaded before the transaction was inserted. */
export async function awardPaymentCommissions(trx: Db, subject: AwardSubject, transaction: TransactionRow): Promise<CommissionRow[]> {
  const flows = await activeFlows(trx, subject.customer.program_id, 'payment');
  return flows.length ? award(trx, 'payment', flows, subject, transaction) : [];
}

export async function awardSignupCommissions(trx: Db, customer: CustomerRow): Promise<CommissionRow[]> {
  const flows = await activeFlows(trx, customer.program_id, 'signup');
  if (flows.length === 0) return [];
  const subject = await loadAwardSubject(trx, customer.organization_id, customer.id);
  return subject ? award(trx, 'signup', flows, subject) : [];
}
