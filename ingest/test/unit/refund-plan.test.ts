import { describe, expect, it } from 'vitest';
import { countsTowardsTotals } from '../../src/resources/commissions/cents.js';
import {
  type CommissionState,
  followsItsReward,
  planRefund,
  type RefundEntry,
  type RewardWithEntries,
} from '../../src/resources/commissions/refund-plan.js';

/**
 * The refund planner alone (ingest/docs/commissions.md#refunds): each live reward is brought to
 * amount − round_half_up(amount × refunded_total / transaction amount), cumulatively.
 */

const reward = (id: string, amount: number, status: string, entries: CommissionState[] = []): RewardWithEntries => ({
  reward: { id, amount, status },
  entries,
});

/**
 * Replays refunds of `steps` cents one after the other on one reward, applying each plan the
 * way the service does (markRefunded → status refunded, with the entries that follow the reward;
 * entries → new refund commissions).
 * Returns every plan and the final state.
 */
function replay(transactionAmount: number, initial: CommissionState, steps: number[], entryStatusAfter?: (e: RefundEntry) => string) {
  let current: CommissionState = { ...initial };
  let entries: CommissionState[] = [];
  let refunded = 0;
  let seq = 0;
  const plans = [];
  for (const step of steps) {
    refunded += step;
    const plan = planRefund({ transactionAmount, refundedAfter: refunded, rewards: [{ reward: current, entries }] });
    plans.push(plan);
    const marked = new Set(plan.markRefunded);
    if (marked.has(current.id)) {
      current = { ...current, status: 'refunded' };
      entries = entries.map((e) => (followsItsReward(e) ? { ...e, status: 'refunded' } : e));
    }
    for (const e of plan.entries) {
      seq += 1;
      entries.push({ id: `ref_${seq}`, amount: e.amount, status: entryStatusAfter ? entryStatusAfter(e) : e.status });
    }
  }
  const live = [current, ...entries].filter(countsTowardsTotals);
  const net = live.reduce((sum, c) => sum + c.amount, 0);
  return { plans, reward: current, entries, net };
}

describe('followsItsReward', () => {
  it.each([
    ['pending', true],
    ['approved', true],
    ['paid', false],
    ['rejected', false],
    ['refunded', false],
  ])('%s → %s', (status, expected) => {
    expect(followsItsReward({ status })).toBe(expected);
  });
});

describe('countsTowardsTotals', () => {
  it.each([
    ['pending', true],
    ['approved', true],
    ['paid', true],
    ['rejected', false],
    ['refunded', false],
  ])('%s → %s', (status, expected) => {
    expect(countsTowardsTotals({ status })).toBe(expected);
  });
});

