import type { Db } from '../../db/database.js';
import { conflictOnUnique } from '../../db/errors.js';
import { programTotal } from '../../db/list-counts.js';
import type { CommissionRow, NewTransaction, TransactionRow } from '../../db/schema.js';
import { inTransaction, retryOnDeadlock } from '../../db/transaction.js';
import { ApiError, badRequest, conflict, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import { planRewards, type RewardedEvent } from '../commissions/award.js';
import {
  type Earner,
  findEarner,
  loadCountedFacts,
  lockTransactionCommissions,
  replaceChargeId,
} from '../commissions/commissions.repository.js';
import { factsRead } from '../commissions/engine.js';
import { applyRefund, planTransactionRefund, settleDeletedTransaction } from '../commissions/refund-entries.js';
import { describeRefundPlan, type RewardEffect } from '../commissions/refund-plan.js';
import type { FlowSource } from '../flows/flow-cache.js';
import { shareProgramPayouts } from '../payouts/payouts.repository.js';
import { requireProgram } from '../programs/programs.service.js';
import { flagRefundRate } from '../risk/risk-flags.js';
import {
  findTransaction,
  findTransactionByCharge,
  firstPaymentDates,
  selectTransactionList,
  softDeleteTransaction,
  transactionCommissions,
  updateTransactionRow,
  writePayment,
} from './transactions.repository.js';
import type {
  TransactionCreateInput,
  TransactionExpand,
  TransactionListQueryInput,
  TransactionObject,
  TransactionUpdateInput,
} from './transactions.schema.js';
import { presentTransactions, toTransaction } from './transactions.serializer.js';

/** The caller's live transaction, or 404; `forUpdate` locks it for the rest of the SQL transaction. */
export async function requireTransaction(
  db: Db,
  organizationId: string,
  id: string,
  opts: { param?: string; forUpdate?: boolean } = {},
): Promise<TransactionRow> {
  const found = await findTransaction(db, organizationId, id, opts.forUpdate);
  if (!found) throw notFound('transaction', id, opts.param);
  return found;
}

/** A page of the program's transactions, filtered; total_count of an unfiltered page comes from the kept counters. */
export async function listTransactions(db: Db, organizationId: string, query: TransactionListQueryInput): Promise<Page<TransactionObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filtered = selectTransactionList(db, organizationId, {
    programId: program.id,
    partnerId: query.partner_id,
    customerId: query.customer_id,
    chargeId: query.charge_id,
  });
  const page = await paginate(filtered, query, { createdAt: 'created_at', id: 'id' }, programTotal(db, 'transactions', program.id));
  return { ...page, rows: await presentTransactions(db, page.rows, query.expand) };
}

/** One transaction with its expansions. */
export async function retrieveTransaction(
  db: Db,
  organizationId: string,
  id: string,
  expand?: TransactionExpand[],
): Promise<TransactionObject> {
  const transaction = await requireTransaction(db, organizationId, id);
  return (await presentTransactions(db, [transaction], expand))[0];
}

/** When each of these customers of the caller first paid (their earliest live transaction), by customer id; customers who never paid are absent. */
export function firstPayments(db: Db, organizationId: string, customerIds: string[]): Promise<Map<string, Date>> {
  return firstPaymentDates(db, organizationId, customerIds);
}

/** A transaction's live commissions, rewards and refund entries, oldest first: what the payment earned and what its refunds took back. */
export function commissionsOfTransaction(db: Db, organizationId: string, transactionId: string): Promise<CommissionRow[]> {
  return transactionCommissions(db, organizationId, transactionId);
}

/** 409 with the transaction already recorded for this charge in `data`. */
function transactionExists(existing: TransactionRow): ApiError {
  return new ApiError('conflict_error', 'A transaction with this charge_id already exists', {
    param: 'charge_id',
    extra: { data: toTransaction(existing) },
  });
}

/** A charge_id taken in the program: 409 with the transaction that has it. */
const chargeTaken = (db: Db, programId: string, chargeId: string | null | undefined) => async () => {
  const winner = chargeId ? await findTransactionByCharge(db, programId, chargeId) : undefined;
  return winner && transactionExists(winner);
};

/**
 * Records a payment of a customer and runs the program's payment flows: the transaction, its
 * commissions and the customer becoming active (a lead or trialing customer who pays) are
 * written by one statement. Only when a flow counts the customer's payments ("first payment
 * only") is the customer locked first, so that payments arriving at once count each other
 * exactly. A charge_id already recorded is refused by the unique index, which also settles two
 * requests for one charge arriving at once.
 */
