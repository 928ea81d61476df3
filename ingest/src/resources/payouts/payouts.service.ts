import type { Db } from '../../db/database.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { PartnerRow, PayoutRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import type { CommissionExpand, CommissionObject } from '../commissions/commissions.schema.js';
import { presentCommissions } from '../commissions/commissions.serializer.js';
import { payoutPaidEmail } from '../partners/partner-emails.js';
import { findProgramPartnerIds } from '../partners/partners.repository.js';
import { toExpandedPartner } from '../partners/partners.serializer.js';
import { queuePartnerEmail, requireProgramPartner } from '../partners/partners.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { EXPORT_FORMATS_BY_NAME, type ExportFormat, type ExportPartner } from './payout-exports.js';
import { type PayoutReadiness, payoutReadiness, type ReadinessFacts } from './payout-readiness.js';
import {
  detachUnpayable,
  exportBatch,
  findPayout,
  findPayoutOfCommission,
  heldPayableSums,
  heldSumsInUnpaidPayouts,
  insertPayouts,
  joinRewardPayouts,
  lockProgramPayouts,
  type PayableSum,
  type PayoutListFilters,
  partnerBalances,
  payPayoutCommissions,
  releasePayoutCommissions,
  selectPartnerMinimums,
  selectPayoutCommissions,
  selectPayoutList,
  shareProgramPayouts,
  summarizeExport,
  takePayableSums,
  updatePayoutRow,
} from './payouts.repository.js';
import type {
  BalanceListInput,
  BalanceObject,
  GenerateResultObject,
  PayoutCommissionsInput,
  PayoutExportInput,
  PayoutGenerateInput,
  PayoutListInput,
  PayoutObject,
  PayoutStatus,
  PayoutUpdateInput,
} from './payouts.schema.js';
import { presentPayouts, toBalance } from './payouts.serializer.js';

/** Where each status may go (ingest/docs/payouts.md); paid, failed and canceled are final. */
export const NEXT_STATUSES: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending: ['processing', 'paid', 'failed', 'canceled'],
  processing: ['paid', 'failed', 'canceled'],
  paid: [],
  failed: [],
  canceled: [],
};

/** The caller's payout, or 404. */
export async function requirePayout(db: Db, organizationId: string, id: string): Promise<PayoutRow> {
  const found = await findPayout(db, organizationId, id);
  if (!found) throw notFound('payout', id);
  return found;
}

export async function listPayouts(db: Db, organizationId: string, query: PayoutListInput): Promise<Page<PayoutObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  if (query.partner_id) await requireProgramPartner(db, organizationId, program.id, query.partner_id);
  const filtered = selectPayoutList(db, organizationId, { programId: program.id, partnerId: query.partner_id, status: query.status });
  const page = await paginate(filtered, query, { createdAt: 'payouts.created_at', id: 'payouts.id' });
  return { ...page, rows: await presentPayouts(db, page.rows, query.expand) };
}

export async function retrievePayout(db: Db, organizationId: string, id: string, expand?: 'partner'[]): Promise<PayoutObject> {
  return (await presentPayouts(db, [await requirePayout(db, organizationId, id)], expand))[0];
}

/** Money of an unpaid payout that open risk events hold: what it is, in how many of its commissions. */
export interface MoneyUnderReview {
  status: 'pending' | 'processing';
  currency: string;
  amount: number;
  commissions: number;
}

/**
 * The money of the program's unpaid payouts (of one partner, if given) that open risk events
 * hold, by payout (one holding none is absent): the dashboard's payouts list marks them and counts
 * them beside the batch file of their status, and a payout's page warns of it before it is paid
 * (ingest/docs/risk.md#held-money). Only an event raised after a payout was made holds money in it.
 */
export async function moneyUnderReviewInPayouts(
  db: Db,
  of: { programId: string; partnerId?: string },
): Promise<Map<string, MoneyUnderReview>> {
  const rows = await heldSumsInUnpaidPayouts(db, of);
  return new Map(rows.map(({ payout_id, ...held }) => [payout_id, held]));
}

/**
 * The commissions a payout groups (or paid, once paid), in the commission list's field set; `expand`
 * (beyond the API's query, for the pages) loads their customers or transactions once per page.
 */
export async function listPayoutCommissions(
  db: Db,
  organizationId: string,
  id: string,
  query: PayoutCommissionsInput,
  expand: CommissionExpand[] = [],
): Promise<Page<CommissionObject>> {
  const payout = await requirePayout(db, organizationId, id);
  const page = await paginate(selectPayoutCommissions(db, payout), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: await presentCommissions(db, page.rows, expand, query.include) };
}

