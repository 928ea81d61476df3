import { describe, expect, it } from 'vitest';
import {
  conditionHolds,
  type EngineEvent,
  type EngineFlow,
  type EngineTransaction,
  factsRead,
  percentOf,
  planCommissions,
  rewardAmount,
} from '../../src/resources/commissions/engine.js';
import type { ConditionDef, RewardDef } from '../../src/resources/flows/flows.schema.js';
import { DAY_MS } from '../support/time.js';

/**
 * The commission engine alone (ingest/docs/commissions.md#commission-flows): no database, exact
 * cents and dates.
 */

const AT = new Date('2026-03-10T12:34:56.789Z');
const GROUP = 'grp_main';

let flowSeq = 0;
function flow(over: Partial<EngineFlow> = {}): EngineFlow {
  flowSeq += 1;
  return {
    id: `flw_${flowSeq}`,
    group_id: null,
    trigger: 'payment',
    active: true,
    conditions: [],
    reward: { type: 'percentage', value: 20 },
    approval: { type: 'immediate' },
    ...over,
  };
}

function tx(over: Partial<EngineTransaction> = {}): EngineTransaction {
  return {
    amount: 10_000,
    billing_type: 'subscription',
    interval: 'month',
    product_id: 'prod_basic',
    product_name: 'Basic',
    source: 'stripe',
    currency: 'USD',
    ...over,
  };
}

interface EventOver {
  trigger?: EngineEvent['trigger'];
  at?: Date;
  transaction?: Partial<EngineTransaction> | null;
  customer?: Partial<EngineEvent['customer']>;
  partner?: Partial<EngineEvent['partner']>;
}

/** A payment event by default; `transaction: null` leaves the transaction out (a signup). */
function event(over: EventOver = {}): EngineEvent {
  const trigger = over.trigger ?? 'payment';
  const withTransaction = over.transaction !== null && (over.transaction !== undefined || trigger === 'payment');
  return {
    trigger,
    at: over.at ?? AT,
    ...(withTransaction ? { transaction: tx(over.transaction ?? {}) } : {}),
    customer: { transaction_count: 1, lead_at: new Date(AT.getTime() - 10 * DAY_MS), ...over.customer },
    partner: { group_id: GROUP, country_code: 'US', total_customers: 5, ...over.partner },
  };
}

const pay = (amount: number, over: Omit<EventOver, 'transaction'> & { transaction?: Partial<EngineTransaction> } = {}) =>
  event({ ...over, transaction: { ...over.transaction, amount } });

const signup = (over: Omit<EventOver, 'trigger' | 'transaction'> = {}) => event({ ...over, trigger: 'signup', transaction: null });

const amounts = (flows: EngineFlow[], ev: EngineEvent) => planCommissions(flows, ev).map((p) => p.amount);

