import type { Db } from '../../db/database.js';
import { newId } from '../../ids.js';
import { insertOrganization } from './organizations.repository.js';

export async function createOrganization(db: Db, name: string): Promise<{ id: string; name: string }> {
  const now = new Date();
  return insertOrganization(db, { id: newId('organization'), name, created_at: now, updated_at: now });
}
