import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { LinkRow } from '../../db/schema.js';

/** Live links of an organization (a deleted partner's links are deleted with it). */
export function selectLinks(db: Db, organizationId: string) {
  return db.selectFrom('links').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findLink(db: Db, organizationId: string, linkId: string): Promise<LinkRow | undefined> {
  return selectLinks(db, organizationId).where('id', '=', linkId).executeTakeFirst();
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
