import { describe, expect, it, vi } from 'vitest';
import { ID_PREFIXES, type IdKind } from '../../src/ids.js';
import {
  clearDefaultGroup,
  findDefaultGroupId,
  findGroup,
  insertGroup,
  selectGroups,
  selectProgramGroups,
  softDeleteGroup,
  updateGroupRow,
} from '../../src/resources/groups/groups.repository.js';
import { createGroup, deleteGroup, listGroups, updateGroup } from '../../src/resources/groups/groups.service.js';
import { sqlOf } from '../support/sql-recorder.js';

// Fixed ids and public keys, so that inserts can be snapshotted.
vi.mock('../../src/ids.js', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../src/ids.js')>();
  return {
    ...ids,
    newId: (kind: IdKind) => `${ID_PREFIXES[kind]}_new`,
    randomBase62: (length: number) => 'x'.repeat(length),
  };
});

const NOW = new Date('2026-01-01T00:00:00Z');

/** Lookups answer with a live group that is not the default (and program prg_1 exists); a list page is empty, its count 0. */
const groupRows = (query: string) => {
  if (query.includes('count(*)')) return [{ n: 0 }];
  if (query.includes(' limit ')) return [];
  if (query.startsWith('select "id" from "groups"')) return [{ id: 'grp_default' }];
  if (query.includes('from "groups"')) return [{ id: 'grp_1', program_id: 'prg_1', is_default: false }];
  if (query.startsWith('select "p".*')) return [{ id: 'prg_1' }];
  return [{}];
};

describe('groups repository SQL', () => {
  it('insertGroup', async () => {
    const group = { organizationId: 'org_1', programId: 'prg_1', name: 'VIP', description: null, isDefault: false, now: NOW };
    expect(await sqlOf((db) => insertGroup(db, group))).toMatchSnapshot();
  });

  it('selectGroups', async () => {
    expect(await sqlOf((db) => selectGroups(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('selectProgramGroups', async () => {
    expect(await sqlOf((db) => selectProgramGroups(db, 'org_1', 'prg_1').execute())).toMatchSnapshot();
  });

  it('findGroup', async () => {
    expect(await sqlOf((db) => findGroup(db, 'org_1', 'grp_1'))).toMatchSnapshot();
  });

  it('findGroup in a program', async () => {
    expect(await sqlOf((db) => findGroup(db, 'org_1', 'grp_1', 'prg_1'))).toMatchSnapshot();
  });

  it('findDefaultGroupId', async () => {
    expect(await sqlOf((db) => findDefaultGroupId(db, 'prg_1'))).toMatchSnapshot();
  });

  it('clearDefaultGroup', async () => {
    expect(await sqlOf((db) => clearDefaultGroup(db, 'prg_1', NOW))).toMatchSnapshot();
  });

  it('updateGroupRow', async () => {
    expect(await sqlOf((db) => updateGroupRow(db, 'grp_1', { name: 'VIP', is_default: true, updated_at: NOW }))).toMatchSnapshot();
  });

  it('softDeleteGroup', async () => {
    expect(await sqlOf((db) => softDeleteGroup(db, 'grp_1', NOW))).toMatchSnapshot();
  });
});

describe('groups service SQL', () => {
  it('listGroups', async () => {
    expect(await sqlOf((db) => listGroups(db, 'org_1', { program_id: 'prg_1', order: 'asc' }), groupRows)).toMatchSnapshot();
  });

  it('createGroup as the default: the program lock comes first', async () => {
    const input = { program_id: 'prg_1', name: 'VIP', default: true };
    expect(await sqlOf((db) => createGroup(db, 'org_1', input), groupRows)).toMatchSnapshot();
  });

  it('updateGroup to the default: the program lock comes first', async () => {
    expect(await sqlOf((db) => updateGroup(db, 'org_1', 'grp_1', { name: 'VIP', default: true }), groupRows)).toMatchSnapshot();
  });

  it('deleteGroup: under the program lock, partners move to the default group', async () => {
    expect(await sqlOf((db) => deleteGroup(db, 'org_1', 'grp_1'), groupRows)).toMatchSnapshot();
  });
});
