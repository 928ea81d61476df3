import type { Db } from '../../db/database.js';
import type { ClickRow } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';

export async function requireClick(db: Db, organizationId: string, clickId: string, param?: string): Promise<ClickRow> {
  const click = await db
    .selectFrom('clicks')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', clickId)
    .executeTakeFirst();
  if (!click) throw notFound('click', clickId, param);
  return click;
}