export async function createTransaction(
  db: Db,
  flowsOf: FlowSource,
  organizationId: string,
  input: TransactionCreateInput,
): Promise<TransactionRow> {
  const earner = await findEarner(db, organizationId, input.customer_id);
  if (!earner) throw notFound('customer', input.customer_id, 'customer_id');
  const { customer } = earner;
  const flows = await flowsOf(customer.program_id, 'payment');
  const now = new Date();
  const at = input.created_at ?? now;
  const transaction: NewTransaction & RewardedEvent['transaction'] = {
    id: newId('transaction'),
    organization_id: organizationId,
    program_id: customer.program_id,
    partner_id: customer.partner_id,
    customer_id: customer.id,
    click_id: customer.click_id,
    charge_id: input.charge_id ?? null,
    status: 'paid',
    amount: input.amount,
    refunded_amount: 0,
    currency: input.currency ?? earner.currency,
    billing_type: input.billing_type ?? 'one_time',
    interval: input.interval ?? null,
    product_id: input.product_id ?? null,
    product_name: input.product_name ?? null,
    source: input.source ?? null,
    refunded_at: null,
    created_at: at,
    updated_at: now,
  };
  const record = async (q: Db, current: Earner) => {
    const commissions = planRewards(flows, current, await loadCountedFacts(q, current, flows), { trigger: 'payment', at, transaction });
    const activate = input.amount > 0 && (current.customer.status === 'lead' || current.customer.status === 'trialing');
    return writePayment(q, transaction, commissions, activate);
  };
  return conflictOnUnique(['transactions_program_charge'], chargeTaken(db, customer.program_id, input.charge_id), async () => {
    if (!factsRead(flows).transactionCount) return await retryOnDeadlock(db, (q) => record(q, earner));
    return await inTransaction(db, async (trx) => {
      const locked = await findEarner(trx, organizationId, customer.id, { lock: true });
      if (!locked) throw notFound('customer', customer.id, 'customer_id');
      return record(trx, locked);
    });
  });
}

/**
 * Only the descriptive fields change; amounts change through a refund. A new charge_id goes to
 * the commissions that carried the old one, in the same SQL transaction.
 */
export async function updateTransaction(
  db: Db,
  organizationId: string,
  id: string,
  input: TransactionUpdateInput,
): Promise<TransactionRow> {
  const current = await requireTransaction(db, organizationId, id);
  const billingType = input.billing_type ?? current.billing_type;
  const interval = input.interval !== undefined ? input.interval : current.interval;
  if (interval && billingType !== 'subscription') {
    throw badRequest('Invalid interval: only a subscription has an interval (set billing_type to subscription)', 'interval');
  }
  return conflictOnUnique(['transactions_program_charge'], chargeTaken(db, current.program_id, input.charge_id), async () => {
    return await inTransaction(db, async (trx) => {
      const locked = await requireTransaction(trx, organizationId, current.id, { forUpdate: true });
      const newCharge = input.charge_id !== undefined && input.charge_id !== locked.charge_id;
      if (newCharge) await lockTransactionCommissions(trx, locked.id);
      const updated = await updateTransactionRow(trx, locked.id, { ...input, updated_at: new Date() });
      if (newCharge) await replaceChargeId(trx, locked.id, locked.charge_id, updated.charge_id);
      return updated;
    });
  });
}

/**
 * The refund `amount` asks for (default: everything left), checked against what is left:
 * nothing left, or more than that → 400. With `refundedBefore` (what a preview saw), a
 * transaction refunded meanwhile → 409, so what runs is what was previewed.
 */
const checkedRefund =
  (amount: number | undefined, refundedBefore?: number) =>
  (current: TransactionRow): number => {
    if (refundedBefore !== undefined && current.refunded_amount !== refundedBefore) {
      throw conflict('This transaction was refunded meanwhile: preview the refund again');
    }
    const remaining = current.amount - current.refunded_amount;
    if (remaining === 0) throw badRequest('Nothing is left to refund on this transaction', 'amount');
    const refund = amount ?? remaining;
    if (refund > remaining) throw badRequest(`Invalid amount: only ${remaining} cents are left to refund`, 'amount');
    return refund;
  };

/**
 * Refunds part (`amount`) or all of what is left of a transaction, and applies the effect on
 * its commissions in the same SQL transaction. Refunds of one transaction run one at a time.
 * `refundedBefore`: see checkedRefund.
 */
export function refundTransaction(
  db: Db,
  organizationId: string,
  id: string,
  amount: number | undefined,
  refundedBefore?: number,
): Promise<TransactionRow> {
  return refundLocked(db, organizationId, id, checkedRefund(amount, refundedBefore));
}