describe('percentOf: rounding half up to the cent', () => {
  it.each([
    [4999, 20, 1000], // 999.8
    [5000, 20, 1000],
    [1, 12.5, 0], // 0.125
    [4, 12.5, 1], // 0.5 exactly → up
    [12, 12.5, 2], // 1.5 → 2
    [20, 12.5, 3], // 2.5 → 3 (not banker's 2)
    [30, 2.5, 1], // 0.75
    [20, 2.5, 1], // 0.5
    [19, 2.5, 0], // 0.475
    [100, 33.33, 33], // 33.33
    [150, 33.33, 50], // 49.995 → 50
    [149, 33.33, 50], // 49.6617
    [3, 33.33, 1], // 0.9999
    [1, 33.33, 0], // 0.3333
    [9999, 33.33, 3333], // 3332.6667
    [10_000, 33.33, 3333],
    [5000, 0.01, 1], // 0.5
    [4999, 0.01, 0], // 0.4999
    [15_000, 0.01, 2], // 1.5
    [1_000_000, 0.01, 100],
    [7, 0.29, 0], // 0.0203; 0.29 × 100 is 28.999… in floating point
    [100_000, 0.29, 290],
    [100_000, 1.15, 1150], // 1.15 × 100 is 114.999… in floating point
    [100_000, 4.35, 4350], // 4.35 × 100 is 434.999… in floating point
    [1500, 8.7, 131], // 130.5: Math.round(1500 × 8.7 / 100) gives 130
    [1000, 16.15, 162], // 161.5: the float formula gives 161
    [1000, 64.35, 644], // 643.5: the float formula gives 643
    [1, 50, 1], // 0.5
    [3, 50, 2], // 1.5
    [12_345, 100, 12_345],
    [12_345, 0, 0],
    [0, 20, 0],
  ])('%i × %d%% = %i', (amount, percent, expected) => {
    expect(percentOf(amount, percent)).toBe(expected);
  });

  it('is exact for amounts near 1e12 cents, where float arithmetic is not', () => {
    expect(percentOf(1_000_000_000_000, 20)).toBe(200_000_000_000);
    expect(percentOf(999_999_999_999, 33.33)).toBe(333_300_000_000); // 333 299 999 999.6667
    expect(percentOf(999_999_999_999, 0.01)).toBe(100_000_000); // 99 999 999.9999
    expect(percentOf(999_999_999_995, 0.01)).toBe(100_000_000); // 99 999 999.9995
    expect(percentOf(999_999_994_999, 0.01)).toBe(99_999_999); // 99 999 999.4999
    expect(percentOf(999_999_995_000, 0.01)).toBe(100_000_000); // 99 999 999.5 → up
    expect(percentOf(999_999_999_999, 99.99)).toBe(999_899_999_999); // 999 899 999 999.0001
    expect(percentOf(999_999_999_999, 12.5)).toBe(125_000_000_000); // 124 999 999 999.875
    expect(percentOf(999_999_999_997, 50)).toBe(499_999_999_999); // 499 999 999 998.5 → up
    expect(percentOf(1_000_000_000_000, 100)).toBe(1_000_000_000_000);
  });
});

describe('rewardAmount', () => {
  const rated: RewardDef = {
    type: 'percentage',
    value: 10,
    product_rates: [
      { product_id: 'prod_pro', type: 'percentage', value: 30 },
      { product_id: 'prod_lifetime', type: 'fixed', value: 2500 },
      { product_id: 'prod_free', type: 'percentage', value: 0 },
    ],
  };

  it('uses a product rate in place of the base rate, and the base rate for other products', () => {
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: 'prod_pro' }))).toBe(3000);
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: 'prod_lifetime' }))).toBe(2500);
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: 'prod_basic' }))).toBe(1000);
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: null }))).toBe(1000);
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: 'PROD_PRO' }))).toBe(1000); // ids are compared exactly
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: 'prod_free' }))).toBe(0);
  });

  it('matches product rates on product_id, not on product_name', () => {
    expect(rewardAmount(rated, tx({ amount: 10_000, product_id: 'prod_basic', product_name: 'prod_pro' }))).toBe(1000);
  });

  it('caps a fixed reward (base or product rate) at the transaction amount', () => {
    expect(rewardAmount({ type: 'fixed', value: 5000 }, tx({ amount: 4999 }))).toBe(4999);
    expect(rewardAmount({ type: 'fixed', value: 5000 }, tx({ amount: 5000 }))).toBe(5000);
    expect(rewardAmount({ type: 'fixed', value: 5000 }, tx({ amount: 5001 }))).toBe(5000);
    expect(rewardAmount({ type: 'fixed', value: 5000 }, tx({ amount: 0 }))).toBe(0);
    expect(rewardAmount(rated, tx({ amount: 1000, product_id: 'prod_lifetime' }))).toBe(1000);
  });

  it('gives a signup (no transaction) the full fixed value, and 0 for a percentage', () => {
    expect(rewardAmount({ type: 'fixed', value: 5000 }, undefined)).toBe(5000);
    expect(rewardAmount({ type: 'fixed', value: 1_000_000_000_000 }, undefined)).toBe(1_000_000_000_000);
    expect(rewardAmount({ type: 'percentage', value: 50 }, undefined)).toBe(0);
  });
});

