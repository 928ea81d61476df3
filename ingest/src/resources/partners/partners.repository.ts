import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PartnerRow } from '../../db/schema.js';

/** Live (not deleted) partners of an organization. */
export function selectPartners(db: Db, organizationId: string) {
  return db.selectFrom('partners').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export function findPartner(db: Db, organizationId: string, partnerId: string): Promise<PartnerRow | undefined> {
  return selectPartners(db, organizationId).where('id', '=', partnerId).executeTakeFirst();
}

export async function findPartnerByEmail(db: Db, programId: string, email: string): Promise<PartnerRow | undefined> {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('program_id', '=', programId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
