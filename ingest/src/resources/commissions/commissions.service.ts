import type { Db } from '../../db/database.js';
import { programTotal } from '../../db/list-counts.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { CommissionRow, CustomerRow, TransactionRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import { requireCustomer } from '../customers/customers.service.js';
import { commissionPaidEmail } from '../partners/partner-emails.js';
import { queuePartnerEmail, requirePartner } from '../partners/partners.service.js';
import { addApprovedEntriesToPayouts, inPayoutProblem } from '../payouts/payouts.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { requireTransaction } from '../transactions/transactions.service.js';
import {
  findCommission,
  insertCommissions,
  lockCommission,
  selectCommissionList,
  softDeleteCommission,
  updateCommissionRow,
} from './commissions.repository.js';
import type {
  CommissionCreateInput,
  CommissionExpand,
  CommissionInclude,
  CommissionListQueryInput,
  CommissionObject,
  CommissionStatus,
  CommissionUpdateInput,
} from './commissions.schema.js';
import { presentCommissions } from './commissions.serializer.js';
import { moveRefundEntries } from './refund-entries.js';

/** The caller's live commission, or 404. */
export async function requireCommission(db: Db, organizationId: string, id: string): Promise<CommissionRow> {
  const found = await findCommission(db, organizationId, id);
  if (!found) throw notFound('commission', id);
  return found;
}

/** A page of the program's commissions, filtered, with its expansions and includes; total_count of an unfiltered page comes from the kept counters. */
export async function listCommissions(db: Db, organizationId: string, query: CommissionListQueryInput): Promise<Page<CommissionObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filtered = selectCommissionList(db, organizationId, {
    programId: program.id,
    partnerId: query.partner_id,
    customerId: query.customer_id,
    transactionId: query.transaction_id,
    status: query.status,
  });
  const page = await paginate(filtered, query, { createdAt: 'created_at', id: 'id' }, programTotal(db, 'commissions', program.id));
  return { ...page, rows: await presentCommissions(db, page.rows, query.expand, query.include) };
}

/** One commission in the short field set, with its expansions and includes. */
export async function retrieveCommission(
  db: Db,
  organizationId: string,
  id: string,
  query: { expand?: CommissionExpand[]; include?: CommissionInclude[] } = {},
): Promise<CommissionObject> {
  const commission = await requireCommission(db, organizationId, id);
  return (await presentCommissions(db, [commission], query.expand, query.include))[0];
}

/** A paid commission carries a payout id (kept while it stays paid); any other status has none. */
function payoutIdFor(status: CommissionStatus | string, current?: Pick<CommissionRow, 'status' | 'payout_id'>): string | null {
  if (status !== 'paid') return null;
  return current?.status === 'paid' && current.payout_id ? current.payout_id : newId('payout');
}

/** A transaction given with a commission must be of its program and partner, and of its customer when it has one. */
async function checkTransaction(
  db: Db,
  organizationId: string,
  id: string,
  owner: { programId: string; partnerId: string; customerId: string | null },
): Promise<TransactionRow> {
  const transaction = await requireTransaction(db, organizationId, id, { param: 'transaction_id' });
  if (transaction.program_id !== owner.programId) throw badRequest('transaction_id is a transaction of another program', 'transaction_id');
  if (owner.customerId && transaction.customer_id !== owner.customerId) {
    throw badRequest('transaction_id is a transaction of another customer', 'transaction_id');
  }
  if (transaction.partner_id !== owner.partnerId) throw badRequest('transaction_id is a transaction of another partner', 'transaction_id');
  return transaction;
}

/** What a refund or a flow computed stays: a refund entry's amount and transaction, a flow commission's transaction. */
function checkEditable(current: CommissionRow, input: CommissionUpdateInput): void {
  const movesTransaction = input.transaction_id !== undefined && input.transaction_id !== current.transaction_id;
  if (current.type === 'refund') {
    if (input.amount !== undefined && input.amount !== current.amount) {
      throw badRequest('amount of a refund entry cannot change: it is the refunded share of its reward', 'amount');
    }
    if (movesTransaction)
      throw badRequest('transaction_id of a refund entry cannot change: it is the refunded transaction', 'transaction_id');
  } else if (current.flow_id !== null && movesTransaction) {
    throw badRequest(
      'transaction_id of a commission made by a flow cannot change: the flow earned it on that transaction',
      'transaction_id',
    );
  }
}

/**
 * The rejection reason a commission has after a change
 * (ingest/docs/commissions.md#rejection-reasons), or undefined when it keeps its own. A reason may
 * be given only to a commission rejected after the change (given with `status: rejected`, or
 * already rejected): 400 naming `rejection_reason` otherwise. Null or an empty reason clears it;
 * leaving `rejected` clears it too.
 */