describe('planCommissions: rewards', () => {
  it('creates one commission with the rounded percentage', () => {
    const f = flow({ reward: { type: 'percentage', value: 20 } });
    expect(planCommissions([f], pay(4999))).toEqual([
      { flow_id: f.id, amount: 1000, status: 'approved', approval_type: 'immediate', scheduled_approval_date: null },
    ]);
  });

  it('creates nothing when the reward rounds to 0 cents', () => {
    expect(planCommissions([flow({ reward: { type: 'percentage', value: 12.5 } })], pay(1))).toEqual([]);
    expect(planCommissions([flow({ reward: { type: 'percentage', value: 0.01 } })], pay(4999))).toEqual([]);
    expect(planCommissions([flow({ reward: { type: 'percentage', value: 0 } })], pay(100_000))).toEqual([]);
    expect(planCommissions([flow({ reward: { type: 'fixed', value: 0 } })], pay(100_000))).toEqual([]);
  });

  it('rounds 0.75 cents up to 1, and 33.33% as cents', () => {
    expect(amounts([flow({ reward: { type: 'percentage', value: 2.5 } })], pay(30))).toEqual([1]);
    expect(amounts([flow({ reward: { type: 'percentage', value: 33.33 } })], pay(150))).toEqual([50]);
    expect(amounts([flow({ reward: { type: 'percentage', value: 33.33 } })], pay(2999))).toEqual([1000]); // 999.5667
    expect(amounts([flow({ reward: { type: 'percentage', value: 0.01 } })], pay(5000))).toEqual([1]);
  });

  it('is exact on a 1e12-cent payment', () => {
    expect(amounts([flow({ reward: { type: 'percentage', value: 33.33 } })], pay(999_999_999_999))).toEqual([333_300_000_000]);
    expect(amounts([flow({ reward: { type: 'fixed', value: 1_000_000_000_000 } })], pay(999_999_999_999))).toEqual([999_999_999_999]);
  });

  it('caps a fixed reward larger than the payment at the payment amount', () => {
    expect(amounts([flow({ reward: { type: 'fixed', value: 5000 } })], pay(1234))).toEqual([1234]);
    expect(amounts([flow({ reward: { type: 'fixed', value: 5000 } })], pay(0))).toEqual([]);
  });

  it('gives a signup flow its full fixed value', () => {
    const f = flow({ trigger: 'signup', reward: { type: 'fixed', value: 5000 } });
    expect(planCommissions([f], signup())).toEqual([
      { flow_id: f.id, amount: 5000, status: 'approved', approval_type: 'immediate', scheduled_approval_date: null },
    ]);
  });

  it('uses per-product rates (percentage and fixed) over the base rate; other products use the base', () => {
    const f = flow({
      reward: {
        type: 'percentage',
        value: 20,
        product_rates: [
          { product_id: 'prod_pro', type: 'percentage', value: 35 },
          { product_id: 'prod_addon', type: 'fixed', value: 700 },
        ],
      },
    });
    expect(amounts([f], pay(10_000, { transaction: { product_id: 'prod_pro' } }))).toEqual([3500]);
    expect(amounts([f], pay(10_000, { transaction: { product_id: 'prod_addon' } }))).toEqual([700]);
    expect(amounts([f], pay(500, { transaction: { product_id: 'prod_addon' } }))).toEqual([500]);
    expect(amounts([f], pay(10_000, { transaction: { product_id: 'prod_basic' } }))).toEqual([2000]);
    expect(amounts([f], pay(10_000, { transaction: { product_id: null } }))).toEqual([2000]);

    const fixedBase = flow({
      reward: { type: 'fixed', value: 1000, product_rates: [{ product_id: 'prod_pro', type: 'percentage', value: 50 }] },
    });
    expect(amounts([fixedBase], pay(10_000, { transaction: { product_id: 'prod_pro' } }))).toEqual([5000]);
    expect(amounts([fixedBase], pay(10_000, { transaction: { product_id: 'prod_basic' } }))).toEqual([1000]);
  });

  it('creates nothing for a product whose own rate is 0, even with a non-zero base', () => {
    const f = flow({ reward: { type: 'percentage', value: 20, product_rates: [{ product_id: 'prod_free', type: 'fixed', value: 0 }] } });
    expect(amounts([f], pay(10_000, { transaction: { product_id: 'prod_free' } }))).toEqual([]);
    expect(amounts([f], pay(10_000, { transaction: { product_id: 'prod_basic' } }))).toEqual([2000]);
  });
});

