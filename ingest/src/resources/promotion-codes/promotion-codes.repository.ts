import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PromotionCodeRow, PromotionCodesTable } from '../../db/schema.js';

export function selectPromotionCodes(db: Db, organizationId: string) {
  return db.selectFrom('promotion_codes').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findPromotionCode(db: Db, organizationId: string, id: string): Promise<PromotionCodeRow | undefined> {
  return selectPromotionCodes(db, organizationId).where('id', '=', id).executeTakeFirst();
}

/** Live codes with this text (case-insensitive), in one program or across the organization's programs. */
export function findPromotionCodes(db: Db, q: { organizationId: string; programId?: string; code: string }): Promise<PromotionCodeRow[]> {
  let query = selectPromotionCodes(db, q.organizationId).where(sql`lower(code)`, '=', q.code.toLowerCase());
  if (q.programId) query = query.where('program_id', '=', q.programId);
  return query.limit(10).execute();
}

export interface PromotionCodeListFilters {
  programId: string;
  partnerId?: string;
}

/** The list of a program's live codes, narrowed by the list's filters (paginated by the caller). */
export function selectPromotionCodeList(db: Db, organizationId: string, filters: PromotionCodeListFilters) {
  let query = selectPromotionCodes(db, organizationId).where('program_id', '=', filters.programId);
  if (filters.partnerId) query = query.where('partner_id', '=', filters.partnerId);
  return query;
}

export function insertPromotionCode(db: Db, code: Insertable<PromotionCodesTable>): Promise<PromotionCodeRow> {
  return db.insertInto('promotion_codes').values(code).returningAll().executeTakeFirstOrThrow();
}

/** Changes a code; undefined when there is no such code. */
export function updatePromotionCodeById(
  db: Db,
  id: string,
  changes: { code?: string; type?: string; value?: number; active?: boolean },
): Promise<PromotionCodeRow | undefined> {
  return db
    .updateTable('promotion_codes')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function softDeletePromotionCode(db: Db, id: string): Promise<void> {
  const now = new Date();
  await db.updateTable('promotion_codes').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
}