function rejectionReasonAfter(status: string, given: string | null | undefined, current: string | null): string | null | undefined {
  if (given) {
    if (status !== 'rejected') {
      throw badRequest('rejection_reason can only be given to a rejected commission (status rejected)', 'rejection_reason');
    }
    return given;
  }
  if (given !== undefined) return null;
  return status === 'rejected' || current === null ? undefined : null;
}

/** Who a manual commission is for: the customer's partner and program, or the given ones. */
async function ownerOf(db: Db, organizationId: string, input: CommissionCreateInput) {
  if (input.customer_id) {
    const customer: CustomerRow = await requireCustomer(db, organizationId, input.customer_id, 'customer_id');
    if (input.program_id && input.program_id !== customer.program_id)
      throw badRequest("program_id is not the customer's program", 'program_id');
    if (input.partner_id && input.partner_id !== customer.partner_id)
      throw badRequest("partner_id is not the customer's partner", 'partner_id');
    return { programId: customer.program_id, partnerId: customer.partner_id, customerId: customer.id as string | null };
  }
  if (!input.program_id) throw badRequest('program_id is required for a commission without a customer', 'program_id');
  if (!input.partner_id) throw badRequest('partner_id is required for a commission without a customer', 'partner_id');
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  const partner = await requirePartner(db, organizationId, input.partner_id, 'partner_id');
  if (partner.program_id !== program.id) throw badRequest('partner_id is a partner of another program', 'partner_id');
  return { programId: program.id, partnerId: partner.id, customerId: null };
}

/** A commission created by hand: approval is manual, the status the caller's (pending by default). */
export async function createCommission(db: Db, organizationId: string, input: CommissionCreateInput): Promise<CommissionRow> {
  const owner = await ownerOf(db, organizationId, input);
  const transaction = input.transaction_id ? await checkTransaction(db, organizationId, input.transaction_id, owner) : null;
  const currency = transaction?.currency ?? (await requireProgram(db, organizationId, owner.programId)).currency_code;
  const status = input.status ?? 'pending';
  const rejectionReason = rejectionReasonAfter(status, input.rejection_reason, null) ?? null;
  const now = new Date();
  const [created] = await insertCommissions(db, [
    {
      id: newId('commission'),
      organization_id: organizationId,
      program_id: owner.programId,
      partner_id: owner.partnerId,
      customer_id: owner.customerId,
      transaction_id: transaction?.id ?? null,
      flow_id: null,
      refund_of: null,
      type: 'reward',
      status,
      rejection_reason: rejectionReason,
      amount: input.amount,
      revenue: input.revenue ?? null,
      currency,
      charge_id: input.charge_id !== undefined ? input.charge_id : (transaction?.charge_id ?? null),
      charge_status: transaction?.status ?? null,
      source: input.source ?? null,
      approval_type: 'manual',
      scheduled_approval_date: null,
      payout_id: payoutIdFor(status),
      created_at: input.created_at ?? now,
      updated_at: now,
    },
  ]);
  return created;
}

export async function updateCommission(
  db: Db,
  organizationId: string,
  id: string,
  input: CommissionUpdateInput,
  onEmailQueued?: () => void,
): Promise<CommissionRow> {
  const { updated, queued } = await inTransaction(db, (trx) => updateLocked(trx, organizationId, id, input));
  if (queued) onEmailQueued?.();
  return updated;
}

/** The most commissions one bulk change takes. */
export const MAX_BULK_COMMISSIONS = 100;

/** A bulk change refused because of one of its commissions: `commissionId`, and `refusal`, what was said of it alone. */
export class CommissionRefused extends ApiError {
  constructor(
    readonly commissionId: string,
    readonly refusal: ApiError,
  ) {
    super(refusal.type, `${commissionId}: ${refusal.message}`, refusal.options);
  }
}

/**
 * The same change to several commissions, all in one SQL transaction: every one of them changes,
 * or none does (the dashboard's bulk approve and reject). Locked in id order, so two bulk changes
 * sharing commissions wait for each other instead of deadlocking. An error names the commission.
 */
export async function updateCommissions(
  db: Db,
  organizationId: string,
  programId: string,
  ids: string[],
  input: CommissionUpdateInput,
  onEmailQueued?: () => void,
): Promise<CommissionRow[]> {
  const unique = [...new Set(ids)].sort();
  if (unique.length === 0) throw badRequest('Choose at least one commission', 'ids');
  if (unique.length > MAX_BULK_COMMISSIONS) throw badRequest(`At most ${MAX_BULK_COMMISSIONS} commissions at once`, 'ids');
  const results = await inTransaction(db, async (trx) => {
    const done: { updated: CommissionRow; queued: boolean }[] = [];
    for (const id of unique) {
      try {
        done.push(await updateLocked(trx, organizationId, id, input, programId));
      } catch (err) {
        if (err instanceof ApiError && unique.length > 1) throw new CommissionRefused(id, err);
        throw err;
      }
    }
    return done;
  });
  if (results.some((r) => r.queued)) onEmailQueued?.();
  return results.map((r) => r.updated);
}

