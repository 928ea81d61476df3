import { type RawBuilder, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PayoutRow, PayoutsTable } from '../../db/schema.js';
import { advisoryLockId } from '../../ids.js';
import { isHeld } from '../risk/risk.repository.js';

/** The SQL of payouts, and of the commissions in unpaid payouts (`payout_commissions`). */

export function selectPayouts(db: Db, organizationId: string) {
  return db.selectFrom('payouts').selectAll('payouts').where('payouts.organization_id', '=', organizationId);
}

export interface PayoutListFilters {
  programId: string;
  partnerId?: string;
  status?: string;
  currency?: string;
  payoutMethod?: string;
  /** Only payouts made up to then (an export: what a generation adds while it runs is not in it). */
  createdUpTo?: Date;
}

/** A program's payouts with the list filters applied, for `paginate` and the exports (columns named by table: exports join partners). */
export function selectPayoutList(db: Db, organizationId: string, filters: PayoutListFilters) {
  let query = selectPayouts(db, organizationId).where('payouts.program_id', '=', filters.programId);
  if (filters.partnerId) query = query.where('payouts.partner_id', '=', filters.partnerId);
  if (filters.status) query = query.where('payouts.status', '=', filters.status);
  if (filters.currency) query = query.where('payouts.currency', '=', filters.currency);
  if (filters.payoutMethod) query = query.where('payouts.payout_method', '=', filters.payoutMethod);
  if (filters.createdUpTo) query = query.where('payouts.created_at', '<=', filters.createdUpTo);
  return query;
}

export interface ExportSummary {
  currency: string;
  payouts: number;
  /** Up to five payouts whose details hold no e-mail. */
  without_email: string[];
}

/** What an export would hold, per currency, and which payouts lack the e-mail a provider's file needs. */
export function summarizeExport(db: Db, organizationId: string, filters: PayoutListFilters): Promise<ExportSummary[]> {
  return selectPayoutList(db, organizationId, filters)
    .clearSelect()
    .select([
      'payouts.currency',
      sql<number>`count(*)::int`.as('payouts'),
      sql<
        string[]
      >`coalesce((array_agg(payouts.id order by payouts.id) filter (where coalesce(payouts.payout_details ->> 'email', '') = ''))[1:5], '{}')`.as(
        'without_email',
      ),
    ])
    .groupBy('payouts.currency')
    .orderBy('payouts.currency')
    .execute();
}

/** A batch of an export, in (created_at, id) order after `after`, each payout with its partner's name and e-mail. */
export function exportBatch(
  db: Db,
  organizationId: string,
  filters: PayoutListFilters,
  after: { created_at: Date; id: string } | null,
  limit: number,
) {
  let query = selectPayoutList(db, organizationId, filters)
    .innerJoin('partners', 'partners.id', 'payouts.partner_id')
    .select(['partners.first_name', 'partners.last_name', 'partners.email as partner_email', 'partners.company_name']);
  if (after) query = query.where(sql<boolean>`(payouts.created_at, payouts.id) > (${after.created_at}, ${after.id})`);
  return query.orderBy('payouts.created_at').orderBy('payouts.id').limit(limit).execute();
}