describe('planCommissions: which flows apply', () => {
  it('gives one commission per matching flow, in flow order', () => {
    const a = flow({ reward: { type: 'percentage', value: 10 } });
    const b = flow({ reward: { type: 'fixed', value: 250 }, approval: { type: 'manual' } });
    const c = flow({
      reward: { type: 'percentage', value: 5 },
      conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }],
    });
    const planned = planCommissions([a, b, c], pay(10_000));
    expect(planned.map((p) => [p.flow_id, p.amount, p.status])).toEqual([
      [a.id, 1000, 'approved'],
      [b.id, 250, 'pending'],
      [c.id, 500, 'approved'],
    ]);
    expect(planCommissions([c, b, a], pay(10_000)).map((p) => p.flow_id)).toEqual([c.id, b.id, a.id]);
  });

  it('gives two identical flows a commission each', () => {
    const a = flow();
    const b = flow();
    expect(planCommissions([a, b], pay(10_000)).map((p) => [p.flow_id, p.amount])).toEqual([
      [a.id, 2000],
      [b.id, 2000],
    ]);
  });

  it('skips a matching flow whose reward is 0 but keeps the others', () => {
    const a = flow({ reward: { type: 'percentage', value: 12.5 } });
    const b = flow({ reward: { type: 'fixed', value: 1 } });
    expect(planCommissions([a, b], pay(1)).map((p) => [p.flow_id, p.amount])).toEqual([[b.id, 1]]);
  });

  it('applies a group flow only to partners of that group; a null group to everyone', () => {
    const all = flow({ group_id: null, reward: { type: 'fixed', value: 100 } });
    const mine = flow({ group_id: GROUP, reward: { type: 'fixed', value: 200 } });
    const other = flow({ group_id: 'grp_other', reward: { type: 'fixed', value: 300 } });
    expect(planCommissions([all, mine, other], pay(10_000)).map((p) => p.flow_id)).toEqual([all.id, mine.id]);
    expect(planCommissions([all, mine, other], pay(10_000, { partner: { group_id: 'grp_other' } })).map((p) => p.flow_id)).toEqual([
      all.id,
      other.id,
    ]);
    expect(planCommissions([all, mine, other], pay(10_000, { partner: { group_id: 'grp_third' } })).map((p) => p.flow_id)).toEqual([
      all.id,
    ]);
    expect(planCommissions([mine, other], pay(10_000, { partner: { group_id: 'grp_third' } }))).toEqual([]);
  });

  it('ignores inactive flows', () => {
    const off = flow({ active: false });
    const on = flow({ reward: { type: 'fixed', value: 1 } });
    expect(planCommissions([off], pay(10_000))).toEqual([]);
    expect(planCommissions([off, on], pay(10_000)).map((p) => p.flow_id)).toEqual([on.id]);
    expect(planCommissions([flow({ trigger: 'signup', active: false, reward: { type: 'fixed', value: 10 } })], signup())).toEqual([]);
  });

  it('ignores flows of the other trigger', () => {
    const payment = flow({ trigger: 'payment', reward: { type: 'fixed', value: 100 } });
    const signupFlow = flow({ trigger: 'signup', reward: { type: 'fixed', value: 500 } });
    expect(planCommissions([payment, signupFlow], pay(10_000)).map((p) => [p.flow_id, p.amount])).toEqual([[payment.id, 100]]);
    expect(planCommissions([payment, signupFlow], signup()).map((p) => [p.flow_id, p.amount])).toEqual([[signupFlow.id, 500]]);
  });

  it('returns nothing without flows', () => {
    expect(planCommissions([], pay(10_000))).toEqual([]);
  });

  it('requires every condition to hold', () => {
    const f = flow({
      conditions: [
        { subject: 'transaction.amount', op: 'gte', value: 1000 },
        { subject: 'partner.country_code', op: 'in', value: ['US', 'CA'] },
      ],
    });
    expect(amounts([f], pay(1000))).toEqual([200]);
    expect(amounts([f], pay(999))).toEqual([]);
    expect(amounts([f], pay(1000, { partner: { country_code: 'FR' } }))).toEqual([]);
    expect(amounts([f], pay(1000, { partner: { country_code: null } }))).toEqual([]);
  });

  it('applies partner conditions to a signup', () => {
    const f = flow({
      trigger: 'signup',
      reward: { type: 'fixed', value: 500 },
      conditions: [{ subject: 'partner.total_customers', op: 'lte', value: 10 }],
    });
    expect(amounts([f], signup({ partner: { total_customers: 10 } }))).toEqual([500]);
    expect(amounts([f], signup({ partner: { total_customers: 11 } }))).toEqual([]);
  });
});