describe('planRefund: a partial refund', () => {
  it.each([
    ['pending', 'pending'],
    ['approved', 'approved'],
    ['paid', 'approved'],
  ])('of a %s commission adds a proportional entry with status %s', (status, entryStatus) => {
    expect(planRefund({ transactionAmount: 10_000, refundedAfter: 2500, rewards: [reward('com_a', 2000, status)] })).toEqual({
      markRefunded: [],
      entries: [{ refund_of: 'com_a', amount: -500, status: entryStatus }],
    });
  });

  it('rounds the refunded share half up', () => {
    // 1000 × 1000 / 3000 = 333.33 → 333
    expect(planRefund({ transactionAmount: 3000, refundedAfter: 1000, rewards: [reward('c', 1000, 'approved')] }).entries).toEqual([
      { refund_of: 'c', amount: -333, status: 'approved' },
    ]);
    // 1000 × 2000 / 3000 = 666.67 → 667
    expect(planRefund({ transactionAmount: 3000, refundedAfter: 2000, rewards: [reward('c', 1000, 'approved')] }).entries).toEqual([
      { refund_of: 'c', amount: -667, status: 'approved' },
    ]);
    // 5 × 1 / 2 = 2.5 → 3 (half up, not half even)
    expect(planRefund({ transactionAmount: 2, refundedAfter: 1, rewards: [reward('c', 5, 'pending')] }).entries).toEqual([
      { refund_of: 'c', amount: -3, status: 'pending' },
    ]);
    // 7 × 1 / 2 = 3.5 → 4
    expect(planRefund({ transactionAmount: 2, refundedAfter: 1, rewards: [reward('c', 7, 'pending')] }).entries).toEqual([
      { refund_of: 'c', amount: -4, status: 'pending' },
    ]);
    // 3 × 1 / 2 = 1.5 → 2
    expect(planRefund({ transactionAmount: 2, refundedAfter: 1, rewards: [reward('c', 3, 'pending')] }).entries).toEqual([
      { refund_of: 'c', amount: -2, status: 'pending' },
    ]);
  });

  it('adds nothing when the refunded share rounds to 0 cents', () => {
    // 1 × 1000 / 3000 = 0.33 → 0
    expect(planRefund({ transactionAmount: 3000, refundedAfter: 1000, rewards: [reward('c', 1, 'approved')] })).toEqual({
      markRefunded: [],
      entries: [],
    });
  });

  it('takes earlier refund entries into account (cumulative, not per call)', () => {
    // After 1000 of 3000: -333 exists. After 2000: target 1000 − 667 = 333, current 667 → −334.
    const plan = planRefund({
      transactionAmount: 3000,
      refundedAfter: 2000,
      rewards: [reward('c', 1000, 'pending', [{ id: 'r1', amount: -333, status: 'pending' }])],
    });
    expect(plan).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -334, status: 'pending' }] });
  });

  it('ignores rejected and refunded earlier entries when computing the current net', () => {
    const plan = planRefund({
      transactionAmount: 3000,
      refundedAfter: 2000,
      rewards: [
        reward('c', 1000, 'approved', [
          { id: 'r1', amount: -333, status: 'rejected' },
          { id: 'r2', amount: -100, status: 'refunded' },
        ]),
      ],
    });
    expect(plan).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -667, status: 'approved' }] });
  });

  it('counts paid earlier refund entries as live', () => {
    const plan = planRefund({
      transactionAmount: 3000,
      refundedAfter: 2000,
      rewards: [reward('c', 1000, 'paid', [{ id: 'r1', amount: -333, status: 'paid' }])],
    });
    expect(plan).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -334, status: 'approved' }] });
  });

  it('handles several rewards of one transaction independently', () => {
    const plan = planRefund({
      transactionAmount: 10_000,
      refundedAfter: 5000,
      rewards: [
        reward('a', 2000, 'pending'),
        reward('b', 333, 'approved'),
        reward('c', 999, 'paid'),
        reward('d', 500, 'rejected'),
        reward('e', 700, 'refunded'),
      ],
    });
    expect(plan).toEqual({
      markRefunded: [],
      entries: [
        { refund_of: 'a', amount: -1000, status: 'pending' },
        { refund_of: 'b', amount: -167, status: 'approved' }, // 166.5 → 167
        { refund_of: 'c', amount: -500, status: 'approved' }, // 499.5 → 500
      ],
    });
  });

  it('is exact on 1e12-cent amounts', () => {
    const plan = planRefund({
      transactionAmount: 1_000_000_000_000,
      refundedAfter: 1,
      rewards: [reward('c', 999_999_999_999, 'approved')],
    });
    // 999 999 999 999 × 1 / 1e12 = 0.999999999999 → 1
    expect(plan.entries).toEqual([{ refund_of: 'c', amount: -1, status: 'approved' }]);
    const half = planRefund({
      transactionAmount: 999_999_999_999,
      refundedAfter: 333_333_333_333,
      rewards: [reward('c', 999_999_999_999, 'approved')],
    });
    expect(half.entries).toEqual([{ refund_of: 'c', amount: -333_333_333_333, status: 'approved' }]);
    const odd = planRefund({
      transactionAmount: 999_999_999_999,
      refundedAfter: 500_000_000_000,
      rewards: [reward('c', 333_333_333_333, 'pending')],
    });
    // 333 333 333 333 × 500 000 000 000 / 999 999 999 999 = 166 666 666 666.83 → 166 666 666 667
    expect(odd.entries).toEqual([{ refund_of: 'c', amount: -166_666_666_667, status: 'pending' }]);
  });

  it('handles a commission larger than the transaction (manual commission)', () => {
    expect(planRefund({ transactionAmount: 1000, refundedAfter: 100, rewards: [reward('c', 5000, 'approved')] }).entries).toEqual([
      { refund_of: 'c', amount: -500, status: 'approved' },
    ]);
  });

  it('returns an empty plan without rewards', () => {
    expect(planRefund({ transactionAmount: 1000, refundedAfter: 500, rewards: [] })).toEqual({ markRefunded: [], entries: [] });
  });
});

