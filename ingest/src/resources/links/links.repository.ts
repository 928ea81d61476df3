import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { LinkRow, LinksTable } from '../../db/schema.js';

/** Live links of an organization (a deleted partner's links are deleted with it). */
export function selectLinks(db: Db, organizationId: string) {
  return db.selectFrom('links').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findLink(db: Db, organizationId: string, linkId: string): Promise<LinkRow | undefined> {
  return selectLinks(db, organizationId).where('id', '=', linkId).executeTakeFirst();
}

export interface LinkListFilters {
  programId: string;
  partnerId?: string;
  param?: string;
  /** Compared case-insensitively. */
  value?: string;
}

/** The list of a program's live links, narrowed by the list's filters (paginated by the caller). */
export function selectLinkList(db: Db, organizationId: string, filters: LinkListFilters) {
  let query = selectLinks(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.partnerId) query = query.where('partner_id', '=', filters.partnerId);
  if (filters.param) query = query.where('param', '=', filters.param);
  if (filters.value) query = query.where(sql`lower(value)`, '=', filters.value.toLowerCase());
  return query;
}

/** Links answering (param, value) in one program, or across the organization's programs. */
export function findLinksByParamValue(db: Db, q: { organizationId: string; programId?: string; param: string; value: string }) {
  let query = db
    .selectFrom('links as l')
    .innerJoin('partners as p', 'p.id', 'l.partner_id')
    .select(['l.id', 'l.partner_id', 'l.program_id'])
    .where('l.organization_id', '=', q.organizationId)
    .where('l.param', '=', q.param)
    .where(sql`lower(l.value)`, '=', q.value.toLowerCase())
    .where('l.deleted_at', 'is', null)
    .where('p.deleted_at', 'is', null);
  if (q.programId) query = query.where('l.program_id', '=', q.programId);
  return query.limit(10).execute();
}

export function insertLink(db: Db, link: Insertable<LinksTable>): Promise<LinkRow> {
  return db.insertInto('links').values(link).returningAll().executeTakeFirstOrThrow();
}

/** Changes a link's param and value; undefined when there is no such link. */
export function updateLinkById(db: Db, linkId: string, changes: { param?: string; value?: string }): Promise<LinkRow | undefined> {
  return db
    .updateTable('links')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', linkId)
    .returningAll()
    .executeTakeFirst();
}

export async function softDeleteLink(db: Db, linkId: string): Promise<void> {
  const now = new Date();
  await db.updateTable('links').set({ deleted_at: now, updated_at: now }).where('id', '=', linkId).execute();
}

/** Deletes a partner's live links; returns them (for cache invalidation after commit). */
export function softDeletePartnerLinks(db: Db, partnerId: string, now: Date): Promise<LinkRow[]> {
  return db
    .updateTable('links')
    .set({ deleted_at: now, updated_at: now })
    .where('partner_id', '=', partnerId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .execute();
}