describe('planCommissions: first payment only and recurring for N days', () => {
  const firstOnly = flow({ conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }] });
  const recurring365 = flow({ conditions: [{ subject: 'customer.days_since_lead', op: 'lte', value: 365 }] });

  it('first payment only: customer.transaction_count eq 1', () => {
    expect(amounts([firstOnly], pay(10_000, { customer: { transaction_count: 1 } }))).toEqual([2000]);
    expect(amounts([firstOnly], pay(10_000, { customer: { transaction_count: 2 } }))).toEqual([]);
    expect(amounts([firstOnly], pay(10_000, { customer: { transaction_count: 0 } }))).toEqual([]);
  });

  it('recurring for 365 days: earns at 365 days, not at 366', () => {
    const lead = new Date('2025-01-01T00:00:00.000Z');
    const at = (ms: number) => pay(10_000, { at: new Date(lead.getTime() + ms), customer: { lead_at: lead } });
    expect(amounts([recurring365], at(0))).toEqual([2000]);
    expect(amounts([recurring365], at(365 * DAY_MS))).toEqual([2000]);
    expect(amounts([recurring365], at(366 * DAY_MS - 1))).toEqual([2000]); // 365.99999 days → floor 365
    expect(amounts([recurring365], at(366 * DAY_MS))).toEqual([]);
    expect(amounts([recurring365], at(400 * DAY_MS))).toEqual([]);
  });

  it('counts days_since_lead by floor', () => {
    const lead = new Date('2025-06-15T18:00:00.000Z');
    const days = (ms: number, op: 'eq', value: number) =>
      conditionHolds(
        { subject: 'customer.days_since_lead', op, value },
        event({ at: new Date(lead.getTime() + ms), customer: { lead_at: lead } }),
      );
    expect(days(DAY_MS - 1, 'eq', 0)).toBe(true);
    expect(days(DAY_MS, 'eq', 1)).toBe(true);
    expect(days(DAY_MS + 1, 'eq', 1)).toBe(true);
    expect(days(2 * DAY_MS - 1, 'eq', 1)).toBe(true);
    expect(days(2 * DAY_MS - 1, 'eq', 2)).toBe(false);
    expect(days(30 * DAY_MS + 23 * 3_600_000, 'eq', 30)).toBe(true);
  });

  it('combines first-payment and recurring flows on the same payment', () => {
    const lead = new Date('2025-01-01T00:00:00.000Z');
    const first = flow({
      reward: { type: 'fixed', value: 1000 },
      conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }],
    });
    const recurring = flow({
      reward: { type: 'percentage', value: 10 },
      conditions: [{ subject: 'customer.days_since_lead', op: 'lte', value: 365 }],
    });
    const ev = (count: number, days: number) =>
      pay(5000, { at: new Date(lead.getTime() + days * DAY_MS), customer: { lead_at: lead, transaction_count: count } });
    expect(planCommissions([first, recurring], ev(1, 0)).map((p) => [p.flow_id, p.amount])).toEqual([
      [first.id, 1000],
      [recurring.id, 500],
    ]);
    expect(planCommissions([first, recurring], ev(13, 365)).map((p) => [p.flow_id, p.amount])).toEqual([[recurring.id, 500]]);
    expect(planCommissions([first, recurring], ev(14, 366))).toEqual([]);
  });
});

