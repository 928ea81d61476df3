import { type Insertable, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { RiskEventRow, RiskEventsTable } from '../../db/schema.js';
import { advisoryLockId } from '../../ids.js';

/**
 * Every SQL statement on risk_events, partner_browsers and risk_checks, and the one rule of what
 * an open risk event holds (ingest/docs/risk.md#held-money).
 */

const ref = (alias: string, column: string) => sql.ref(`${alias}.${column}`);

/**
 * Whether risk event `e` concerns commission `c`: a commission of its partner, and of its
 * customer (`holds = 'customer'`), of a customer whose click came from its fingerprint
 * (`'visitor'`), or any (`'partner'`). Refund entries go with their customer, as their reward does.
 * `heldCommissions` below is the same rule for every open event at once: change both together.
 */
function concerns(e: string, c: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ref(e, 'partner_id')} = ${ref(c, 'partner_id')} and (
      ${ref(e, 'holds')} = 'partner'
      or (${ref(e, 'holds')} = 'customer' and ${ref(e, 'customer_id')} = ${ref(c, 'customer_id')})
      or (${ref(e, 'holds')} = 'visitor' and exists (
            select 1 from customers hc join clicks hk on hk.id = hc.click_id
             where hc.id = ${ref(c, 'customer_id')} and hk.visitor_hash = ${ref(e, 'visitor_hash')}))))`;
}

/**
 * Whose open events a statement's held set is built from: a program's (payout generation), some
 * partners' (balances), or every program's (the approval job, which runs over all of them). A
 * statement that reads one program's commissions then pays for that program's open events
 * alone, through the partial indexes of open events by program and by partner.
 */
export type HoldScope = { programId: string } | { partnerIds: readonly string[] } | 'every program';

/** `alias`'s rows of `scope`: its events, or its commissions (whose events are of their partner and program). */
function inScope(scope: HoldScope, alias: string): RawBuilder<unknown> {
  if (scope === 'every program') return sql``;
  if ('programId' in scope) return sql`and ${ref(alias, 'program_id')} = ${scope.programId}`;
  return sql`and ${ref(alias, 'partner_id')} = any(${[...scope.partnerIds]}::text[])`;
}

/**
 * The ids of every commission an open risk event of `scope` holds (`concerns`, set-wise), as one
 * uncorrelated query: PostgreSQL computes it once and probes it as a hash, so a statement over
 * many commissions pays for the held ones alone, however many open events a partner has (a
 * per-row test against each open event cost 116 s for the approval job at 10,337 events in the
 * bench: ingest/bench/README.md). Both sides are limited to the scope, so each branch starts
 * from the scope's commissions or open events by their indexes. It stays inline, never a CTE: a
 * CTE is estimated at a few rows, and PostgreSQL may then test each commission by scanning it
 * (a balances page took 14 s that way at 19,450 commissions), where the inline set is dear enough to
 * run again that the planner always hashes it.
 */
function heldCommissions(scope: HoldScope): RawBuilder<unknown> {
  return sql`
  select hc.id from risk_events e join commissions hc on hc.partner_id = e.partner_id
   where e.status = 'open' and e.holds = 'partner' ${inScope(scope, 'e')} ${inScope(scope, 'hc')}
  union
  select hc.id from risk_events e join commissions hc on hc.customer_id = e.customer_id and hc.partner_id = e.partner_id
   where e.status = 'open' and e.holds = 'customer' ${inScope(scope, 'e')} ${inScope(scope, 'hc')}
  union
  select hc.id from commissions hc join customers hu on hu.id = hc.customer_id join clicks hk on hk.id = hu.click_id
       join risk_events e on e.partner_id = hc.partner_id and e.visitor_hash = hk.visitor_hash and e.status = 'open' and e.holds = 'visitor'
   where hc.partner_id in (select v.partner_id from risk_events v where v.status = 'open' and v.holds = 'visitor' ${inScope(scope, 'v')})
     ${inScope(scope, 'hc')}`;
}

/**
 * Whether commission `alias` is held: an open risk event concerns it. The approval job, payout
 * generation and balances read this, so a held commission is never approved by the job and never
 * paid while its event is open. `scope` must include every commission the statement reads.
 */
export function isHeld(alias: string, scope: HoldScope): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ref(alias, 'id')} in (${heldCommissions(scope)}))`;
}

