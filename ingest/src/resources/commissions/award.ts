import type { Db } from '../../db/database.js';
import type { CommissionRow, CustomerRow, TransactionRow } from '../../db/schema.js';
import { newId } from '../../ids.js';
import { activeFlows } from '../flows/flows.repository.js';
import type { FlowTrigger } from '../flows/flows.schema.js';
import { loadPartnerStats } from '../partners/partner-stats.js';
import { planCommissions, type EngineEvent } from './engine.js';

/**
 * Runs the program's flows for an event and writes the commissions they earn, inside the
 * caller's SQL transaction. Only an active partner earns; the record of the event stays either way.
 */
async function award(
  trx: Db,
  trigger: FlowTrigger,
  customer: CustomerRow,
  payment?: { transaction: TransactionRow; transactionCount: number },
): Promise<CommissionRow[]> {
  const partner = await trx.selectFrom('partners').selectAll().where('id', '=', customer.partner_id).executeTakeFirst();
  if (!partner || partner.deleted_at !== null || partner.status !== 'active') return [];
  const flows = await activeFlows(trx, customer.program_id, trigger);
  if (flows.length === 0) return [];

  const t = payment?.transaction;
  const at = new Date(t ? t.created_at : customer.created_at);
  const stats = (await loadPartnerStats(trx, [partner.id])).get(partner.id)!;
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
    customer: { transaction_count: payment?.transactionCount ?? 0, lead_at: new Date(customer.lead_at) },
    partner: { group_id: partner.group_id, country_code: partner.country_code, total_customers: stats.total_customers },
  };
  const planned = planCommissions(flows, event);
  if (planned.length === 0) return [];

  const currency =
    t?.currency ??
    (await trx.selectFrom('programs').select('currency_code').where('id', '=', customer.program_id).executeTakeFirstOrThrow()).currency_code;
  const now = new Date();
  return trx
    .insertInto('commissions')
    .values(
      planned.map((p) => ({
        id: newId('commission'),
        organization_id: customer.organization_id,
        program_id: customer.program_id,
        partner_id: partner.id,
        customer_id: customer.id,
        transaction_id: t?.id ?? null,
        flow_id: p.flow_id,
        refund_of: null,
        type: 'reward',
        status: p.status,
        amount: p.amount,
        revenue: t?.amount ?? null,
        currency,
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

/** `transactionCount` counts the customer's transactions, this one included. */
export function awardPaymentCommissions(trx: Db, transaction: TransactionRow, customer: CustomerRow, transactionCount: number): Promise<CommissionRow[]> {
  return award(trx, 'payment', customer, { transaction, transactionCount });
}

export function awardSignupCommissions(trx: Db, customer: CustomerRow): Promise<CommissionRow[]> {
  return award(trx, 'signup', customer);
}