/** The caller's payout; `forUpdate` locks it for the rest of the SQL transaction. */
export function findPayout(db: Db, organizationId: string, id: string, forUpdate = false): Promise<PayoutRow | undefined> {
  const query = selectPayouts(db, organizationId).where('id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export function updatePayoutRow(db: Db, id: string, changes: Updateable<PayoutsTable>): Promise<PayoutRow> {
  return db.updateTable('payouts').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The key of a program's payout lock, an advisory lock (it names no row). */
const payoutLockKey = (programId: string): string => advisoryLockId(`payouts\n${programId}`).toString();

/**
 * Payout generations of one program run one after another, and while nothing holds the lock
 * shared (shareProgramPayouts); until the caller's SQL transaction ends.
 */
export async function lockProgramPayouts(db: Db, programId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${payoutLockKey(programId)}::bigint)`.execute(db);
}

/**
 * Taken, shared, by what makes a refund entry payable (a refund, a transaction's delete, an entry
 * approved), until the caller's SQL transaction ends: any number of them run at once, never
 * during a generation of the program. A generation, which reads the commissions as they were
 * when its statement began, would otherwise take a reward and miss the refund entry committed
 * while it waited for the reward's lock, while the refund, not seeing the uncommitted payout,
 * would leave its entry out of it. A refund takes it before it locks commissions, as a
 * generation does, so that neither waits for the other while holding what the other needs.
 */
export async function shareProgramPayouts(db: Db, programIds: string[]): Promise<void> {
  const keys = [...new Set(programIds.map(payoutLockKey))].sort();
  if (keys.length === 0) return;
  await sql`select pg_advisory_xact_lock_shared(k) from unnest(${keys}::bigint[]) as k`.execute(db);
}

/** A sum a generation took: what a partner is owed in a currency, with the facts payoutReadiness judges it by. */
export interface PayableSum {
  partner_id: string;
  currency: string;
  amount: number;
  commission_count: number;
  period_start: Date;
  period_end: Date;
  /** Their group's minimum, else the program's. */
  minimum_payout: number;
  payout_method: string;
  payout_details: Record<string, string>;
  partner_deleted: boolean;
}

/**
 * The first half of a generation, in the caller's SQL transaction: the program's approved
 * commissions in no unpaid payout (up to `upTo`, of `partnerIds` when given) are locked, kept in
 * a temporary table that lives until the transaction ends (`payout_candidates`), and summed per
 * partner and currency (refund entries netting), each sum with the partner's payout method,
 * details and minimum as they are now. Which sums become payouts is payoutReadiness's to say,
 * and insertPayouts pays exactly the commissions kept here: none approved meanwhile joins them.
 *
 * A reward taken brings its approved refund entries made after `upTo` (`late_entries`), so that
 * no payout pays a sale without its refunds; they are looked up among the program's commissions
 * made after `upTo`, by the index on (program, created_at), which costs next to nothing when
 * `upTo` is now. Two statements whatever the number of partners; the commissions never leave SQL.
 */
export async function takePayableSums(
  db: Db,
  g: { programId: string; programCurrency: string; programMinimum: number; upTo: Date; partnerIds?: string[] },
): Promise<PayableSum[]> {
  const ofPartners = (alias: string) => (g.partnerIds ? sql`and ${sql.ref(`${alias}.partner_id`)} = any(${g.partnerIds}::text[])` : sql``);
  await sql`
    create temporary table payout_candidates (id text not null, partner_id text not null, currency text not null)
        on commit drop`.execute(db);
  const { rows } = await sql<PayableSum>`
    with taken as (
      select c.id, c.partner_id, coalesce(c.currency, ${g.programCurrency}) as currency, c.amount, c.created_at
        from commissions c
       where c.program_id = ${g.programId} and c.status = 'approved' and c.deleted_at is null
         and c.created_at <= ${g.upTo} ${ofPartners('c')}
         and not exists (select 1 from payout_commissions pc where pc.commission_id = c.id)
         and not ${isHeld('c', { programId: g.programId })}
         for update of c
    ), late_entries as (
      select e.id, e.partner_id, coalesce(e.currency, ${g.programCurrency}) as currency, e.amount, e.created_at
        from commissions e
       where e.program_id = ${g.programId} and e.created_at > ${g.upTo} and e.type = 'refund'
         and e.status = 'approved' and e.deleted_at is null ${ofPartners('e')}
         and exists (select 1 from commissions r
                      where r.id = e.refund_of and r.status = 'approved' and r.deleted_at is null and r.created_at <= ${g.upTo}
                        and not exists (select 1 from payout_commissions rpc where rpc.commission_id = r.id)
                        and not ${isHeld('r', { programId: g.programId })})
         and not exists (select 1 from payout_commissions pc where pc.commission_id = e.id)
         and not ${isHeld('e', { programId: g.programId })}
         for update of e
    ), candidates as materialized (
      select * from taken union all select * from late_entries
    ), kept as (
      insert into payout_candidates (id, partner_id, currency) select id, partner_id, currency from candidates
    ), sums as (
      select partner_id, currency, sum(amount)::int8 as amount, count(*)::int as commission_count,
             min(created_at) as period_start, max(created_at) as period_end
        from candidates
       group by partner_id, currency
    )
    select s.*, coalesce(gr.minimum_payout, ${g.programMinimum})::int8 as minimum_payout,
           p.payout_method, p.payout_details, p.deleted_at is not null as partner_deleted
      from sums s join partners p on p.id = s.partner_id left join groups gr on gr.id = p.group_id
     order by s.partner_id, s.currency`.execute(db);
  return rows;
}

/**
 * The second half of a generation: a pending payout of each of these sums (those payoutReadiness
 * found ready), with the snapshot of payout method and details they were judged by, and the
 * commissions takePayableSums kept for its partner and currency go into it. Returns each payout's
 * id with its partner and currency. One statement whatever the number of payouts.
 */
export async function insertPayouts(
  db: Db,
  g: { organizationId: string; programId: string; now: Date },
  sums: PayableSum[],
): Promise<{ id: string; partner_id: string; currency: string }[]> {
  if (sums.length === 0) return [];
  const ready = JSON.stringify(
    sums.map((s) => ({
      partner_id: s.partner_id,
      currency: s.currency,
      amount: s.amount,
      commission_count: s.commission_count,
      period_start: s.period_start,
      period_end: s.period_end,
      payout_method: s.payout_method,
      payout_details: s.payout_details,
    })),
  );
  const { rows } = await sql<{ id: string; partner_id: string; currency: string }>`
    with ready as (
      select * from jsonb_to_recordset(${ready}::jsonb) as r(
        partner_id text, currency text, amount int8, commission_count int, period_start timestamptz, period_end timestamptz,
        payout_method text, payout_details jsonb)
    ), inserted as (
      insert into payouts (id, organization_id, program_id, partner_id, status, amount, currency, payout_method, payout_details,
                           commission_count, period_start, period_end, created_at, updated_at)
      select svc_random_id('po'), ${g.organizationId}, ${g.programId}, partner_id, 'pending', amount, currency, payout_method, payout_details,
             commission_count, period_start, period_end, ${g.now}, ${g.now}
        from ready
       order by partner_id, currency
      returning id, partner_id, currency
    ), attached as (
      insert into payout_commissions (commission_id, payout_id)
      select k.id, i.id from payout_candidates k join inserted i on i.partner_id = k.partner_id and i.currency = k.currency
    )
    select id, partner_id, currency from inserted order by partner_id, currency`.execute(db);
  return rows;
}

/** Marks paid every commission in the payout, with its id as their `payout_id`, and empties it; returns how many. */
export async function payPayoutCommissions(db: Db, payoutId: string, now: Date): Promise<number> {
  const result = await db
    .updateTable('commissions')
    .set({ status: 'paid', payout_id: payoutId, status_before_void: null, updated_at: now })
    .where('id', 'in', (eb) => eb.selectFrom('payout_commissions').select('commission_id').where('payout_id', '=', payoutId))
    // Checked again on each row it had to wait for: one a refund changed meanwhile is not paid.
    .where('status', '=', 'approved')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  await releasePayoutCommissions(db, [payoutId]);
  return Number(result.numUpdatedRows);
}

/** The payouts' commissions are in no payout any more (paid, failed or canceled): payable again unless paid. */
export async function releasePayoutCommissions(db: Db, payoutIds: string[]): Promise<void> {
  if (payoutIds.length === 0) return;
  await db.deleteFrom('payout_commissions').where('payout_id', 'in', payoutIds).execute();
}

/** The unpaid payout a commission is in, if any. */
export async function findPayoutOfCommission(db: Db, commissionId: string): Promise<string | undefined> {
  const row = await db.selectFrom('payout_commissions').select('payout_id').where('commission_id', '=', commissionId).executeTakeFirst();
  return row?.payout_id;
}

/** Why a payout was canceled by what happened to its commissions (changePendingPayouts). */
export const NOTHING_TO_PAY = 'Nothing left to pay: its commissions were refunded, rejected or deleted';

/**
 * Locks, in id order, the pending payouts `p` that `joins` (joins and conditions on `p`, from
 * `where` on) finds, before they change: a payout's transitions lock it first, so one being
 * marked paid meanwhile is waited for (and then left alone) rather than changed under it.
 */
async function lockPendingPayouts(db: Db, joins: RawBuilder<unknown>): Promise<void> {
  await sql`
    select p.id from payouts p ${joins}
       and p.status = 'pending'
     order by p.id
       for update of p`.execute(db);
}

/**
 * Changes pending payouts by what `moves` (common table expressions ending in one named `moved`:
 * `payout_id, amount, commissions, newest`) says left or joined each: its amount and count change
 * by these (a change, not a new sum: two refunds at once each make their own), its period ends no
 * earlier than its newest commission. A payout left with nothing, or nothing positive, to pay is
 * canceled, saying why (ingest/docs/payouts.md#refunds-and-payouts): no provider pays zero or less,
 * and its commissions, released by the caller, go back to the partner's balance, where their next
 * earnings absorb what they owe. Returns the payouts it canceled.
 */
async function changePendingPayouts(db: Db, moves: RawBuilder<unknown>, now: Date): Promise<string[]> {
  const nothing = sql`(p.commission_count + m.commissions <= 0 or p.amount + m.amount <= 0)`;
  const { rows } = await sql<{ id: string; status: string }>`
    with ${moves}
    update payouts p
       set amount = p.amount + m.amount, commission_count = p.commission_count + m.commissions,
           period_end = greatest(p.period_end, m.newest), updated_at = ${now},
           status = case when ${nothing} then 'canceled' else p.status end,
           reason = case when ${nothing} then ${sql.lit(NOTHING_TO_PAY)} else p.reason end
      from moved m
     where p.id = m.payout_id and p.status = 'pending'
    returning p.id, p.status`.execute(db);
  return rows.filter((r) => r.status === 'canceled').map((r) => r.id);
}

/**
 * After some of these partners' commissions left what a payout pays (a refund or a transaction's
 * delete refunded or rejected them), they leave their pending payouts, which go down by them
 * (changePendingPayouts). Payouts being processed keep their commissions (the refund became a
 * refund entry instead: refund-entries.ts). Returns the payouts it canceled, whose remaining
 * commissions the caller releases.
 */
export async function detachUnpayable(db: Db, partnerIds: string[], now: Date): Promise<string[]> {
  if (partnerIds.length === 0) return [];
  const unpayable = sql`c.partner_id = any(${partnerIds}::text[]) and (c.status <> 'approved' or c.deleted_at is not null)`;
  await lockPendingPayouts(
    db,
    sql`join payout_commissions pc on pc.payout_id = p.id join commissions c on c.id = pc.commission_id where ${unpayable}`,
  );
  return changePendingPayouts(
    db,
    sql`leaving as (
      delete from payout_commissions pc using commissions c, payouts p
       where pc.commission_id = c.id and p.id = pc.payout_id and p.status = 'pending' and ${unpayable}
      returning pc.payout_id, c.amount
    ), moved as (
      select payout_id, -sum(amount)::int8 as amount, -count(*)::int as commissions, null::timestamptz as newest
        from leaving group by payout_id
    )`,
    now,
  );
}

/**
 * These refund entries, the approved ones among them, go into the pending payout their reward is in
 * (ingest/docs/payouts.md#refunds-and-payouts: a payout pays its commissions net of their refunds),
 * in the payout's currency only, which goes down by them (changePendingPayouts). An entry already
 * in a payout stays where it is. Returns the payouts it canceled, whose commissions the caller
 * releases.
 */
export async function joinRewardPayouts(db: Db, entryIds: string[], now: Date): Promise<string[]> {
  if (entryIds.length === 0) return [];
  await lockPendingPayouts(
    db,
    sql`join payout_commissions pc on pc.payout_id = p.id join commissions e on e.refund_of = pc.commission_id
        where e.id = any(${entryIds}::text[])`,
  );
  return changePendingPayouts(
    db,
    sql`joining as (
      insert into payout_commissions (commission_id, payout_id)
      select e.id, p.id
        from commissions e
        join payout_commissions pc on pc.commission_id = e.refund_of
        join payouts p on p.id = pc.payout_id
        join programs pr on pr.id = e.program_id
       where e.id = any(${entryIds}::text[]) and e.type = 'refund' and e.status = 'approved' and e.deleted_at is null
         and p.status = 'pending' and coalesce(e.currency, pr.currency_code) = p.currency
      on conflict (commission_id) do nothing
      returning commission_id, payout_id
    ), moved as (
      select j.payout_id, sum(e.amount)::int8 as amount, count(*)::int as commissions, max(e.created_at) as newest
        from joining j join commissions e on e.id = j.commission_id
       group by j.payout_id
    )`,
    now,
  );
}

export interface UnpaidPayoutOf {
  commission_id: string;
  payout_id: string;
  status: 'pending' | 'processing';
}

/**
 * The unpaid payout (pending or processing) each of these commissions is in, if any, locked for
 * the rest of the SQL transaction, in id order: a refund acts on the status it read (a pending
 * payout it changes, one being processed it leaves alone: its file may be at the bank), and a
 * payout being marked processing meanwhile is waited for and read as it became.
 */
export async function lockUnpaidPayoutsOf(db: Db, commissionIds: string[]): Promise<UnpaidPayoutOf[]> {
  if (commissionIds.length === 0) return [];
  const { rows } = await sql<UnpaidPayoutOf>`
    select pc.commission_id, p.id as payout_id, p.status
      from payout_commissions pc join payouts p on p.id = pc.payout_id
     where pc.commission_id = any(${commissionIds}::text[]) and p.status in ('pending', 'processing')
     order by p.id
       for update of p`.execute(db);
  return rows;
}

/** A payout's commissions: those in it while it is unpaid, those it paid once paid. */
export function selectPayoutCommissions(db: Db, payout: Pick<PayoutRow, 'id' | 'organization_id'>) {
  return db
    .selectFrom('commissions')
    .selectAll()
    .where('organization_id', '=', payout.organization_id)
    .where((eb) =>
      eb.or([
        eb('id', 'in', eb.selectFrom('payout_commissions').select('commission_id').where('payout_id', '=', payout.id)),
        eb('payout_id', '=', payout.id),
      ]),
    );
}

export interface BalanceRow {
  partner_id: string;
  currency: string;
  pending: number;
  payable: number;
  in_payouts: number;
  paid: number;
  on_hold: number;
}

/**
 * What these partners are owed, per partner and currency, from their commissions. What an open
 * risk event holds (pending, or approved in no unpaid payout) is `on_hold`, apart from `pending`
 * and `payable`, as generation leaves it apart.
 */
export async function partnerBalances(db: Db, partnerIds: string[], programCurrency: string): Promise<BalanceRow[]> {
  if (partnerIds.length === 0) return [];
  const { rows } = await sql<BalanceRow>`
    select c.partner_id, coalesce(c.currency, ${programCurrency}) as currency,
           coalesce(sum(c.amount) filter (where c.status = 'pending' and not h.held), 0)::int8 as pending,
           coalesce(sum(c.amount) filter (where c.status = 'approved' and pc.commission_id is null and not h.held), 0)::int8 as payable,
           coalesce(sum(c.amount) filter (where pc.commission_id is not null), 0)::int8 as in_payouts,
           coalesce(sum(c.amount) filter (where c.status = 'paid'), 0)::int8 as paid,
           coalesce(sum(c.amount) filter (where c.status in ('pending', 'approved') and pc.commission_id is null and h.held), 0)::int8 as on_hold
      from commissions c left join payout_commissions pc on pc.commission_id = c.id
           cross join lateral (select ${isHeld('c', { partnerIds })} as held) h
     where c.partner_id = any(${partnerIds}::text[]) and c.deleted_at is null
     group by 1, 2
     order by 1, 2`.execute(db);
  return rows;
}

/**
 * Per partner and currency, the approved commissions in no unpaid payout, created up to `upTo`,
 * that open risk events hold: what a generation leaves (its `on_hold` partners).
 */
export async function heldPayableSums(
  db: Db,
  g: { programId: string; programCurrency: string; upTo: Date; partnerIds?: string[] },
): Promise<{ partner_id: string; currency: string; amount: number }[]> {
  const { rows } = await sql<{ partner_id: string; currency: string; amount: string }>`
    select c.partner_id, coalesce(c.currency, ${g.programCurrency}) as currency, sum(c.amount)::int8 as amount
      from commissions c
     where c.partner_id in (select o.partner_id from risk_events o where o.program_id = ${g.programId} and o.status = 'open')
       and c.program_id = ${g.programId} and c.status = 'approved' and c.deleted_at is null and c.created_at <= ${g.upTo}
       ${g.partnerIds ? sql`and c.partner_id = any(${g.partnerIds}::text[])` : sql``}
       and not exists (select 1 from payout_commissions pc where pc.commission_id = c.id)
       and ${isHeld('c', { programId: g.programId })}
     group by 1, 2
     order by 1, 2`.execute(db);
  return rows.map((r) => ({ ...r, amount: Number(r.amount) }));
}

/**
 * Per unpaid payout of a program (of one partner, if given), the money in it that open risk
 * events hold, with the payout's status and currency; payouts holding none, or a net refund, are
 * left out. Only an event raised after the payout took a commission can hold one there (generation
 * leaves held ones out), so the answer is usually empty. `payout_commissions` holds unpaid
 * payouts' commissions only; the held set is built from the program's (or partner's) open events.
 */
export async function heldSumsInUnpaidPayouts(
  db: Db,
  of: { programId: string; partnerId?: string },
): Promise<{ payout_id: string; status: 'pending' | 'processing'; currency: string; amount: number; commissions: number }[]> {
  const { rows } = await sql<{
    payout_id: string;
    status: 'pending' | 'processing';
    currency: string;
    amount: string;
    commissions: number;
  }>`
    select p.id as payout_id, p.status, p.currency, sum(c.amount)::int8 as amount, count(*)::int as commissions
      from payouts p join payout_commissions pc on pc.payout_id = p.id join commissions c on c.id = pc.commission_id
     where p.program_id = ${of.programId} ${of.partnerId ? sql`and p.partner_id = ${of.partnerId}` : sql``}
       and ${isHeld('c', of.partnerId ? { partnerIds: [of.partnerId] } : { programId: of.programId })}
     group by p.id
    having sum(c.amount) > 0
     order by p.id`.execute(db);
  return rows.map((r) => ({ ...r, amount: Number(r.amount) }));
}

/** A program's live partners with their payout minimum (their group's, else `programMinimum`), for `paginate` (balances). */
export function selectPartnerMinimums(
  db: Db,
  organizationId: string,
  f: { programId: string; programMinimum: number; partnerId?: string },
) {
  let query = db
    .selectFrom('partners as p')
    .leftJoin('groups as g', 'g.id', 'p.group_id')
    .select([
      'p.id',
      'p.payout_method',
      'p.created_at',
      sql<number>`coalesce(g.minimum_payout, ${f.programMinimum})::int8`.as('minimum_payout'),
    ])
    .where('p.organization_id', '=', organizationId)
    .where('p.program_id', '=', f.programId)
    .where('p.deleted_at', 'is', null);
  if (f.partnerId) query = query.where('p.id', '=', f.partnerId);
  return query;
}