describe('conditionHolds', () => {
  const ev = event({
    transaction: {
      amount: 4900,
      billing_type: 'subscription',
      interval: 'month',
      product_id: 'prod_pro',
      product_name: 'Pro',
      source: 'stripe',
      currency: 'EUR',
    },
    customer: { transaction_count: 3, lead_at: new Date(AT.getTime() - 40 * DAY_MS - 5) },
    partner: { country_code: 'DE', total_customers: 12 },
  });
  const holds = (c: ConditionDef, e: EngineEvent = ev) => conditionHolds(c, e);

  it.each([
    ['transaction.amount', 4900],
    ['customer.transaction_count', 3],
    ['customer.days_since_lead', 40],
    ['partner.total_customers', 12],
  ] as const)('number subject %s: eq, neq, in, gte, lte', (subject, actual) => {
    expect(holds({ subject, op: 'eq', value: actual })).toBe(true);
    expect(holds({ subject, op: 'eq', value: actual + 1 })).toBe(false);
    expect(holds({ subject, op: 'eq', value: String(actual) })).toBe(false); // no coercion
    expect(holds({ subject, op: 'neq', value: actual })).toBe(false);
    expect(holds({ subject, op: 'neq', value: actual - 1 })).toBe(true);
    expect(holds({ subject, op: 'in', value: [actual - 1, actual, actual + 1] })).toBe(true);
    expect(holds({ subject, op: 'in', value: [actual - 1, actual + 1] })).toBe(false);
    expect(holds({ subject, op: 'in', value: [String(actual)] })).toBe(false);
    expect(holds({ subject, op: 'gte', value: actual })).toBe(true);
    expect(holds({ subject, op: 'gte', value: actual - 1 })).toBe(true);
    expect(holds({ subject, op: 'gte', value: actual + 1 })).toBe(false);
    expect(holds({ subject, op: 'lte', value: actual })).toBe(true);
    expect(holds({ subject, op: 'lte', value: actual + 1 })).toBe(true);
    expect(holds({ subject, op: 'lte', value: actual - 1 })).toBe(false);
  });

  it.each([
    ['transaction.billing_type', 'subscription'],
    ['transaction.interval', 'month'],
    ['transaction.product_id', 'prod_pro'],
    ['transaction.product_name', 'Pro'],
    ['transaction.source', 'stripe'],
    ['transaction.currency', 'EUR'],
    ['partner.country_code', 'DE'],
  ] as const)('text subject %s: eq, neq, in (exact, case-sensitive)', (subject, actual) => {
    expect(holds({ subject, op: 'eq', value: actual })).toBe(true);
    expect(holds({ subject, op: 'eq', value: actual.toUpperCase() === actual ? actual.toLowerCase() : actual.toUpperCase() })).toBe(false);
    expect(holds({ subject, op: 'eq', value: `${actual}x` })).toBe(false);
    expect(holds({ subject, op: 'neq', value: actual })).toBe(false);
    expect(holds({ subject, op: 'neq', value: `${actual}x` })).toBe(true);
    expect(holds({ subject, op: 'in', value: ['zzz', actual] })).toBe(true);
    expect(holds({ subject, op: 'in', value: ['zzz', `${actual}x`] })).toBe(false);
  });

  it('never lets gte/lte hold on a text value', () => {
    expect(holds({ subject: 'transaction.currency', op: 'gte', value: 'AAA' })).toBe(false);
    expect(holds({ subject: 'transaction.currency', op: 'lte', value: 'ZZZ' })).toBe(false);
  });

  it('a null interval: eq false, neq true, in false, gte/lte false', () => {
    const oneTime = event({ transaction: { billing_type: 'one_time', interval: null } });
    expect(holds({ subject: 'transaction.interval', op: 'eq', value: 'month' }, oneTime)).toBe(false);
    expect(holds({ subject: 'transaction.interval', op: 'neq', value: 'month' }, oneTime)).toBe(true);
    expect(holds({ subject: 'transaction.interval', op: 'in', value: ['day', 'week', 'month', 'year'] }, oneTime)).toBe(false);
    expect(holds({ subject: 'transaction.billing_type', op: 'eq', value: 'one_time' }, oneTime)).toBe(true);
  });

  it('a null country: eq false, neq true, in false', () => {
    const noCountry = event({ partner: { country_code: null } });
    expect(holds({ subject: 'partner.country_code', op: 'eq', value: 'US' }, noCountry)).toBe(false);
    expect(holds({ subject: 'partner.country_code', op: 'neq', value: 'US' }, noCountry)).toBe(true);
    expect(holds({ subject: 'partner.country_code', op: 'in', value: ['US', 'DE'] }, noCountry)).toBe(false);
  });

  it('null product and source and name: eq/in false, neq true', () => {
    const bare = event({ transaction: { product_id: null, product_name: null, source: null } });
    for (const subject of ['transaction.product_id', 'transaction.product_name', 'transaction.source'] as const) {
      expect(holds({ subject, op: 'eq', value: 'x' }, bare)).toBe(false);
      expect(holds({ subject, op: 'neq', value: 'x' }, bare)).toBe(true);
      expect(holds({ subject, op: 'in', value: ['x'] }, bare)).toBe(false);
    }
  });

  it('transaction subjects at a signup (no transaction) count as missing', () => {
    const s = signup();
    expect(holds({ subject: 'transaction.amount', op: 'gte', value: 0 }, s)).toBe(false);
    expect(holds({ subject: 'transaction.amount', op: 'lte', value: 1_000_000 }, s)).toBe(false);
    expect(holds({ subject: 'transaction.amount', op: 'eq', value: 0 }, s)).toBe(false);
    expect(holds({ subject: 'transaction.amount', op: 'neq', value: 0 }, s)).toBe(true);
    expect(holds({ subject: 'transaction.currency', op: 'in', value: ['USD'] }, s)).toBe(false);
    expect(holds({ subject: 'transaction.currency', op: 'neq', value: 'USD' }, s)).toBe(true);
  });

  it('zero values are present values, not missing ones', () => {
    const zero = event({ transaction: { amount: 0 }, customer: { transaction_count: 0 }, partner: { total_customers: 0 } });
    expect(holds({ subject: 'transaction.amount', op: 'eq', value: 0 }, zero)).toBe(true);
    expect(holds({ subject: 'transaction.amount', op: 'neq', value: 0 }, zero)).toBe(false);
    expect(holds({ subject: 'customer.transaction_count', op: 'lte', value: 0 }, zero)).toBe(true);
    expect(holds({ subject: 'partner.total_customers', op: 'in', value: [0] }, zero)).toBe(true);
  });

  it('days_since_lead is 0, never negative, for an event before the lead time', () => {
    const early = event({ at: AT, customer: { lead_at: new Date(AT.getTime() + 3 * DAY_MS) } });
    expect(holds({ subject: 'customer.days_since_lead', op: 'eq', value: 0 }, early)).toBe(true);
    expect(holds({ subject: 'customer.days_since_lead', op: 'gte', value: 0 }, early)).toBe(true);
  });
});

