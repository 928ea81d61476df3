import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { GroupRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { movePartnersToGroup } from '../partners/partners.repository.js';
import { lockProgram } from '../programs/programs.repository.js';
import { requireProgram } from '../programs/programs.service.js';
import {
  clearDefaultGroup,
  findDefaultGroupId,
  findGroup,
  insertGroup,
  selectProgramGroups,
  softDeleteGroup,
  updateGroupRow,
} from './groups.repository.js';
import type { GroupCreate, GroupListQuery, GroupObject, GroupUpdate } from './groups.schema.js';
import { toGroup } from './groups.serializer.js';

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

/** A page of the groups of one of the caller's programs. */
export async function listGroups(db: Db, organizationId: string, query: z.output<typeof GroupListQuery>): Promise<Page<GroupObject>> {
  const program = await requireProgram(db, organizationId, query.program_id, 'program_id');
  const page = await paginate(selectProgramGroups(db, organizationId, program.id), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: page.rows.map(toGroup) };
}

export async function createGroup(db: Db, organizationId: string, input: z.output<typeof GroupCreate>): Promise<GroupRow> {
  const program = await requireProgram(db, organizationId, input.program_id, 'program_id');
  return inTransaction(db, async (trx) => {
    const now = new Date();
    if (input.default) {
      // Changes of the default group are serialised by the program's lock, so two swaps cannot race.
      await lockProgram(trx, program.id);
      await clearDefaultGroup(trx, program.id, now);
    }
    return insertGroup(trx, {
      organizationId,
      programId: program.id,
      name: input.name,
      description: input.description ?? null,
      isDefault: input.default ?? false,
      minimumPayout: input.minimum_payout,
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
      await clearDefaultGroup(trx, group.program_id, now);
    }
    const updated = await updateGroupRow(trx, group.id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.default ? { is_default: true } : {}),
      ...(input.minimum_payout !== undefined ? { minimum_payout: input.minimum_payout } : {}),
      updated_at: now,
    });
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
    // A program always has exactly one live default group (groups.schema.ts, GroupUpdate).
    const fallbackId = await findDefaultGroupId(trx, group.program_id);
    if (!fallbackId) throw new Error(`program ${group.program_id} has no default group`);
    await movePartnersToGroup(trx, group.id, fallbackId, now);
    await softDeleteGroup(trx, group.id, now);
  });
}