/** What the rules read of a program: its settings and its fingerprint key. */
export function findProgramRisk(db: Db, programId: string) {
  return db.selectFrom('programs').select(['id', 'risk_rules', 'risk_salt']).where('id', '=', programId).executeTakeFirst();
}

/** Stores a program's risk rules (every field: what it shows from now on). */
export async function saveProgramRules(db: Db, programId: string, rules: unknown): Promise<void> {
  await db
    .updateTable('programs')
    .set({ risk_rules: JSON.stringify(rules), updated_at: new Date() })
    .where('id', '=', programId)
    .execute();
}

/** New risk events; one whose (program, dedupe_key) was flagged before is not made again. Answers the ones made. */
export async function insertRiskEvents(db: Db, rows: Insertable<RiskEventsTable>[]): Promise<RiskEventRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('risk_events')
    .values(rows)
    .onConflict((oc) => oc.columns(['program_id', 'dedupe_key']).doNothing())
    .returningAll()
    .execute();
}

export interface RiskEventFilters {
  programId?: string;
  partnerId?: string;
  rule?: string;
  status?: string;
}

/** Risk events of an organization, filtered. */
export function selectRiskEventList(db: Db, organizationId: string, f: RiskEventFilters) {
  let query = db.selectFrom('risk_events').selectAll().where('organization_id', '=', organizationId);
  if (f.programId) query = query.where('program_id', '=', f.programId);
  if (f.partnerId) query = query.where('partner_id', '=', f.partnerId);
  if (f.rule) query = query.where('rule', '=', f.rule);
  if (f.status) query = query.where('status', '=', f.status as RiskEventRow['status']);
  return query;
}

