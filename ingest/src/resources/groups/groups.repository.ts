import type { Db } from '../../db/database.js';
import type { GroupRow } from '../../db/schema.js';
import { newId, randomBase62 } from '../../ids.js';

export async function insertGroup(
  db: Db,
  g: { organizationId: string; programId: string; name: string; description: string | null; isDefault: boolean; now: Date },
): Promise<GroupRow> {
  return db
    .insertInto('groups')
    .values({
      id: newId('group'),
      organization_id: g.organizationId,
      program_id: g.programId,
      name: g.name,
      description: g.description,
      is_default: g.isDefault,
      public_key: randomBase62(16).toLowerCase(),
      created_at: g.now,
      updated_at: g.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function selectGroups(db: Db, organizationId: string) {
  return db.selectFrom('groups').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

/** A live group of the caller's organization, optionally only when it is in a given program. */
export function findGroup(db: Db, organizationId: string, groupId: string, programId?: string): Promise<GroupRow | undefined> {
  let q = selectGroups(db, organizationId).where('id', '=', groupId);
  if (programId) q = q.where('program_id', '=', programId);
  return q.executeTakeFirst();
}
