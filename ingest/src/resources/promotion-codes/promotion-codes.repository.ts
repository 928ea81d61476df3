import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PromotionCodeRow } from '../../db/schema.js';

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
