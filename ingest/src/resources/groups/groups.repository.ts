import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { GroupRow, GroupsTable } from '../../db/schema.js';
import { newId, randomBase62 } from '../../ids.js';

export async function insertGroup(
  db: Db,
  g: {
    organizationId: string;
    programId: string;
    name: string;
    description: string | null;
    isDefault: boolean;
    minimumPayout?: number | null;
    now: Date;
  },
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
      minimum_payout: g.minimumPayout ?? null,
      created_at: g.now,
      updated_at: g.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Live (not deleted) groups of an organization. */
export function selectGroups(db: Db, organizationId: string) {
  return db.selectFrom('groups').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

/** The list query of a program's live groups. */
export function selectProgramGroups(db: Db, organizationId: string, programId: string) {
  return selectGroups(db, organizationId).where('program_id', '=', programId);
}

/** A live group of the caller's organization, optionally only when it is in a given program. */
export function findGroup(db: Db, organizationId: string, groupId: string, programId?: string): Promise<GroupRow | undefined> {
  let q = selectGroups(db, organizationId).where('id', '=', groupId);
  if (programId) q = q.where('program_id', '=', programId);
  return q.executeTakeFirst();
}

/** The id of the program's live default group. */
export async function findDefaultGroupId(db: Db, programId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('groups')
    .select('id')
    .where('program_id', '=', programId)
    .where('is_default', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.id;
}

/** The program's live default group stops being the default. */
export async function clearDefaultGroup(db: Db, programId: string, now: Date): Promise<void> {
  await db
    .updateTable('groups')
    .set({ is_default: false, updated_at: now })
    .where('program_id', '=', programId)
    .where('is_default', '=', true)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Changes a live group; undefined when it is deleted or missing. */
export function updateGroupRow(db: Db, groupId: string, changes: Updateable<GroupsTable>): Promise<GroupRow | undefined> {
  return db.updateTable('groups').set(changes).where('id', '=', groupId).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

export async function softDeleteGroup(db: Db, groupId: string, now: Date): Promise<void> {
  await db.updateTable('groups').set({ deleted_at: now, updated_at: now }).where('id', '=', groupId).execute();
}
