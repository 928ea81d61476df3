import { describe, expect, it } from 'vitest';
import {
  deleteExpiredSessions,
  deleteSession,
  extendSession,
  findLiveSession,
  findUserByEmail,
  insertSession,
  insertUser,
  selectUsers,
  someUsers,
} from '../../src/resources/users/users.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('users repository SQL', () => {
  it('insertUser', async () => {
    const user = {
      id: 'usr_1',
      organization_id: 'org_1',
      email: 'Owner@Example.com',
      name: null,
      role: 'owner' as const,
      password_hash: 'scrypt$…',
      created_at: NOW,
      updated_at: NOW,
    };
    expect(await sqlOf((db) => insertUser(db, user))).toMatchSnapshot();
  });

  it('findUserByEmail: case-insensitive, live users only', async () => {
    expect(await sqlOf((db) => findUserByEmail(db, 'Owner@Example.com'))).toMatchSnapshot();
  });

  it('selectUsers and someUsers', async () => {
    expect(await sqlOf((db) => selectUsers(db, 'org_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => someUsers(db, 1))).toMatchSnapshot();
  });

  it('sessions: insert, the live session with its user, extend, delete, purge', async () => {
    expect(
      await sqlOf((db) => insertSession(db, { id: 'hash_1', user_id: 'usr_1', csrf_token: 'csrf', created_at: NOW, expires_at: NOW })),
    ).toMatchSnapshot();
    expect(await sqlOf((db) => findLiveSession(db, 'hash_1', NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => extendSession(db, 'hash_1', NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => deleteSession(db, 'hash_1'))).toMatchSnapshot();
    expect(await sqlOf((db) => deleteExpiredSessions(db, NOW))).toMatchSnapshot();
  });
});
