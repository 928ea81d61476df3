import type { Db } from '../../db/database.js';
import type { CommissionRow, NewCommission, TransactionRow } from '../../db/schema.js';
import { newId } from '../../ids.js';
import { lockUnpaidPayoutsOf } from '../payouts/payouts.repository.js';
import { addEntriesToPayouts, settleUnpaidPayouts } from '../payouts/payouts.service.js';
import { countsTowardsTotals } from './cents.js';
import {
  deleteUnpaidRefundEntries,
  insertRefundEntries,
  moveVoidedRefundEntries,
  restoreRefundEntries,
  setCommissionsChargeStatus,
  setCommissionsStatus,
  voidRefundEntries,
} from './commissions.repository.js';
import type { CommissionStatus } from './commissions.schema.js';
import { planRefund, type RefundEntry, type RefundPlan, type RewardWithEntries } from './refund-plan.js';

/**
 * Refund entries: what refunds (refund-plan.ts) and transaction deletes write, and how a
 * reward's entries follow it in and out of the totals. Every function runs inside the caller's
 * SQL transaction, on commissions it has locked; the statements are the commissions repository's.
 */

/**
 * A reward's refund entries follow it in and out of the totals
 * (ingest/docs/commissions.md#refund-entries-follow-their-reward). When it leaves them (rejected,
 * refunded or deleted) its unpaid entries go with it, remembering their status; from one void
 * status to the other they go along; when it counts again they get their status back. Paid entries,
 * and entries whose status was set by hand meanwhile, stay as they are. `rewards` are as they were
 * before the change, locked with their entries.
 */
export async function moveRefundEntries(trx: Db, rewards: CommissionRow[], to: CommissionStatus | 'deleted', now: Date): Promise<void> {
  const idsOf = (counted: boolean) => rewards.filter((r) => r.type === 'reward' && countsTowardsTotals(r) === counted).map((r) => r.id);
  const [wasCounted, wasVoid] = [idsOf(true), idsOf(false)];

  if (to === 'deleted') {
    const ids = [...wasCounted, ...wasVoid];
    if (ids.length) await deleteUnpaidRefundEntries(trx, ids, now);
  } else if (countsTowardsTotals({ status: to })) {
    if (wasVoid.length) await restoreRefundEntries(trx, wasVoid, now);
  } else {
    if (wasCounted.length) await voidRefundEntries(trx, wasCounted, to, now);
    if (wasVoid.length) await moveVoidedRefundEntries(trx, wasVoid, to, now);
  }
  // The rewards, or entries that went with them, may have been in an unpaid payout: only
  // approved commissions are, and only an approved or paid reward has approved entries.
  const payable = rewards.some((r) => r.status === 'approved' || r.status === 'paid');
  if (payable && (to === 'deleted' || !countsTowardsTotals({ status: to }))) {
    await settleUnpaidPayouts(
      trx,
      rewards.map((r) => r.partner_id),
      now,
    );
  }
}

/**
 * The transaction's rewards, each with its refund entries, as the refund plan takes them, and
 * the rewards that sit in a pending payout (their payouts locked: lockUnpaidPayoutsOf). A reward
 * in a payout being processed (its file may already be at the bank) is planned as paid: it stays
 * in the payout and the refund becomes an approved entry the next payout takes back.
 */
async function rewardsWithEntries(trx: Db, commissions: CommissionRow[]) {
  // Only an approved reward can be in a payout.
  const inPayouts = await lockUnpaidPayoutsOf(
    trx,
    commissions.filter((c) => c.type === 'reward' && c.status === 'approved').map((c) => c.id),
  );
  const inStatus = (status: string) => new Set(inPayouts.filter((p) => p.status === status).map((p) => p.commission_id));
  const processing = inStatus('processing');
  const rewards = commissions
    .filter((c) => c.type === 'reward')
    .map((reward) => ({
      reward: processing.has(reward.id) ? { ...reward, status: 'paid' } : reward,
      entries: commissions.filter((e) => e.type === 'refund' && e.refund_of === reward.id),
    }));
  return { rewards, inPendingPayout: inStatus('pending') };
}

/** Marks these rewards `status` (a void one) in the caller's SQL transaction; their unpaid entries follow. */
async function voidRewards(
  trx: Db,
  commissions: CommissionRow[],
  ids: string[],
  status: 'refunded' | 'rejected',
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await setCommissionsStatus(trx, ids, status, now);
  await moveRefundEntries(
    trx,
    commissions.filter((c) => ids.includes(c.id)),
    status,
    now,
  );
}

