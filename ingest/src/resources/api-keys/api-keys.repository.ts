import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ApiKeyRow, ApiKeysTable } from '../../db/schema.js';

/** The organization's active (not revoked) keys. */
export function selectActiveKeys(db: Db, organizationId: string) {
  return db.selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId).where('revoked_at', 'is', null);
}

export function activeKeysOldestFirst(db: Db, organizationId: string): Promise<ApiKeyRow[]> {
  return selectActiveKeys(db, organizationId).orderBy('created_at').orderBy('id').execute();
}

/** The active key with this secret hash, of any organization (authentication). */
export function findActiveKeyByHash(db: Db, secretHash: string): Promise<{ id: string; organization_id: string } | undefined> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'organization_id'])
    .where('secret_hash', '=', secretHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** The organization's active keys, locked until the transaction ends. */
export function lockActiveKeys(db: Db, organizationId: string): Promise<ApiKeyRow[]> {
  return selectActiveKeys(db, organizationId).forUpdate().execute();
}

export function insertApiKey(db: Db, key: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

export async function markApiKeyRevoked(db: Db, keyId: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).execute();
}

/** The secret hashes of every active key, of every organization (the key directory, key-directory.ts). */
export async function listActiveKeyHashes(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('secret_hash').where('revoked_at', 'is', null).execute();
  return rows.map((r) => r.secret_hash);
}
