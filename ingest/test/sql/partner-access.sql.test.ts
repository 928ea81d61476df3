import { describe, expect, it } from 'vitest';
import {
  deleteExpiredPartnerAccess,
  deletePartnerSession,
  expirePartnerAccess,
  extendPartnerSession,
  findLivePartnerSession,
  findUsableSignInLink,
  insertPartnerSession,
  insertSignInLink,
  useSignInLink,
} from '../../src/resources/partner-access/partner-access.repository.js';
import { findProgramBySubdomain, selectSubdomainsLike } from '../../src/resources/programs/programs.repository.js';
import { sqlOf } from '../support/sql-recorder.js';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('partner portal access SQL (ingest/docs/partner-portal.md)', () => {
  it('sessions: insert, the live session with its partner, extend, delete', async () => {
    expect(
      await sqlOf((db) =>
        insertPartnerSession(db, {
          id: 'hash_1',
          partner_id: 'part_1',
          kind: 'cookie',
          csrf_token: 'csrf',
          created_at: NOW,
          expires_at: NOW,
        }),
      ),
    ).toMatchSnapshot();
    expect(await sqlOf((db) => findLivePartnerSession(db, 'hash_1', NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => extendPartnerSession(db, 'hash_1', NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => deletePartnerSession(db, 'hash_1'))).toMatchSnapshot();
  });

  it('sign-in links: insert, find usable with the partner program, use once in one statement', async () => {
    expect(
      await sqlOf((db) => insertSignInLink(db, { id: 'hash_2', partner_id: 'part_1', created_at: NOW, expires_at: NOW })),
    ).toMatchSnapshot();
    expect(await sqlOf((db) => findUsableSignInLink(db, 'hash_2', NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => useSignInLink(db, 'hash_2', NOW))).toMatchSnapshot();
  });

  it('purge and the test hook', async () => {
    expect(await sqlOf((db) => deleteExpiredPartnerAccess(db, NOW))).toMatchSnapshot();
    expect(await sqlOf((db) => expirePartnerAccess(db, 'part_1'))).toMatchSnapshot();
  });

  it('programs by subdomain', async () => {
    expect(await sqlOf((db) => findProgramBySubdomain(db, 'acme'))).toMatchSnapshot();
    expect(await sqlOf((db) => selectSubdomainsLike(db, 'acme'))).toMatchSnapshot();
  });
});
