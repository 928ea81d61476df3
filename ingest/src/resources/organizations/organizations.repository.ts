import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { OrganizationsTable } from '../../db/schema.js';

export function insertOrganization(db: Db, organization: Insertable<OrganizationsTable>): Promise<{ id: string; name: string }> {
  return db.insertInto('organizations').values(organization).returning(['id', 'name']).executeTakeFirstOrThrow();
}
