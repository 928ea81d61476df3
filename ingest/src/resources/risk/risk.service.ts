import type { Db } from '../../db/database.js';
import { loadByIds } from '../../db/load-by-ids.js';
import type { CustomerRow, RiskEventRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { rejectCommissionsLocked } from '../commissions/commissions.service.js';
import { lockPartner, updatePartnerRows } from '../partners/partners.repository.js';
import { requireProgram } from '../programs/programs.service.js';
import {
  countOpenRiskEventsOfPartners,
  countOpenRiskEventsOfProgram,
  findRiskEvent,
  heldRewardIds,
  lockOpenEventsOfPartner,
  moneyHeldByEvents,
  pendingRewardIds,
  resolveRiskEventRows,
  saveProgramRules,
  selectRiskEventList,
} from './risk.repository.js';
import type { RiskEventListInput, RiskEventObject, RiskResolveInput } from './risk.schema.js';
import { toRiskEvent } from './risk.serializer.js';
import { changedRules, type RiskRuleChanges, type RiskRuleSettings, rulesOf } from './risk-rules.js';

/**
 * The merchant's review of risk events (ingest/docs/risk.md#review): listing them with the money
 * each holds, resolving them, and each program's rules. The rules themselves: risk-flags.ts.
 */

/** The caller's risk event, or 404. */
export async function requireRiskEvent(db: Db, organizationId: string, id: string): Promise<RiskEventRow> {
  const found = await findRiskEvent(db, organizationId, id);
  if (!found) throw notFound('risk_event', id);
  return found;
}

/** A page of the organization's risk events, filtered, with the money each holds. */
export async function listRiskEvents(db: Db, organizationId: string, query: RiskEventListInput): Promise<Page<RiskEventObject>> {
  if (query.program_id) await requireProgram(db, organizationId, query.program_id, 'program_id');
  const filters = { programId: query.program_id, partnerId: query.partner_id, rule: query.rule, status: query.status };
  const page = await paginate(selectRiskEventList(db, organizationId, filters), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: await presentRiskEvents(db, page.rows) };
}

/** Risk events as the API shows them, with what each holds now (one query for all). */
export async function presentRiskEvents(db: Db, rows: RiskEventRow[]): Promise<RiskEventObject[]> {
  const held = await moneyHeldByEvents(
    db,
    rows.filter((e) => e.status === 'open').map((e) => e.id),
  );
  return rows.map((e) =>
    toRiskEvent(
      e,
      held.filter((h) => h.event_id === e.id).map(({ currency, amount, commissions }) => ({ currency, amount, commissions })),
    ),
  );
}

/** The caller's risk event as the API shows it, or 404. */
export async function retrieveRiskEvent(db: Db, organizationId: string, id: string): Promise<RiskEventObject> {
  const [event] = await presentRiskEvents(db, [await requireRiskEvent(db, organizationId, id)]);
  return event;
}

export interface Resolution {
  event: RiskEventRow;
  /** The commissions the resolution rejected. */
  rejected: string[];
  /** Whether a rejection queued a partner e-mail. */
  queued: boolean;
}

/**
 * Resolves an open risk event, in one SQL transaction (ingest/docs/risk.md#review):
 * - `dismiss`: the event stops holding; its commissions go on as any other.
 * - `reject_commissions`: the reward commissions it holds that are in no payout are rejected
 *   with `reason` (the partner sees it), their refund entries with them.
 * - `ban_partner`: the partner is suspended with `reason`, their pending commissions and the ones
 *   this event holds are rejected with it, and every open event of the partner is resolved so.
 * A resolved event → 409.
 */
export async function resolveRiskEvent(db: Db, organizationId: string, id: string, input: RiskResolveInput): Promise<Resolution> {
  return inTransaction(db, async (trx) => {
    const found = await findRiskEvent(trx, organizationId, id);
    if (!found) throw notFound('risk_event', id);
    // The partner first, then its events: the order a ban and a concurrent resolution both take.
    await lockPartner(trx, found.partner_id);
    const event = await findRiskEvent(trx, organizationId, id, true);
    if (!event) throw notFound('risk_event', id);
    if (event.status !== 'open') throw new ApiError('conflict_error', `Risk event ${id} is already resolved (${event.resolution})`);
    const reason = input.reason ?? null;
    const now = new Date();
    if (input.action === 'dismiss') {
      const [resolved] = await resolveRiskEventRows(trx, [event.id], { resolution: 'dismiss', reason, now });
      return { event: resolved, rejected: [], queued: false };
    }
    if (!reason)
      throw badRequest(`reason is required to ${input.action === 'ban_partner' ? 'ban a partner' : 'reject commissions'}`, 'reason');
    if (input.action === 'reject_commissions') {
      const ids = await heldRewardIds(trx, event);
      const queued = await rejectCommissionsLocked(trx, organizationId, ids, reason);
      const [resolved] = await resolveRiskEventRows(trx, [event.id], { resolution: 'reject_commissions', reason, now });
      return { event: resolved, rejected: ids, queued };
    }
    await updatePartnerRows(trx, [event.partner_id], { status: 'suspended', suspension_reason: reason, updated_at: now });
    const open = await lockOpenEventsOfPartner(trx, event.partner_id);
    const ids = [...new Set([...(await pendingRewardIds(trx, event.partner_id)), ...(await heldRewardIds(trx, event))])].sort();
    const queued = await rejectCommissionsLocked(trx, organizationId, ids, reason);
    const resolved = await resolveRiskEventRows(
      trx,
      open.map((e) => e.id),
      { resolution: 'ban_partner', reason, now },
    );
    return { event: resolved.find((e) => e.id === event.id)!, rejected: ids, queued };
  });
}

/** A program's risk rules, every field (defaults filled in). */
export async function programRules(db: Db, organizationId: string, programId: string): Promise<RiskRuleSettings> {
  const program = await requireProgram(db, organizationId, programId);
  return rulesOf(program);
}

/** Changes some of a program's risk rules; the fields not given keep their values. */
export async function changeProgramRules(
  db: Db,
  organizationId: string,
  programId: string,
  changes: RiskRuleChanges,
): Promise<RiskRuleSettings> {
  const program = await requireProgram(db, organizationId, programId);
  const next = changedRules(rulesOf(program), changes);
  await saveProgramRules(db, program.id, next);
  return next;
}

/**
 * How many open risk events the program has: the dashboard's count beside "Risk" in the
 * navigation (ingest/docs/dashboard.md#risk), one query per program page.
 */
export async function openRiskEventCount(db: Db, organizationId: string, programId: string): Promise<number> {
  const row = await countOpenRiskEventsOfProgram(db, organizationId, programId).executeTakeFirst();
  return row?.n ?? 0;
}

/**
 * How many open risk events each of these partners has, in one query (a partner with none is
 * absent): the dashboard's badge on a page of partners (ingest/docs/dashboard.md#risk).
 */
export async function openRiskEventsOfPartners(db: Db, organizationId: string, partnerIds: Iterable<string>): Promise<Map<string, number>> {
  const ids = [...new Set(partnerIds)];
  if (ids.length === 0) return new Map();
  const rows = await countOpenRiskEventsOfPartners(db, ids).execute();
  return new Map(rows.filter((r) => r.organization_id === organizationId).map((r) => [r.partner_id, r.n]));
}

/** The organization's live customers that these risk events concern, in one query, for a page that names them. */
export async function customersOfRiskEvents(
  db: Db,
  organizationId: string,
  events: readonly Pick<RiskEventObject, 'customer_id'>[],
): Promise<Map<string, CustomerRow>> {
  const found = await loadByIds(
    db,
    'customers',
    events.flatMap((e) => (e.customer_id ? [e.customer_id] : [])),
  );
  return new Map([...found].filter(([, c]) => c.organization_id === organizationId));
}