describe('planRefund: a full refund', () => {
  it.each(['pending', 'approved'])('of a %s commission marks it refunded, no entry', (status) => {
    expect(planRefund({ transactionAmount: 10_000, refundedAfter: 10_000, rewards: [reward('c', 2000, status)] })).toEqual({
      markRefunded: ['c'],
      entries: [],
    });
  });

  it('of an unpaid commission marks only the reward (its unpaid entries follow it)', () => {
    const plan = planRefund({
      transactionAmount: 10_000,
      refundedAfter: 10_000,
      rewards: [
        reward('c', 2000, 'approved', [
          { id: 'r1', amount: -500, status: 'approved' },
          { id: 'r2', amount: -300, status: 'pending' },
          { id: 'r3', amount: -100, status: 'rejected' },
          { id: 'r4', amount: -50, status: 'refunded' },
        ]),
      ],
    });
    expect(plan).toEqual({ markRefunded: ['c'], entries: [] });
  });

  it('of a paid commission adds an approved entry of −remaining', () => {
    expect(planRefund({ transactionAmount: 10_000, refundedAfter: 10_000, rewards: [reward('c', 2000, 'paid')] })).toEqual({
      markRefunded: [],
      entries: [{ refund_of: 'c', amount: -2000, status: 'approved' }],
    });
    expect(
      planRefund({
        transactionAmount: 10_000,
        refundedAfter: 10_000,
        rewards: [reward('c', 2000, 'paid', [{ id: 'r1', amount: -500, status: 'approved' }])],
      }),
    ).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -1500, status: 'approved' }] });
  });

  it('of an unpaid commission whose refund entry was paid adds an entry instead of marking', () => {
    const plan = planRefund({
      transactionAmount: 10_000,
      refundedAfter: 10_000,
      rewards: [reward('c', 2000, 'approved', [{ id: 'r1', amount: -500, status: 'paid' }])],
    });
    expect(plan).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -1500, status: 'approved' }] });
  });

  it('of a paid commission already fully offset adds nothing', () => {
    expect(
      planRefund({
        transactionAmount: 10_000,
        refundedAfter: 10_000,
        rewards: [reward('c', 2000, 'paid', [{ id: 'r1', amount: -2000, status: 'approved' }])],
      }),
    ).toEqual({
      markRefunded: [],
      entries: [],
    });
  });

  it('of a 0-cent transaction (as a delete settles it) brings a paid reward to 0', () => {
    expect(
      planRefund({ transactionAmount: 0, refundedAfter: 0, rewards: [reward('c', 300, 'paid'), reward('d', 100, 'approved')] }),
    ).toEqual({
      markRefunded: ['d'],
      entries: [{ refund_of: 'c', amount: -300, status: 'approved' }],
    });
  });

  it('ignores rejected and refunded rewards', () => {
    expect(
      planRefund({
        transactionAmount: 10_000,
        refundedAfter: 10_000,
        rewards: [reward('a', 2000, 'rejected'), reward('b', 2000, 'refunded', [{ id: 'r1', amount: -500, status: 'pending' }])],
      }),
    ).toEqual({ markRefunded: [], entries: [] });
  });

  it('mixes marks and entries over several rewards, in reward order', () => {
    const plan = planRefund({
      transactionAmount: 3000,
      refundedAfter: 3000,
      rewards: [
        reward('a', 600, 'pending', [{ id: 'ra', amount: -200, status: 'pending' }]),
        reward('b', 400, 'paid', [{ id: 'rb', amount: -133, status: 'approved' }]),
        reward('c', 100, 'rejected'),
        reward('d', 50, 'approved'),
      ],
    });
    expect(plan).toEqual({ markRefunded: ['a', 'd'], entries: [{ refund_of: 'b', amount: -267, status: 'approved' }] });
  });
});

