import type { Db } from '../../db/database.js';
import { newId } from '../../ids.js';

export async function createOrganization(db: Db, name: string): Promise<{ id: string; name: string }> {
  const now = new Date();
  return db
    .insertInto('organizations')
    .values({ id: newId('organization'), name, created_at: now, updated_at: now })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
}
