import { roundHalfUp } from '../../money.js';
import type { ApprovalDef, ConditionDef, FlowTrigger, RewardDef, Subject } from '../flows/flows.schema.js';

/**
 * The commission engine: which commissions an event earns under a program's flows. Pure: the
 * caller loads the flows and the facts and writes the result.
 */

export interface EngineFlow {
  id: string;
  group_id: string | null;
  trigger: FlowTrigger;
  active: boolean;
  conditions: ConditionDef[];
  reward: RewardDef;
  approval: ApprovalDef;
}

export interface EngineTransaction {
  amount: number;
  billing_type: string;
  interval: string | null;
  product_id: string | null;
  product_name: string | null;
  source: string | null;
  currency: string;
}

export interface EngineEvent {
  trigger: FlowTrigger;
  /** When the payment or the signup happened; scheduled approval counts from here. */
  at: Date;
  /** Present for a payment. */
  transaction?: EngineTransaction;
  customer: {
    /** Transactions of the customer, this one included (0 at signup); given when a flow reads it (`factsRead`). */
    transaction_count?: number;
    lead_at: Date;
  };
  partner: {
    group_id: string;
    country_code: string | null;
    /** Given when a flow reads it (`factsRead`). */
    total_customers?: number;
  };
}

/**
 * The facts that cost the caller a query (and, for the payment count, a lock), and whether
 * any of these flows reads them.
 */
export function factsRead(flows: EngineFlow[]): { transactionCount: boolean; partnerCustomers: boolean } {
  const reads = (subject: Subject) => flows.some((f) => f.conditions.some((c) => c.subject === subject));
  return { transactionCount: reads('customer.transaction_count'), partnerCustomers: reads('partner.total_customers') };
}

export interface PlannedCommission {
  flow_id: string;
  amount: number;
  status: 'pending' | 'approved';
  approval_type: ApprovalDef['type'];
  scheduled_approval_date: Date | null;
}

const DAY_MS = 86_400_000;

/** amount × percent / 100, rounded half up to the cent; percent has at most two decimals. */
export function percentOf(amount: number, percent: number): number {
  const hundredths = BigInt(Math.round(percent * 100));
  return roundHalfUp(BigInt(amount) * hundredths, 10000n);
}

function subjectValue(subject: Subject, event: EngineEvent): string | number | null | undefined {
  const t = event.transaction;
  switch (subject) {
    case 'transaction.amount':
      return t?.amount;
    case 'transaction.billing_type':
      return t?.billing_type;
    case 'transaction.interval':
      return t?.interval;
    case 'transaction.product_id':
      return t?.product_id;
    case 'transaction.product_name':
      return t?.product_name;
    case 'transaction.source':
      return t?.source;
    case 'transaction.currency':
      return t?.currency;
    case 'customer.transaction_count':
      return event.customer.transaction_count;
    case 'customer.days_since_lead':
      return Math.max(0, Math.floor((event.at.getTime() - event.customer.lead_at.getTime()) / DAY_MS));
    case 'partner.total_customers':
      return event.partner.total_customers;
    case 'partner.country_code':
      return event.partner.country_code;
  }
}

/** A missing value (no interval on a one-time payment, no country) equals nothing and is unequal to everything. */
export function conditionHolds(c: ConditionDef, event: EngineEvent): boolean {
  const actual = subjectValue(c.subject, event);
  if (actual === null || actual === undefined) return c.op === 'neq';
  switch (c.op) {
    case 'eq':
      return actual === c.value;
    case 'neq':
      return actual !== c.value;
    case 'in':
      return Array.isArray(c.value) && (c.value as (string | number)[]).includes(actual);
    case 'gte':
      return typeof actual === 'number' && typeof c.value === 'number' && actual >= c.value;
    case 'lte':
      return typeof actual === 'number' && typeof c.value === 'number' && actual <= c.value;
  }
}

/** The reward in cents: a product's own rate when it has one; a fixed reward never exceeds the payment. */
export function rewardAmount(reward: RewardDef, transaction: EngineTransaction | undefined): number {
  const rate = (transaction?.product_id && reward.product_rates?.find((r) => r.product_id === transaction.product_id)) || reward;
  if (!transaction) return rate.type === 'fixed' ? rate.value : 0;
  return rate.type === 'percentage' ? percentOf(transaction.amount, rate.value) : Math.min(rate.value, transaction.amount);
}

function approvalOf(approval: ApprovalDef, at: Date): Pick<PlannedCommission, 'status' | 'approval_type' | 'scheduled_approval_date'> {
  switch (approval.type) {
    case 'immediate':
      return { status: 'approved', approval_type: 'immediate', scheduled_approval_date: null };
    case 'scheduled':
      return {
        status: 'pending',
        approval_type: 'scheduled',
        scheduled_approval_date: new Date(at.getTime() + approval.delay_days * DAY_MS),
      };
    case 'manual':
      return { status: 'pending', approval_type: 'manual', scheduled_approval_date: null };
  }
}

/**
 * One commission per active flow of this trigger that covers the partner's group and whose
 * conditions all hold. A reward that comes to 0 cents creates nothing.
 */
export function planCommissions(flows: EngineFlow[], event: EngineEvent): PlannedCommission[] {
  const planned: PlannedCommission[] = [];
  for (const flow of flows) {
    if (!flow.active || flow.trigger !== event.trigger) continue;
    if (flow.group_id !== null && flow.group_id !== event.partner.group_id) continue;
    if (!flow.conditions.every((c) => conditionHolds(c, event))) continue;
    const amount = rewardAmount(flow.reward, event.transaction);
    if (amount <= 0) continue;
    planned.push({ flow_id: flow.id, amount, ...approvalOf(flow.approval, event.at) });
  }
  return planned;
}
