import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PartnerRow } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';

/** Live (not deleted) partners of an organization. */
export function selectPartners(db: Db, organizationId: string) {
  return db.selectFrom('partners').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

export async function requirePartner(db: Db, organizationId: string, partnerId: string, param?: string): Promise<PartnerRow> {
  const partner = await selectPartners(db, organizationId).where('id', '=', partnerId).executeTakeFirst();
  if (!partner) throw notFound('partner', partnerId, param);
  return partner;
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
