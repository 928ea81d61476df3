import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { GroupRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { badRequest, notFound } from '../../http/errors.js';
import { requireProgram } from '../programs/programs.service.js';
import { findGroup, insertGroup } from './groups.repository.js';
import type { GroupCreate, GroupUpdate } from './groups.schema.js';

/** A live group of the caller's organization, or 404; with `programId`, only a group of that program. */
export async function requireGroup(
  db: Db,
  organizationId: string,
  groupId: string,
  opts: { programId?: string; param?: string } = {},
): Promise<GroupRow> {
  const found = await findGroup(db, organizationId, groupId, opts.programId);
  if (!found) throw notFound('group', groupId, opts.param);
  return found;
}

/** Serialises changes of a program's default group, so two swaps cannot race. */
async function lockProgram(trx: Db, programId: string): Promise<void> {
  await trx.selectFrom('programs').select('id').where('id', '=', programId).forUpdate().execute();
}

async function clearDefault(trx: Db, programId: string, now: Date): Promise<void> {
  await trx
    .updateTable('groups')
    .set({ is_default: false, updated_at: now })
    .where('program_id', '=', programId)
    .where('is_default', '=', true)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function createGroup(db: Db, organizationId: string, input: z.output<typeof GroupCreate>): Promise<GroupRow> {
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  return inTransaction(db, async (trx) => {
    const now = new Date();
    if (input.default) {
      await lockProgram(trx, program.id);
      await clearDefault(trx, program.id, now);
    }
    return insertGroup(trx, {
      organizationId,
      programId: program.id,
      name: input.name,
      description: input.description ?? null,
      isDefault: input.default ?? false,
      now,
    });
  });
}

export async function updateGroup(db: Db, organizationId: string, groupId: string, input: z.output<typeof GroupUpdate>): Promise<GroupRow> {
  const group = await requireGroup(db, organizationId, groupId);
  return inTransaction(db, async (trx) => {
    const now = new Date();
    // Decided under the program lock: `group.is_default` was read before it and may be stale.
    if (input.default) {
      await lockProgram(trx, group.program_id);
      await clearDefault(trx, group.program_id, now);
    }
    const updated = await trx
      .updateTable('groups')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.default ? { is_default: true } : {}),
        updated_at: now,
      })
      .where('id', '=', group.id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    // Deleted meanwhile: roll back (the default must not move to a deleted group).
    if (!updated) throw notFound('group', groupId);
    return updated;
  });
}

/** Deleting a group moves its partners to the program's default group; the default group itself cannot be deleted. */
export async function deleteGroup(db: Db, organizationId: string, groupId: string): Promise<void> {
  const group = await requireGroup(db, organizationId, groupId);
  if (group.is_default) {
    throw badRequest('The default group cannot be deleted; make another group the default first', 'id');
  }
  await inTransaction(db, async (trx) => {
    await lockProgram(trx, group.program_id);
    // Checked again under the lock: a concurrent update may have just made this group the default.
    const current = await requireGroup(trx, organizationId, groupId);
    if (current.is_default) {
      throw badRequest('The default group cannot be deleted; make another group the default first', 'id');
    }
    const now = new Date();
    const fallback = await trx
      .selectFrom('groups')
      .select('id')
      .where('program_id', '=', group.program_id)
      .where('is_default', '=', true)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    await trx.updateTable('partners').set({ group_id: fallback.id, updated_at: now }).where('group_id', '=', group.id).execute();
    await trx.updateTable('groups').set({ deleted_at: now, updated_at: now }).where('id', '=', group.id).execute();
  });
}