/**
 * One payout per partner and currency for what they are owed, in one SQL transaction under the
 * program's payout lock: generations of a program on any number of processes run one after
 * another, so none attaches a commission another already has. SQL takes and locks the payable
 * commissions and sums them with the partner's facts (takePayableSums); payoutReadiness decides
 * which sums are paid and why the others are not, the same rule the portal's next payout shows;
 * the ready ones become payouts (insertPayouts).
 */
export async function generateProgramPayouts(db: Db, organizationId: string, input: PayoutGenerateInput): Promise<GenerateResultObject> {
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  if (input.partner_ids) {
    const known = await findProgramPartnerIds(db, organizationId, program.id, input.partner_ids);
    const unknown = input.partner_ids.find((id) => !known.has(id));
    if (unknown) throw notFound('partner', unknown, 'partner_ids');
  }
  const upTo = input.up_to ?? new Date();
  const { judged, made } = await inTransaction(db, async (trx) => {
    await lockProgramPayouts(trx, program.id);
    const sums = await takePayableSums(trx, {
      programId: program.id,
      programCurrency: program.currency_code,
      programMinimum: program.minimum_payout,
      upTo,
      partnerIds: input.partner_ids,
    });
    const held = await heldPayableSums(trx, {
      programId: program.id,
      programCurrency: program.currency_code,
      upTo,
      partnerIds: input.partner_ids,
    });
    const judged = [
      ...sums.map((sum) => ({ sum, readiness: payoutReadiness(readinessFactsOf(sum)) })),
      // A partner whose every payable commission is held gets no sum above: they are reported on hold.
      ...held
        .filter((h) => !sums.some((s) => s.partner_id === h.partner_id && s.currency === h.currency))
        .map((h) => ({ sum: heldOnly(h), readiness: payoutReadiness({ ...readinessFactsOf(heldOnly(h)), held: h.amount }) })),
    ];
    const ready = judged.filter((j) => j.readiness.ready).map((j) => j.sum);
    const made = await insertPayouts(trx, { organizationId, programId: program.id, now: new Date() }, ready);
    return { judged, made };
  });
  const payoutIds = new Map(made.map((p) => [`${p.partner_id}\n${p.currency}`, p.id]));
  return {
    up_to: upTo.toISOString(),
    payouts: judged.flatMap(({ sum, readiness }) =>
      readiness.ready
        ? [
            {
              id: payoutIds.get(`${sum.partner_id}\n${sum.currency}`) as string,
              partner_id: sum.partner_id,
              amount: sum.amount,
              currency: sum.currency,
              commission_count: sum.commission_count,
            },
          ]
        : [],
    ),
    skipped: judged.flatMap(({ sum, readiness }) =>
      readiness.ready
        ? []
        : [
            {
              partner_id: sum.partner_id,
              currency: sum.currency,
              amount: readiness.reason === 'on_hold' ? readiness.held : sum.amount,
              minimum_payout: sum.minimum_payout,
              reason: readiness.reason,
            },
          ],
    ),
  };
}

/** A partner and currency of which a generation took nothing but found money held. */
const heldOnly = (h: { partner_id: string; currency: string }): PayableSum => ({
  partner_id: h.partner_id,
  currency: h.currency,
  amount: 0,
  commission_count: 0,
  period_start: new Date(0),
  period_end: new Date(0),
  minimum_payout: 0,
  payout_method: 'none',
  payout_details: {},
  partner_deleted: false,
});

/** A sum a generation took, as the facts payoutReadiness reads. */
const readinessFactsOf = (sum: PayableSum): ReadinessFacts => ({
  amount: sum.amount,
  minimum: sum.minimum_payout,
  payoutMethod: sum.payout_method,
  payoutDetails: sum.payout_details,
  partnerDeleted: sum.partner_deleted,
});

/**
 * A status change, a reference, or both, in one SQL transaction with what they do to the
 * payout's commissions: paid marks them paid with this payout as their `payout_id` (and tells the
 * partner, if their switch wants it); failed or canceled makes them payable again.
 */