describe('planCommissions: approval', () => {
  it('immediate → approved, no date', () => {
    const f = flow({ approval: { type: 'immediate' } });
    expect(planCommissions([f], pay(1000))[0]).toEqual({
      flow_id: f.id,
      amount: 200,
      status: 'approved',
      approval_type: 'immediate',
      scheduled_approval_date: null,
    });
  });

  it('manual → pending, no date', () => {
    const f = flow({ approval: { type: 'manual' } });
    expect(planCommissions([f], pay(1000))[0]).toEqual({
      flow_id: f.id,
      amount: 200,
      status: 'pending',
      approval_type: 'manual',
      scheduled_approval_date: null,
    });
  });

  it.each([0, 1, 30, 365, 3650])('scheduled %i days → pending, dated exactly at + delay_days days', (delay) => {
    const f = flow({ approval: { type: 'scheduled', delay_days: delay } });
    const [p] = planCommissions([f], pay(1000));
    expect(p).toEqual({
      flow_id: f.id,
      amount: 200,
      status: 'pending',
      approval_type: 'scheduled',
      scheduled_approval_date: new Date(AT.getTime() + delay * DAY_MS),
    });
  });

  it('scheduled 30 days from a concrete time (UTC, across a DST change elsewhere)', () => {
    const at = new Date('2026-03-01T23:59:59.999Z');
    const [p] = planCommissions([flow({ approval: { type: 'scheduled', delay_days: 30 } })], pay(1000, { at }));
    expect(p.scheduled_approval_date!.toISOString()).toBe('2026-03-31T23:59:59.999Z');
  });

  it('a signup counts the delay from the event time (the customer creation)', () => {
    const at = new Date('2026-01-31T08:00:00.000Z');
    const [p] = planCommissions(
      [flow({ trigger: 'signup', reward: { type: 'fixed', value: 500 }, approval: { type: 'scheduled', delay_days: 1 } })],
      signup({ at }),
    );
    expect(p.scheduled_approval_date!.toISOString()).toBe('2026-02-01T08:00:00.000Z');
    expect(p.status).toBe('pending');
  });

  it('each flow uses its own approval', () => {
    const a = flow({ approval: { type: 'immediate' } });
    const b = flow({ approval: { type: 'scheduled', delay_days: 7 } });
    const c = flow({ approval: { type: 'manual' } });
    expect(
      planCommissions([a, b, c], pay(1000)).map((p) => [p.status, p.approval_type, p.scheduled_approval_date?.toISOString() ?? null]),
    ).toEqual([
      ['approved', 'immediate', null],
      ['pending', 'scheduled', new Date(AT.getTime() + 7 * DAY_MS).toISOString()],
      ['pending', 'manual', null],
    ]);
  });
});