/** What a refund would do, before it runs: the same checks, reads and plan as refundTransaction's. */
export interface RefundPreview {
  /** The transaction as it is now. */
  transaction: TransactionRow;
  /** Cents this refund takes back. */
  refund: number;
  /** The transaction's refunded amount and status after it. */
  after: Pick<TransactionRow, 'refunded_amount' | 'status'>;
  /** Reward by reward, what the refund does to the transaction's commissions. */
  effects: RewardEffect[];
  /** The transaction's commissions (rewards and earlier refund entries) as they are now. */
  commissions: CommissionRow[];
}

/**
 * Previews `refundTransaction(…, amount)`: the refund entries and refunded rewards that the
 * refund would write, planned by the function the refund itself applies (planTransactionRefund)
 * on the same rows, locked as the refund locks them, and nothing written.
 */
export function previewRefund(db: Db, organizationId: string, id: string, amount: number | undefined): Promise<RefundPreview> {
  return inTransaction(db, async (trx) => {
    const { current, commissions, refund } = await lockForRefund(trx, organizationId, id, checkedRefund(amount));
    const after = refundedChanges(current, refund, new Date());
    const { plan, rewards } = await planTransactionRefund(
      trx,
      { amount: current.amount, refunded_amount: after.refunded_amount },
      commissions,
    );
    return {
      transaction: current,
      refund,
      after: { refunded_amount: after.refunded_amount, status: after.status },
      effects: describeRefundPlan(rewards, plan),
      commissions,
    };
  });
}

/**
 * Brings a transaction's refunded amount up to `total(transaction)` (capped at its amount), as
 * a billing provider reports it: a running total, so a report seen twice or late refunds
 * nothing twice. The total is read under the transaction's lock. Nothing changes when the
 * transaction already has that much refunded.
 */
export function refundTransactionUpTo(
  db: Db,
  organizationId: string,
  id: string,
  total: (current: TransactionRow) => number,
): Promise<TransactionRow> {
  return refundLocked(db, organizationId, id, (current) => Math.min(total(current), current.amount) - current.refunded_amount);
}

/**
 * The transaction, its program's payouts (shared: no generation runs meanwhile) and its
 * commissions, locked in this order, as a refund or a delete changes them: the payouts' lock
 * before the commissions', as a generation takes them (shareProgramPayouts).
 */
async function lockForSettling(trx: Db, organizationId: string, id: string) {
  const current = await requireTransaction(trx, organizationId, id, { forUpdate: true });
  await shareProgramPayouts(trx, [current.program_id]);
  const commissions = await lockTransactionCommissions(trx, current.id);
  return { current, commissions };
}

/** The transaction and its commissions locked (lockForSettling), and the refund `refundOf` asks for. */
async function lockForRefund(trx: Db, organizationId: string, id: string, refundOf: (current: TransactionRow) => number) {
  const { current, commissions } = await lockForSettling(trx, organizationId, id);
  return { current, commissions, refund: refundOf(current) };
}

/** The transaction's new refunded amount, status and times once `refund` more cents are refunded. */
function refundedChanges(current: TransactionRow, refund: number, now: Date) {
  const refunded = current.refunded_amount + refund;
  return {
    refunded_amount: refunded,
    status: refunded === current.amount ? 'refunded' : 'partially_refunded',
    refunded_at: now,
    updated_at: now,
  };
}

/** Refunds what `refundOf` says of the locked transaction; zero or less changes nothing. */
function refundLocked(db: Db, organizationId: string, id: string, refundOf: (current: TransactionRow) => number): Promise<TransactionRow> {
  return inTransaction(db, async (trx) => {
    const { current, commissions, refund } = await lockForRefund(trx, organizationId, id, refundOf);
    if (refund <= 0) return current;
    const transaction = await updateTransactionRow(trx, current.id, refundedChanges(current, refund, new Date()));
    await applyRefund(trx, transaction, refund, commissions);
    await flagRefundRate(trx, transaction);
    return transaction;
  });
}

/**
 * Soft delete: hidden and out of the totals, its charge_id free again; its commissions are
 * settled as by a full refund, rejected instead of refunded (settleDeletedTransaction).
 */
export async function deleteTransaction(db: Db, organizationId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const { current: transaction, commissions } = await lockForSettling(trx, organizationId, id);
    await softDeleteTransaction(trx, transaction.id, new Date());
    await settleDeletedTransaction(trx, transaction, commissions);
  });
}
