import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { OrganizationsTable } from '../../db/schema.js';

export function insertOrganization(db: Db, organization: Insertable<OrganizationsTable>): Promise<{ id: string; name: string }> {
  return db.insertInto('organizations').values(organization).returning(['id', 'name']).executeTakeFirstOrThrow();
}

export function findOrganization(db: Db, id: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('organizations').select('id').where('id', '=', id).executeTakeFirst();
}

/** Up to `limit` organizations, in no particular order: enough to tell none, one or several. */
export function someOrganizations(db: Db, limit: number): Promise<{ id: string }[]> {
  return db.selectFrom('organizations').select('id').limit(limit).execute();
}