describe('planRefund: several partial refunds add up exactly', () => {
  it('commission 1000 on 3000 refunded 1000 + 1000 + 1000 (paid): −333, −334, −333, net 0', () => {
    const r = replay(3000, { id: 'c', amount: 1000, status: 'paid' }, [1000, 1000, 1000]);
    expect(r.plans.map((p) => p.entries.map((e) => [e.amount, e.status]))).toEqual([
      [[-333, 'approved']],
      [[-334, 'approved']],
      [[-333, 'approved']],
    ]);
    expect(r.plans.every((p) => p.markRefunded.length === 0)).toBe(true);
    expect(r.entries.reduce((s, e) => s + e.amount, 0)).toBe(-1000);
    expect(r.net).toBe(0);
  });

  it('commission 1000 on 3000 refunded 1000 + 1000 + 1000 (approved): two entries, then everything marked refunded', () => {
    const r = replay(3000, { id: 'c', amount: 1000, status: 'approved' }, [1000, 1000, 1000]);
    expect(r.plans[0]).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -333, status: 'approved' }] });
    expect(r.plans[1]).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -334, status: 'approved' }] });
    expect(r.plans[2]).toEqual({ markRefunded: ['c'], entries: [] });
    expect(r.reward.status).toBe('refunded');
    expect(r.entries.map((e) => e.status)).toEqual(['refunded', 'refunded']);
    expect(r.net).toBe(0);
  });

  it('commission 333 on 1001 refunded in 7 uneven steps (paid): entries sum to −333 exactly', () => {
    const steps = [1, 100, 333, 2, 250, 14, 301];
    expect(steps.reduce((a, b) => a + b, 0)).toBe(1001);
    const r = replay(1001, { id: 'c', amount: 333, status: 'paid' }, steps);
    // Each step's target is 333 − round(333 × cumulative / 1001).
    let cumulative = 0;
    let previousTarget = 333;
    const expected: number[] = [];
    for (const s of steps) {
      cumulative += s;
      const target = 333 - Math.floor((2 * 333 * cumulative + 1001) / (2 * 1001));
      if (target !== previousTarget) expected.push(target - previousTarget);
      previousTarget = target;
    }
    expect(r.entries.map((e) => e.amount)).toEqual(expected);
    // Literal values, so the formula above is not the only check:
    expect(expected).toEqual([-34, -110, -1, -83, -5, -100]);
    expect(r.entries.reduce((s, e) => s + e.amount, 0)).toBe(-333);
    expect(r.net).toBe(0);
    expect(r.plans[0]).toEqual({ markRefunded: [], entries: [] }); // 333 × 1 / 1001 rounds to 0
  });

  it('commission 333 on 1001 refunded in 7 uneven steps (pending): pending entries, then all refunded, net 0', () => {
    const steps = [1, 100, 333, 2, 250, 14, 301];
    const r = replay(1001, { id: 'c', amount: 333, status: 'pending' }, steps);
    expect(r.entries.map((e) => [e.amount, e.status])).toEqual([
      [-34, 'refunded'],
      [-110, 'refunded'],
      [-1, 'refunded'],
      [-83, 'refunded'],
      [-5, 'refunded'],
    ]);
    expect(r.plans[6]).toEqual({ markRefunded: ['c'], entries: [] });
    expect(r.net).toBe(0);
  });

  it('once entries are paid, the last step of an unpaid commission is an entry and the net still ends at 0', () => {
    // Refund entries get paid out (recovered) in between: the reward stays approved.
    const r = replay(1001, { id: 'c', amount: 333, status: 'approved' }, [500, 501], () => 'paid');
    expect(r.plans[0].entries).toEqual([{ refund_of: 'c', amount: -166, status: 'approved' }]); // 166.33
    expect(r.plans[1]).toEqual({ markRefunded: [], entries: [{ refund_of: 'c', amount: -167, status: 'approved' }] });
    expect(r.net).toBe(0);
  });

  it.each([
    [3000, 1000, [1, 1, 1, 2997]],
    [1001, 333, [500, 500, 1]],
    [7, 5, [1, 1, 1, 1, 1, 1, 1]],
    [99_999, 33_333, [33_333, 33_333, 33_333]],
    [1_000_000_000_000, 333_333_333_333, [1, 999_999_999_998, 1]],
  ])('transaction %i, commission %i paid, refunded in %j: net ends at 0, never positive drift', (total, amount, steps) => {
    const r = replay(total, { id: 'c', amount, status: 'paid' }, steps);
    expect(r.net).toBe(0);
    expect(r.entries.every((e) => e.amount < 0)).toBe(true);
    let cumulative = 0;
    let net = amount;
    r.plans.forEach((p, i) => {
      cumulative += steps[i];
      net += p.entries.reduce((s, e) => s + e.amount, 0);
      // After each step the net is exactly the rounded remaining share.
      expect(net).toBe(amount - Number((2n * BigInt(amount) * BigInt(cumulative) + BigInt(total)) / (2n * BigInt(total))));
    });
  });
});