/** The rows of a plan's refund entries, each a copy of its reward with the entry's amount and status. */
function refundEntryRows(
  entries: RefundEntry[],
  commissions: CommissionRow[],
  at: { revenue: number; chargeStatus: string; now: Date },
): NewCommission[] {
  const byId = new Map(commissions.map((c) => [c.id, c]));
  return entries.map((entry) => {
    const reward = byId.get(entry.refund_of)!;
    return {
      ...reward,
      id: newId('commission'),
      refund_of: reward.id,
      type: 'refund',
      status: entry.status,
      status_before_void: null,
      rejection_reason: null,
      amount: entry.amount,
      revenue: at.revenue,
      charge_status: at.chargeStatus,
      scheduled_approval_date: entry.status === 'pending' ? reward.scheduled_approval_date : null,
      payout_id: null,
      created_at: at.now,
      updated_at: at.now,
      deleted_at: null,
    };
  });
}

/**
 * Writes a plan's refund entries; those of a reward in a pending payout go into it at once, so
 * that the payout pays the reward net of the refund (addEntriesToPayouts).
 */
async function writeRefundEntries(
  trx: Db,
  plan: RefundPlan,
  commissions: CommissionRow[],
  inPendingPayout: Set<string>,
  at: { revenue: number; chargeStatus: string; now: Date },
): Promise<void> {
  if (plan.entries.length === 0) return;
  const rows = refundEntryRows(plan.entries, commissions, at);
  await insertRefundEntries(trx, rows);
  const joining = rows.filter((e) => e.status === 'approved' && inPendingPayout.has(e.refund_of!)).map((e) => e.id);
  if (joining.length) await addEntriesToPayouts(trx, joining, at.now);
}

/**
 * The refund plan (refund-plan.ts) of a transaction whose refunded amount becomes
 * `transaction.refunded_amount`, with the rewards it was made from: what applyRefund applies,
 * and what a preview shows before the refund runs (the same reads, the same plan). `commissions`
 * are the transaction's, locked (lockTransactionCommissions).
 */
export async function planTransactionRefund(
  trx: Db,
  transaction: Pick<TransactionRow, 'amount' | 'refunded_amount'>,
  commissions: CommissionRow[],
): Promise<{ plan: RefundPlan; rewards: RewardWithEntries[]; inPendingPayout: Set<string> }> {
  const { rewards, inPendingPayout } = await rewardsWithEntries(trx, commissions);
  const plan = planRefund({ transactionAmount: transaction.amount, refundedAfter: transaction.refunded_amount, rewards });
  return { plan, rewards, inPendingPayout };
}

/**
 * The effect of a refund on the transaction's commissions (see refund-plan.ts), inside the
 * refund's SQL transaction. `transaction` already holds the new refunded amount and status;
 * `commissions` are its commissions, locked (lockTransactionCommissions) before the transaction
 * row was updated.
 */
export async function applyRefund(trx: Db, transaction: TransactionRow, refundedNow: number, commissions: CommissionRow[]): Promise<void> {
  const { plan, inPendingPayout } = await planTransactionRefund(trx, transaction, commissions);
  const now = new Date();
  if (commissions.length > 0) {
    await setCommissionsChargeStatus(
      trx,
      commissions.map((c) => c.id),
      transaction.status,
      now,
    );
  }
  await voidRewards(trx, commissions, plan.markRefunded, 'refunded', now);
  await writeRefundEntries(trx, plan, commissions, inPendingPayout, { revenue: -refundedNow, chargeStatus: transaction.status, now });
}

/**
 * A deleted transaction earns nothing: its commissions are settled as a full refund would settle
 * them, with `rejected` where a refund marks `refunded` (ingest/docs/commissions.md#refunds). A
 * paid reward keeps its status and payout and gets a refund entry for what it still counts, so the
 * charge recorded again does not pay the partner twice. Same locking as applyRefund.
 */
export async function settleDeletedTransaction(trx: Db, transaction: TransactionRow, commissions: CommissionRow[]): Promise<void> {
  const { plan, inPendingPayout } = await planTransactionRefund(trx, { ...transaction, refunded_amount: transaction.amount }, commissions);
  const now = new Date();
  await voidRewards(trx, commissions, plan.markRefunded, 'rejected', now);
  const revenue = -(transaction.amount - transaction.refunded_amount);
  await writeRefundEntries(trx, plan, commissions, inPendingPayout, { revenue, chargeStatus: transaction.status, now });
}