export async function updatePayout(
  db: Db,
  organizationId: string,
  id: string,
  input: PayoutUpdateInput,
  onEmailQueued: () => void,
): Promise<PayoutRow> {
  let queued = false;
  const payout = await inTransaction(db, async (trx) => {
    const current = await findPayout(trx, organizationId, id, true);
    if (!current) throw notFound('payout', id);
    const from = current.status as PayoutStatus;
    if (NEXT_STATUSES[from].length === 0) throw badRequest(`A ${from} payout cannot change`, input.status ? 'status' : undefined);
    const to = input.status && input.status !== from ? input.status : undefined;
    if (to && !NEXT_STATUSES[from].includes(to)) throw badRequest(`A ${from} payout cannot become ${to}`, 'status');
    if (input.reason !== undefined && to !== 'failed' && to !== 'canceled') {
      throw badRequest('reason is given with status failed or canceled', 'reason');
    }
    const now = new Date();
    const updated = await updatePayoutRow(trx, current.id, {
      ...(input.reference !== undefined ? { reference: input.reference } : {}),
      ...(to ? { status: to } : {}),
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
      ...(to === 'paid' ? { paid_at: now } : {}),
      updated_at: now,
    });
    if (to === 'paid') {
      await payPayoutCommissions(trx, current.id, now);
      queued = await queuePartnerEmail(trx, updated, (partner, program) => payoutPaidEmail(partner, program, updated));
    } else if (to === 'failed' || to === 'canceled') {
      await releasePayoutCommissions(trx, [current.id]);
    }
    return updated;
  });
  if (queued) onEmailQueued();
  return payout;
}

/**
 * Keeps unpaid payouts true to their commissions after some of these partners' commissions left
 * what a payout pays (a refund or a transaction's delete refunded or rejected them): they leave
 * their payouts, which are summed again; one left with nothing to pay is canceled and lets go
 * of the rest. Runs in the caller's SQL transaction.
 */
export async function settleUnpaidPayouts(trx: Db, partnerIds: string[], now: Date): Promise<void> {
  const canceled = await detachUnpayable(trx, [...new Set(partnerIds)], now);
  await releasePayoutCommissions(trx, canceled);
}

/**
 * Refund entries just made payable (written by a refund, or approved) go into the pending payout
 * their reward is in, whose amount goes down by them at once: paying it then pays nothing refunded
 * (ingest/docs/payouts.md#refunds-and-payouts). One left with nothing to pay is canceled and lets
 * go of the rest. Runs in the caller's SQL transaction, which holds the program's payouts shared
 * (shareProgramPayouts), so that no generation runs meanwhile.
 */
export async function addEntriesToPayouts(trx: Db, entryIds: string[], now: Date): Promise<void> {
  const canceled = await joinRewardPayouts(trx, entryIds, now);
  await releasePayoutCommissions(trx, canceled);
}

/**
 * Refund entries approved (by hand or by the approval job) go into their reward's pending payout,
 * as addEntriesToPayouts. The programs' payouts are held shared first, so that a generation
 * running meanwhile either sees them approved or is seen: these entries are not ones a generation
 * locks (they were not approved), so taking it after them cannot deadlock with one.
 */
export async function addApprovedEntriesToPayouts(trx: Db, entries: { id: string; program_id: string }[], now: Date): Promise<void> {
  if (entries.length === 0) return;
  await shareProgramPayouts(
    trx,
    entries.map((e) => e.program_id),
  );
  await addEntriesToPayouts(
    trx,
    entries.map((e) => e.id),
    now,
  );
}

/**
 * Why a commission in a payout cannot change its status or amount, or be deleted: an unpaid
 * payout's sum, or a paid one's trail, would no longer be true. Undefined when it is in none.
 */
export async function inPayoutProblem(
  db: Db,
  commission: { id: string; organization_id: string; payout_id: string | null },
): Promise<string | undefined> {
  const unpaid = await findPayoutOfCommission(db, commission.id);
  if (unpaid) {
    return `Commission '${commission.id}' is in payout '${unpaid}', which is not paid yet: cancel the payout first, or wait until it is paid`;
  }
  // Paid by a payout (not by itself): the payout's trail must stay true.
  if (commission.payout_id && (await findPayout(db, commission.organization_id, commission.payout_id))) {
    return `Commission '${commission.id}' was paid by payout '${commission.payout_id}': correct it with a refund of its transaction, which the next payout takes back`;
  }
  return undefined;
}

/** What each partner of the program is owed, a page of partners at a time. */
export async function listBalances(
  db: Db,
  organizationId: string,
  programId: string,
  query: BalanceListInput,
): Promise<Page<BalanceObject>> {
  const program = await requireProgram(db, organizationId, programId);
  if (query.partner_id) await requireProgramPartner(db, organizationId, program.id, query.partner_id);
  const partners = selectPartnerMinimums(db, organizationId, {
    programId: program.id,
    programMinimum: program.minimum_payout,
    partnerId: query.partner_id,
  });
  const page = await paginate(partners, query, { createdAt: 'p.created_at', id: 'p.id' });
  const amounts = await partnerBalances(
    db,
    page.rows.map((p) => p.id),
    program.currency_code,
  );
  const expanded = query.expand?.includes('partner')
    ? await loadByIds(
        db,
        'partners',
        page.rows.map((p) => p.id),
      )
    : undefined;
  return {
    ...page,
    rows: page.rows.map((partner) => {
      const balance = toBalance(
        partner,
        amounts.filter((a) => a.partner_id === partner.id),
      );
      const row = expanded?.get(partner.id);
      return row ? { ...balance, partner: toExpandedPartner(row) } : balance;
    }),
  };
}