/**
 * Rejects these commissions with `reason`, in the caller's SQL transaction, each as a single
 * change would (its refund entries with it): a risk event's resolution. Locked in id order, as a
 * bulk change locks them. True when a partner e-mail was queued.
 */
export async function rejectCommissionsLocked(trx: Db, organizationId: string, ids: string[], reason: string): Promise<boolean> {
  let queued = false;
  for (const id of [...new Set(ids)].sort()) {
    const done = await updateLocked(trx, organizationId, id, { status: 'rejected', rejection_reason: reason });
    queued ||= done.queued;
  }
  return queued;
}

async function updateLocked(
  trx: Db,
  organizationId: string,
  id: string,
  input: CommissionUpdateInput,
  programId?: string,
): Promise<{ updated: CommissionRow; queued: boolean }> {
  const current = await lockCommission(trx, organizationId, id);
  // A bulk change names its program: another program's commission is not found there.
  if (!current || (programId !== undefined && current.program_id !== programId)) throw notFound('commission', id);
  checkEditable(current, input);
  const rejectionReason = rejectionReasonAfter(input.status ?? current.status, input.rejection_reason, current.rejection_reason);
  const changesMoney = ['status', 'amount', 'transaction_id'] as const;
  const changed = changesMoney.find((field) => input[field] !== undefined && input[field] !== current[field]);
  const inPayout = changed && (await inPayoutProblem(trx, current));
  if (inPayout) throw badRequest(inPayout, changed);
  let chargeStatus: string | null | undefined;
  if (input.transaction_id) {
    const owner = { programId: current.program_id, partnerId: current.partner_id, customerId: current.customer_id };
    chargeStatus = (await checkTransaction(trx, organizationId, input.transaction_id, owner)).status;
  } else if (input.transaction_id === null) {
    chargeStatus = null;
  }
  const now = new Date();
  const updated = await updateCommissionRow(trx, current.id, {
    ...input,
    rejection_reason: rejectionReason,
    ...(chargeStatus !== undefined ? { charge_status: chargeStatus } : {}),
    // A status given by hand is the entry's own: it no longer follows its reward.
    ...(input.status ? { payout_id: payoutIdFor(input.status, current), status_before_void: null } : {}),
    updated_at: now,
  });
  if (input.status) await moveRefundEntries(trx, [current], input.status, now);
  // A refund entry approved now goes into the pending payout its reward may be in.
  if (current.type === 'refund' && input.status === 'approved' && current.status !== 'approved') {
    await addApprovedEntriesToPayouts(trx, [updated], now);
  }
  const queued = input.status === 'paid' && current.status !== 'paid' ? await queuePaidEmail(trx, updated) : false;
  return { updated, queued };
}

/**
 * The partner's e-mail about a commission paid to them, if their switch wants it
 * (ingest/docs/partner-emails.md); true when queued. A refund entry is not a payment to them.
 */
async function queuePaidEmail(trx: Db, commission: CommissionRow): Promise<boolean> {
  if (commission.type !== 'reward' || commission.amount <= 0) return false;
  return queuePartnerEmail(trx, commission, (partner, program) => commissionPaidEmail(partner, program, commission));
}

/** Soft delete: hidden from the API and from the totals, with its unpaid refund entries. */
export async function deleteCommission(db: Db, organizationId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const commission = await lockCommission(trx, organizationId, id);
    if (!commission) throw notFound('commission', id);
    const inPayout = await inPayoutProblem(trx, commission);
    if (inPayout) throw badRequest(inPayout, 'id');
    const now = new Date();
    await softDeleteCommission(trx, commission.id, now);
    await moveRefundEntries(trx, [commission], 'deleted', now);
  });
}

/** A commission as its tables show it: the API's short object, with its own currency and its rejection reason. */
export type ShownCommission = CommissionObject & { currency: string; rejection_reason: string | null };

/**
 * What the dashboard's and the portal's tables show of each commission of a page beyond the API's short object, which does not
 * carry it (the Partnership Program API's field set): its currency (the transaction's, which need
 * not be the program's) and the reason it was rejected, read from the stored rows in one query.
 */
export async function withStoredFields<P extends { rows: CommissionObject[] }>(
  db: Db,
  page: P,
): Promise<Omit<P, 'rows'> & { rows: ShownCommission[] }> {
  const stored = await loadByIds(
    db,
    'commissions',
    page.rows.map((c) => c.id),
  );
  return {
    ...page,
    rows: page.rows.map((c) => {
      const row = stored.get(c.id);
      return { ...c, currency: row?.currency ?? '', rejection_reason: row?.rejection_reason ?? null };
    }),
  };
}
