import { sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { NewPartner, PartnerRow, PartnersTable } from '../../db/schema.js';
import { likePattern } from '../customers/customers.repository.js';
import type { RankingStat } from './partners.schema.js';

/** Live (not deleted) partners of an organization. */
export function selectPartners(db: Db, organizationId: string) {
  return db.selectFrom('partners').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export interface PartnerListFilters {
  programId: string;
  groupId?: string;
  status?: string;
  email?: string;
  search?: string;
}

/**
 * The list query of a program's live partners with its filters. Partners still onboarding are
 * left out, except from an `email` lookup (compared case-insensitively).
 */
export function selectPartnerList(db: Db, organizationId: string, filters: PartnerListFilters) {
  let q = selectPartners(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.groupId) q = q.where('group_id', '=', filters.groupId);
  if (filters.status) q = q.where('status', '=', filters.status);
  if (filters.search) {
    const pattern = likePattern(filters.search);
    q = q.where(sql<boolean>`((first_name || ' ' || last_name) ilike ${pattern} escape '\\' or email ilike ${pattern} escape '\\')`);
  }
  return filters.email !== undefined
    ? q.where(sql`lower(email)`, '=', filters.email.toLowerCase())
    : q.where('completed_onboarding', '=', true);
}

/**
 * A page of the list query ranked by one of the partners' counters, highest first (ties by id), by
 * offset: the dashboard's sortable partner list. Each partner's counter rows are summed by a
 * subquery on the counters' primary key.
 */
export function selectRankedPartners(
  db: Db,
  organizationId: string,
  filters: PartnerListFilters,
  stat: RankingStat,
  limit: number,
  offset: number,
) {
  return selectPartnerList(db, organizationId, filters)
    .select((eb) =>
      eb
        .selectFrom('partner_stats as s')
        .select(sql<number>`coalesce(sum(${sql.ref(`s.${stat}`)}), 0)`.as('v'))
        .whereRef('s.partner_id', '=', 'partners.id')
        .as('rank'),
    )
    .orderBy('rank', 'desc')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countPartnerList(db: Db, organizationId: string, filters: PartnerListFilters): Promise<number> {
  const row = await selectPartnerList(db, organizationId, filters)
    .clearSelect()
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

export function findPartner(db: Db, organizationId: string, partnerId: string): Promise<PartnerRow | undefined> {
  return selectPartners(db, organizationId).where('id', '=', partnerId).executeTakeFirst();
}

/**
 * The live partner, locked until the transaction ends: customers made for one partner then
 * count each other exactly (the first-customer e-mail goes out once). Undefined when gone.
 */
export function lockPartner(db: Db, partnerId: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', partnerId).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
}

/** The program's live partner with this e-mail, compared case-insensitively. */
export async function findPartnerByEmail(db: Db, programId: string, email: string): Promise<PartnerRow | undefined> {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('program_id', '=', programId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function insertPartner(db: Db, partner: NewPartner): Promise<PartnerRow> {
  return db.insertInto('partners').values(partner).returningAll().executeTakeFirstOrThrow();
}

/** Changes a partner; undefined when there is no such row. */
export function updatePartnerRow(db: Db, partnerId: string, changes: Updateable<PartnersTable>): Promise<PartnerRow | undefined> {
  return db.updateTable('partners').set(changes).where('id', '=', partnerId).returningAll().executeTakeFirst();
}

export async function softDeletePartner(db: Db, partnerId: string, now: Date): Promise<void> {
  await db.updateTable('partners').set({ deleted_at: now, updated_at: now }).where('id', '=', partnerId).execute();
}

/** Every partner of a group moves to another group (of the same program). */
export async function movePartnersToGroup(db: Db, fromGroupId: string, toGroupId: string, now: Date): Promise<void> {
  await db.updateTable('partners').set({ group_id: toGroupId, updated_at: now }).where('group_id', '=', fromGroupId).execute();
}

/** The trigger-kept counters of these partners (a few shard rows each), summed per partner. */
export function selectPartnerStats(db: Db, partnerIds: string[]) {
  return db
    .selectFrom('partner_stats')
    .select([
      'partner_id',
      sql<number>`sum(clicks)::int8`.as('total_clicks'),
      sql<number>`sum(customers)::int8`.as('total_customers'),
      sql<number>`sum(revenue)::int8`.as('total_revenue'),
      sql<number>`sum(commission)::int8`.as('total_commission'),
    ])
    .where('partner_id', 'in', partnerIds)
    .groupBy('partner_id')
    .execute();
}

/** Which of these ids are live partners of the program. */
export async function findProgramPartnerIds(db: Db, organizationId: string, programId: string, ids: string[]): Promise<Set<string>> {
  const rows = await selectPartners(db, organizationId).where('program_id', '=', programId).where('id', 'in', ids).select('id').execute();
  return new Set(rows.map((p) => p.id));
}

/**
 * The program's live partners with these ids, locked until the transaction ends, in id order: two
 * status changes sharing partners wait for each other instead of deadlocking, and the second reads
 * what the first committed.
 */
export function lockProgramPartners(db: Db, organizationId: string, programId: string, ids: string[]): Promise<PartnerRow[]> {
  return selectPartners(db, organizationId).where('program_id', '=', programId).where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

/** The same change to these partners in one statement (the events trigger writes one event per partner). */
export function updatePartnerRows(db: Db, partnerIds: string[], changes: Updateable<PartnersTable>): Promise<PartnerRow[]> {
  return db.updateTable('partners').set(changes).where('id', 'in', partnerIds).returningAll().execute();
}

/**
 * How many partners await review in each program of the organization: pending, past onboarding
 * (as the list with `status=pending` shows them) and live. Literals, not parameters, so that the
 * planner proves the partial index `partners_awaiting_review` (migration 0015) whatever the
 * driver; programs without any are absent.
 */
export function countPartnersAwaitingReview(db: Db, organizationId: string) {
  return db
    .selectFrom('partners')
    .select(['program_id', sql<number>`count(*)::int`.as('n')])
    .where('organization_id', '=', organizationId)
    .where('status', '=', sql.lit('pending'))
    .where('completed_onboarding', '=', sql.lit(true))
    .where('deleted_at', 'is', null)
    .groupBy('program_id');
}