/** A partner's balance, and per currency whether the next generation pays it: what the portal shows as their next payout. */
export interface NextPayout {
  /** Null until the partner has a balance row (a live partner always has one). */
  balance: BalanceObject | null;
  /** One per currency of `balance.amounts`, in its order: its figures and payoutReadiness's verdict, as a generation now would judge it. */
  currencies: { amounts: BalanceObject['amounts'][number]; readiness: PayoutReadiness }[];
}

/**
 * The partner's next payout, judged by the rule generation follows on the facts it would read:
 * `payable` (approved, in no unpaid payout, refund entries netting) is what a generation up to
 * now takes, with the partner's minimum, payout method and details. A deleted partner: 404.
 */
export async function nextPayoutOf(
  db: Db,
  organizationId: string,
  partner: Pick<PartnerRow, 'id' | 'program_id' | 'payout_method' | 'payout_details'>,
): Promise<NextPayout> {
  // listBalances answers 404 for a deleted partner, as the API does: the partner below is live.
  const page = await listBalances(db, organizationId, partner.program_id, { partner_id: partner.id, limit: 1 });
  const balance = page.rows[0];
  if (!balance) return { balance: null, currencies: [] };
  const verdict = (amounts: BalanceObject['amounts'][number]) =>
    payoutReadiness({
      amount: amounts.payable,
      held: amounts.on_hold,
      minimum: balance.minimum_payout,
      payoutMethod: partner.payout_method,
      payoutDetails: partner.payout_details,
      partnerDeleted: false,
    });
  return { balance, currencies: balance.amounts.map((amounts) => ({ amounts, readiness: verdict(amounts) })) };
}

export interface PayoutExport {
  filename: string;
  header: string[] | null;
  /** The file's rows, read from SQL a batch at a time. */
  rows: AsyncIterable<string[]>;
}

/**
 * A batch file of the program's payouts (pending by default). A provider's format holds that
 * provider's payouts only, each needing the e-mail of its payout details, and PayPal's one
 * currency: refused with a 400 naming what is missing before any of the file is sent.
 */
export async function exportPayouts(db: Db, organizationId: string, query: PayoutExportInput, today = new Date()): Promise<PayoutExport> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const format: ExportFormat = EXPORT_FORMATS_BY_NAME[query.format];
  const status = query.status ?? 'pending';
  const filters: PayoutListFilters = {
    programId: program.id,
    status,
    currency: query.currency,
    payoutMethod: format.method ?? undefined,
    createdUpTo: today,
  };
  const summary = await summarizeExport(db, organizationId, filters);
  const rows = summary.reduce((sum, s) => sum + s.payouts, 0);
  if (format.maxRows !== null && rows > format.maxRows) {
    throw badRequest(
      `A ${query.format} file holds at most ${format.maxRows} payouts; these are ${rows}: export a currency at a time, or mark some processing first`,
      'format',
    );
  }
  if (format.oneCurrency && summary.length > 1) {
    throw badRequest(
      `A ${query.format} file holds one currency; these payouts are in ${summary.map((s) => s.currency).join(', ')}: choose one with currency`,
      'currency',
    );
  }
  const withoutEmail = summary.flatMap((s) => s.without_email);
  if (format.method && withoutEmail.length > 0) {
    throw badRequest(
      `Payouts without the partner's ${format.method} e-mail in their payout details cannot be in the file: ${withoutEmail.join(', ')}`,
      'format',
    );
  }
  const day = today.toISOString().slice(0, 10);
  return {
    filename: `payouts-${program.subdomain}-${status}-${day}-${query.format}${query.currency ? `-${query.currency.toLowerCase()}` : ''}.csv`,
    header: format.header,
    rows: (async function* () {
      let after: { created_at: Date; id: string } | null = null;
      for (;;) {
        const batch = await exportBatch(db, organizationId, filters, after, 500);
        for (const row of batch) {
          const partner: ExportPartner = {
            first_name: row.first_name,
            last_name: row.last_name,
            email: row.partner_email,
            company_name: row.company_name,
          };
          yield format.row(row, partner);
        }
        if (batch.length < 500) return;
        const last = batch[batch.length - 1];
        after = { created_at: new Date(last.created_at), id: last.id };
      }
    })(),
  };
}