export function findRiskEvent(db: Db, organizationId: string, id: string, forUpdate = false): Promise<RiskEventRow | undefined> {
  let query = db.selectFrom('risk_events').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The open events of a partner, locked (a ban resolves them all). */
export function lockOpenEventsOfPartner(db: Db, partnerId: string): Promise<RiskEventRow[]> {
  return db
    .selectFrom('risk_events')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('status', '=', 'open')
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function resolveRiskEventRows(
  db: Db,
  ids: string[],
  r: { resolution: string; reason: string | null; now: Date },
): Promise<RiskEventRow[]> {
  return db
    .updateTable('risk_events')
    .set({ status: 'resolved', resolution: r.resolution, resolution_reason: r.reason, resolved_at: r.now, updated_at: r.now })
    .where('id', 'in', ids)
    .where('status', '=', 'open')
    .returningAll()
    .execute();
}

/**
 * The reward commissions an event concerns that a rejection may still take back: pending or
 * approved, live, and in no payout. Refund entries follow their reward.
 */
export async function heldRewardIds(db: Db, event: RiskEventRow): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select c.id from commissions c, (select ${event.partner_id}::text as partner_id, ${event.holds}::text as holds,
                                            ${event.customer_id}::text as customer_id, ${event.visitor_hash}::text as visitor_hash) e
     where c.partner_id = ${event.partner_id} and c.type = 'reward' and c.status in ('pending', 'approved') and c.deleted_at is null
       and not exists (select 1 from payout_commissions pc where pc.commission_id = c.id)
       and ${concerns('e', 'c')}
     order by c.id`.execute(db);
  return rows.map((r) => r.id);
}

/** The partner's pending reward commissions (a ban rejects them all). */
export async function pendingRewardIds(db: Db, partnerId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select id from commissions
     where partner_id = ${partnerId} and type = 'reward' and status = 'pending' and deleted_at is null
     order by id`.execute(db);
  return rows.map((r) => r.id);
}

/** Per open event, the money it holds now (pending, or approved in no unpaid payout), per currency. */
export async function moneyHeldByEvents(
  db: Db,
  eventIds: string[],
): Promise<{ event_id: string; currency: string; amount: number; commissions: number }[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await sql<{ event_id: string; currency: string; amount: string; commissions: number }>`
    select e.id as event_id, coalesce(c.currency, p.currency_code) as currency, sum(c.amount)::int8 as amount, count(*)::int as commissions
      from risk_events e join programs p on p.id = e.program_id join commissions c on c.partner_id = e.partner_id
     where e.id = any(${eventIds}::text[]) and e.status = 'open'
       and c.deleted_at is null and c.status in ('pending', 'approved')
       and not exists (select 1 from payout_commissions pc where pc.commission_id = c.id)
       and ${concerns('e', 'c')}
     group by 1, 2
     order by 1, 2`.execute(db);
  return rows.map((r) => ({ ...r, amount: Number(r.amount) }));
}

/**
 * Holds the program's payout account until the caller's SQL transaction ends: two partners saved
 * at once with one account then take turns, and the second, reading after the first committed,
 * finds it (under READ COMMITTED each statement sees what committed before it).
 */
export async function lockPayoutAccount(db: Db, programId: string, account: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${advisoryLockId(`payout_account\n${programId}\n${account}`).toString()}::bigint)`.execute(db);
}

/** Live partners of the program other than this one paid into `account`. */
export async function findPartnersPaidInto(db: Db, programId: string, account: string, exceptPartnerId: string) {
  return db
    .selectFrom('partners')
    .select(['id', 'email'])
    .where('program_id', '=', programId)
    .where('payout_account', '=', account)
    .where('deleted_at', 'is', null)
    .where('id', '!=', exceptPartnerId)
    .orderBy('id')
    .execute();
}

/** Whether the partner's portal sessions came from any of these fingerprints. */
export async function partnerBrowserMatches(db: Db, partnerId: string, hashes: string[]): Promise<boolean> {
  if (hashes.length === 0) return false;
  const found = await db
    .selectFrom('partner_browsers')
    .select('visitor_hash')
    .where('partner_id', '=', partnerId)
    .where('visitor_hash', 'in', hashes)
    .executeTakeFirst();
  return found !== undefined;
}

/** Remembers a browser the partner's portal session came from; a known one is touched at most hourly. */
export async function rememberPartnerBrowser(db: Db, b: { partnerId: string; programId: string; visitorHash: string; now: Date }) {
  await sql`
    insert into partner_browsers (partner_id, visitor_hash, program_id, last_seen_at)
    values (${b.partnerId}, ${b.visitorHash}, ${b.programId}, ${b.now})
    on conflict (partner_id, visitor_hash) do update set last_seen_at = excluded.last_seen_at
     where partner_browsers.last_seen_at < excluded.last_seen_at - interval '1 hour'`.execute(db);
}

/** Forgets the browsers of portal sessions not seen since `before`. */
export async function deleteOldPartnerBrowsers(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('partner_browsers').where('last_seen_at', '<', before).execute();
}

/** A click's fingerprint, ad click ids and referrer, as the customer rules read them. */
export function findClickSignals(db: Db, clickId: string) {
  return db.selectFrom('clicks').select(['id', 'visitor_hash', 'ad_click_ids', 'referrer']).where('id', '=', clickId).executeTakeFirst();
}

/**
 * A partner's payments, revenue before refunds and refunded revenue of the UTC days from `since`'s
 * on, per currency: a few rows per day of daily_stats (migration 0019, its partner and day index),
 * whatever the number of payments behind them. A refund's own change is there already: the
 * rollup's trigger ran at the end of its statement, in the same transaction.
 */
export async function refundFigures(db: Db, partnerId: string, since: Date) {
  const { rows } = await sql<{ payments: string; revenue: string; refunded: string; currency: string }>`
    select sum(payments)::int8 as payments, sum(revenue + refunded)::int8 as revenue, sum(refunded)::int8 as refunded, currency
      from daily_stats
     where partner_id = ${partnerId} and day >= (${since}::timestamptz at time zone 'UTC')::date and currency <> ''
     group by currency
    having sum(payments) > 0`.execute(db);
  return rows.map((r) => ({
    currency: r.currency,
    payments: Number(r.payments),
    revenue: Number(r.revenue),
    refunded: Number(r.refunded),
  }));
}

/** Every program, with what the click check reads of it. */
export function programsToCheck(db: Db) {
  return db.selectFrom('programs').select(['id', 'organization_id', 'risk_rules']).orderBy('id').execute();
}

/** Partners whose payout account was never normalised (saved before migration 0017), locked. */
export function partnersWithoutPayoutAccount(db: Db, limit: number) {
  return db
    .selectFrom('partners')
    .select(['id', 'payout_method', 'payout_details'])
    .where('payout_account', 'is', null)
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Sets a partner's normalised payout account ('' for none); answers the partner. */
export function setPayoutAccount(db: Db, partnerId: string, account: string) {
  return db.updateTable('partners').set({ payout_account: account }).where('id', '=', partnerId).returningAll().executeTakeFirst();
}

/** Claims the program's click check for this run (another process's run skips it), and says how far it got. */
export async function claimClickCheck(db: Db, programId: string, now: Date): Promise<Date | undefined> {
  // A program checked for the first time looks back one hour: the window of the rule.
  await sql`insert into risk_checks (program_id, clicks_checked_until)
            values (${programId}, ${now}::timestamptz - interval '1 hour') on conflict do nothing`.execute(db);
  const row = await sql<{ clicks_checked_until: Date }>`
    select clicks_checked_until from risk_checks where program_id = ${programId} for update skip locked`.execute(db);
  return row.rows[0] ? new Date(row.rows[0].clicks_checked_until) : undefined;
}

export async function setClickCheck(db: Db, programId: string, until: Date): Promise<void> {
  await sql`update risk_checks set clicks_checked_until = ${until} where program_id = ${programId}`.execute(db);
}

/** One browser that clicked one partner's links more than `limit` times within an hour. */
export interface FloodedVisitor {
  partner_id: string;
  visitor_hash: string;
  /** The most clicks of the pair in any hour ending at one of its new clicks. */
  clicks_in_hour: number;
  /** The first new click that went over the limit. */
  first_click_id: string;
  first_click_at: Date;
  /** How many of the new clicks were over the limit. */
  extra_clicks: number;
}

/**
 * The browsers that clicked one partner's links more than `limit` times in an hour, among the
 * program's clicks made in (from, to]: each such click is counted with the pair's clicks of the
 * hour before it. The window's pairs come from clicks_program_created; each pair's own clicks of
 * (from - 1 hour, to] are then one range of clicks_partner_visitor (migration 0018), a lateral
 * probe per pair whatever the statistics say, so a check costs what its window's clicks cost and
 * never re-reads the program's whole hour (ingest/bench/README.md#fraud-and-risk-rules).
 */
export async function floodedVisitors(db: Db, programId: string, from: Date, to: Date, limit: number): Promise<FloodedVisitor[]> {
  const { rows } = await sql<FloodedVisitor>`
    with pairs as materialized (
      select distinct partner_id, visitor_hash from clicks
       where program_id = ${programId} and created_at > ${from} and created_at <= ${to} and visitor_hash is not null
    ), counted as (
      select p.partner_id, p.visitor_hash, k.id, k.created_at,
             count(*) over (partition by p.partner_id, p.visitor_hash order by k.created_at
                            range between interval '1 hour' preceding and current row) as in_hour
        from pairs p cross join lateral (
               select id, created_at from clicks
                where partner_id = p.partner_id and visitor_hash = p.visitor_hash and visitor_hash is not null
                  and created_at > ${from}::timestamptz - interval '1 hour' and created_at <= ${to}) k
    ), over_limit as (
      select * from counted where created_at > ${from} and in_hour > ${limit}
    )
    select distinct on (partner_id, visitor_hash)
           partner_id, visitor_hash, id as first_click_id, created_at as first_click_at,
           (max(in_hour) over pair)::int as clicks_in_hour, (count(*) over pair)::int as extra_clicks
      from over_limit
    window pair as (partition by partner_id, visitor_hash)
     order by partner_id, visitor_hash, created_at, id`.execute(db);
  return rows.map((r) => ({ ...r, first_click_at: new Date(r.first_click_at) }));
}

/**
 * How many open risk events each of these partners has, with the partner's organization for the
 * caller to check (the dashboard's badge on partner rows): the partial index of open events by
 * partner (risk_events_open_partner) answers it, so a page of partners costs one probe per
 * partner, whatever the partners' resolved events. (The organization is not in the condition: the
 * planner would take the organization's index and read all its events.)
 */
export function countOpenRiskEventsOfPartners(db: Db, partnerIds: readonly string[]) {
  return db
    .selectFrom('risk_events')
    .select(['partner_id', 'organization_id', sql<number>`count(*)::int`.as('n')])
    .where('partner_id', 'in', partnerIds.length > 0 ? [...partnerIds] : [''])
    .where('status', '=', sql.lit('open'))
    .groupBy(['partner_id', 'organization_id']);
}

/**
 * How many open risk events the program has (the dashboard's navigation count, on every page):
 * the partial index of a program's open events (risk_events_open_program) answers it.
 */
export function countOpenRiskEventsOfProgram(db: Db, organizationId: string, programId: string) {
  return db
    .selectFrom('risk_events')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('program_id', '=', programId)
    .where('status', '=', sql.lit('open'))
    .where('organization_id', '=', organizationId);
}
