import type { Db } from '../../db/database.js';
import type { CommissionRow, CustomerRow, NewCommission } from '../../db/schema.js';
import { newId } from '../../ids.js';
import { activeFlows } from '../flows/flows.repository.js';
import type { FlowTrigger } from '../flows/flows.schema.js';
import { type CountedFacts, type Earner, findEarner, insertCommissions, loadCountedFacts } from './commissions.repository.js';
import { type EngineEvent, type EngineFlow, type EngineTransaction, type PlannedCommission, planCommissions } from './engine.js';

/**
 * Runs a program's flows for an event: the facts are read by the commissions repository, the
 * engine decides, and `planRewards` turns its answer into rows to insert.
 */

/** An event that may earn commissions: a payment or a signup. */
export interface RewardedEvent {
  trigger: FlowTrigger;
  /** When the payment or the signup happened. */
  at: Date;
  /** For a payment: the transaction about to be recorded, with its id. */
  transaction?: EngineTransaction & { id: string; charge_id: string | null; status: string };
}

/** Who would earn: the referring partner's facts the flows read, and when their customer became a lead. */
export interface EarningPartner {
  partner: Earner['partner'];
  lead_at: Date;
}

/**
 * What an event earns under these flows, before anything is written: the engine's plan, with the
 * rule that only an active partner earns. `planRewards` (every payment and signup) and the
 * dashboard's preview (a dry run) both ask this.
 */
export function planEarnings(
  flows: EngineFlow[],
  earner: EarningPartner,
  facts: CountedFacts,
  event: Pick<EngineEvent, 'trigger' | 'at' | 'transaction'>,
): PlannedCommission[] {
  const { partner } = earner;
  if (partner.deleted || partner.status !== 'active') return [];
  const t = event.transaction;
  return planCommissions(flows, {
    trigger: event.trigger,
    at: event.at,
    transaction: t,
    customer: {
      transaction_count: facts.transactionCount === undefined ? undefined : facts.transactionCount + (t ? 1 : 0),
      lead_at: earner.lead_at,
    },
    partner: { group_id: partner.group_id, country_code: partner.country_code, total_customers: facts.partnerCustomers },
  });
}

/**
 * The commissions an event earns under these flows, as rows to insert. Only an active partner
 * earns; the record of the event stays either way.
 */
export function planRewards(flows: EngineFlow[], earner: Earner, facts: CountedFacts, event: RewardedEvent): NewCommission[] {
  const { customer } = earner;
  const t = event.transaction;
  const planned = planEarnings(flows, { partner: earner.partner, lead_at: new Date(customer.lead_at) }, facts, event);
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
  const earner = await findEarner(trx, customer.organization_id, customer.id);
  if (!earner) return [];
  const rows = planRewards(flows, earner, await loadCountedFacts(trx, earner, flows), {
    trigger: 'signup',
    at: new Date(customer.created_at),
  });
  return rows.length ? insertCommissions(trx, rows) : [];
}