describe('factsRead: the counts a caller must load (and lock for)', () => {
  it('asks for nothing when no condition reads a count', () => {
    expect(factsRead([flow(), flow({ conditions: [{ subject: 'transaction.amount', op: 'gte', value: 100 }] })])).toEqual({
      transactionCount: false,
      partnerCustomers: false,
    });
  });

  it('asks for the payment count when a flow counts payments, and the partner count when one reads it', () => {
    const first = flow({ conditions: [{ subject: 'customer.transaction_count', op: 'eq', value: 1 }] });
    const big = flow({ conditions: [{ subject: 'partner.total_customers', op: 'gte', value: 10 }] });
    expect(factsRead([flow(), first])).toEqual({ transactionCount: true, partnerCustomers: false });
    expect(factsRead([big])).toEqual({ transactionCount: false, partnerCustomers: true });
    expect(factsRead([first, big])).toEqual({ transactionCount: true, partnerCustomers: true });
  });

  it('a count left out is missing to a condition that reads it (only neq holds), so a caller must load what factsRead names', () => {
    const ev = pay(10_000, { customer: { transaction_count: undefined }, partner: { total_customers: undefined } });
    expect(conditionHolds({ subject: 'customer.transaction_count', op: 'eq', value: 1 }, ev)).toBe(false);
    expect(conditionHolds({ subject: 'customer.transaction_count', op: 'neq', value: 1 }, ev)).toBe(true);
    expect(conditionHolds({ subject: 'partner.total_customers', op: 'lte', value: 100 }, ev)).toBe(false);
  });
});
