import { proportionalShare } from '../../money.js';
import { countsTowardsTotals } from './cents.js';

/**
 * What a refund does to a transaction's commissions (ingest/docs/commissions.md#refunds). Pure.
 *
 * Each live reward commission is brought to what it should be worth after the refund:
 * `amount − round(amount × refunded / transaction amount)`, counted on the cumulative refunded
 * amount so that rounding never drifts over several partial refunds and a full refund nets to
 * exactly 0. An unpaid commission fully refunded is marked `refunded` (its unpaid refund entries
 * follow it, see `followsItsReward`); every other change is a new `refund` entry holding the
 * difference.
 */

export interface CommissionState {
  id: string;
  amount: number;
  status: string;
}

export interface RewardWithEntries {
  reward: CommissionState;
  /** Its earlier refund entries. */
  entries: CommissionState[];
}

export interface RefundEntry {
  refund_of: string;
  /** Negative: what the partner gives back. */
  amount: number;
  status: 'pending' | 'approved';
}

export interface RefundPlan {
  /** Rewards to mark refunded (their entries follow them). */
  markRefunded: string[];
  entries: RefundEntry[];
}

/**
 * The refund entries that go with their reward when it leaves the totals (rejected, refunded or
 * deleted): the unpaid ones. A paid entry is money already recovered and stays as it is.
 */
export const FOLLOWING_STATUSES = ['pending', 'approved'] as const;
export const followsItsReward = (entry: { status: string }) => (FOLLOWING_STATUSES as readonly string[]).includes(entry.status);

/** What a reward counts for now: its amount and its refund entries that count; 0 when the reward itself does not count. */
export function worthNow({ reward, entries }: RewardWithEntries): number {
  if (!countsTowardsTotals(reward)) return 0;
  return reward.amount + entries.filter(countsTowardsTotals).reduce((sum, e) => sum + e.amount, 0);
}

export function planRefund(q: { transactionAmount: number; refundedAfter: number; rewards: RewardWithEntries[] }): RefundPlan {
  const full = q.refundedAfter >= q.transactionAmount;
  const plan: RefundPlan = { markRefunded: [], entries: [] };
  for (const { reward, entries } of q.rewards) {
    if (!countsTowardsTotals(reward)) continue;
    const live = entries.filter(countsTowardsTotals);
    if (full && reward.status !== 'paid' && live.every(followsItsReward)) {
      plan.markRefunded.push(reward.id);
      continue;
    }
    const target = full ? 0 : reward.amount - proportionalShare(reward.amount, q.refundedAfter, q.transactionAmount);
    const current = worthNow({ reward, entries });
    const difference = target - current;
    if (difference === 0) continue;
    // Money already paid out is recovered from the next payout: the entry is approved at once.
    plan.entries.push({
      refund_of: reward.id,
      amount: difference,
      status: reward.status === 'paid' ? 'approved' : (reward.status as 'pending' | 'approved'),
    });
  }
  return plan;
}

/** What a plan does to one reward, as a preview shows it before the refund runs. */
export interface RewardEffect {
  reward_id: string;
  /** The reward's status as the plan read it (a reward in a payout being processed reads as paid). */
  status: string;
  /** What the reward counts for now and after the refund (its amount with its refund entries). */
  before: number;
  after: number;
  /** `refunded`: marked refunded (its unpaid entries follow); `entry`: a refund entry is added; `unchanged`. */
  action: 'refunded' | 'entry' | 'unchanged';
  /** The refund entry the plan adds (negative amount), when it adds one. */
  entry: RefundEntry | null;
}

/**
 * The plan of `planRefund`, reward by reward: what each counts for before and after. A reward
 * marked refunded counts for nothing after it (the plan only marks one whose counted entries
 * all follow it); one given an entry counts for what it did plus the entry.
 */
export function describeRefundPlan(rewards: RewardWithEntries[], plan: RefundPlan): RewardEffect[] {
  return rewards.map((r) => {
    const before = worthNow(r);
    const entry = plan.entries.find((e) => e.refund_of === r.reward.id) ?? null;
    const refunded = plan.markRefunded.includes(r.reward.id);
    return {
      reward_id: r.reward.id,
      status: r.reward.status,
      before,
      after: refunded ? 0 : before + (entry?.amount ?? 0),
      action: refunded ? 'refunded' : entry ? 'entry' : 'unchanged',
      entry,
    };
  });
}
