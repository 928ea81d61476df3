import type { Db } from '../../db/database.js';
import type { ClickRow } from '../../db/schema.js';

export function findClick(db: Db, organizationId: string, clickId: string): Promise<ClickRow | undefined> {
  return db.selectFrom('clicks').selectAll().where('organization_id', '=', organizationId).where('id', '=', clickId).executeTakeFirst();
}
