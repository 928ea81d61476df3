import { describe, expect, it } from 'vitest';
import {
  activeKeysOldestFirst,
  findActiveKeyByHash,
  insertApiKey,
  lockActiveKeys,
  markApiKeyRevoked,
  selectActiveKeys,
} from '../../src/resources/api-keys/api-keys.repository.js';
import { listApiKeys, revokeApiKey } from '../../src/resources/api-keys/api-keys.service.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { sqlOf } from '../support/sql-recorder.js';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('api-keys repository SQL', () => {
  it('selectActiveKeys', async () => {
    expect(await sqlOf((db) => selectActiveKeys(db, 'org_1').execute())).toMatchSnapshot();
  });

  it('activeKeysOldestFirst', async () => {
    expect(await sqlOf((db) => activeKeysOldestFirst(db, 'org_1'))).toMatchSnapshot();
  });

  it('findActiveKeyByHash', async () => {
    expect(await sqlOf((db) => findActiveKeyByHash(db, 'hash_1'))).toMatchSnapshot();
  });

  it('lockActiveKeys', async () => {
    expect(await sqlOf((db) => lockActiveKeys(db, 'org_1'))).toMatchSnapshot();
  });

  it('insertApiKey', async () => {
    const key = { id: 'key_1', organization_id: 'org_1', name: 'CI', secret_hash: 'hash', last4: 'a1B2', created_at: NOW };
    expect(await sqlOf((db) => insertApiKey(db, key))).toMatchSnapshot();
  });

  it('markApiKeyRevoked', async () => {
    expect(await sqlOf((db) => markApiKeyRevoked(db, 'key_1', NOW))).toMatchSnapshot();
  });
});

describe('api-keys service SQL', () => {
  it('listApiKeys', async () => {
    const rows = (query: string) => (query.includes('count(*)') ? [{ n: 0 }] : []);
    expect(await sqlOf((db) => listApiKeys(db, 'org_1', { order: 'asc' }), rows)).toMatchSnapshot();
  });

  it('revokeApiKey: the active keys are locked, then the key is revoked', async () => {
    const store = createMemoryStore();
    const active = [
      { id: 'key_1', secret_hash: 'hash_1' },
      { id: 'key_2', secret_hash: 'hash_2' },
    ];
    const rows = (query: string) => (query.startsWith('select') ? active : []);
    expect(await sqlOf((db) => revokeApiKey(db, store, 'org_1', 'key_1'), rows)).toMatchSnapshot();
    await store.close();
  });
});
