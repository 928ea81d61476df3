import type { Db } from '../../db/database.js';
import type { ApiKeyRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { forgetApiKey } from '../../http/auth.js';
import { badRequest, notFound } from '../../http/errors.js';
import { type ListParams, type Page, paginate } from '../../http/list.js';
import { newId, newSecretKey, sha256 } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import { activeKeysOldestFirst, insertApiKey, lockActiveKeys, markApiKeyRevoked, selectActiveKeys } from './api-keys.repository.js';
import type { ApiKeyObject } from './api-keys.schema.js';
import { toApiKey } from './api-keys.serializer.js';

/**
 * Only the hash is stored: the secret is returned once, here. With the shared store, every
 * process knows the key at once (http/auth.ts); without it (the CLI), within seconds.
 */
export async function createApiKey(
  db: Db,
  organizationId: string,
  name: string | null,
  store?: SharedStore,
): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = newSecretKey();
  const key = await insertApiKey(db, {
    id: newId('apiKey'),
    organization_id: organizationId,
    name,
    secret_hash: sha256(secret),
    last4: secret.slice(-4),
    created_at: new Date(),
  });
  if (store) await forgetApiKey(store, key.secret_hash);
  return { key, secret };
}

/** A page of the organization's active keys. */
export async function listApiKeys(db: Db, organizationId: string, query: ListParams): Promise<Page<ApiKeyObject>> {
  const page = await paginate(selectActiveKeys(db, organizationId), query, { createdAt: 'created_at', id: 'id' });
  return { ...page, rows: page.rows.map(toApiKey) };
}

/** Every active key of the organization, oldest first (the `svc keys list` command). */
export async function allApiKeys(db: Db, organizationId: string): Promise<ApiKeyObject[]> {
  return (await activeKeysOldestFirst(db, organizationId)).map(toApiKey);
}

/** Revokes a key at once, in every process. The organization's last active key cannot be revoked, so nobody locks themselves out. */
export async function revokeApiKey(db: Db, store: SharedStore, organizationId: string, keyId: string): Promise<void> {
  const revoked = await inTransaction(db, async (trx) => {
    const active = await lockActiveKeys(trx, organizationId);
    const key = active.find((k) => k.id === keyId);
    if (!key) throw notFound('API key', keyId);
    if (active.length === 1) throw badRequest('The last active API key cannot be revoked; create another key first', 'id');
    await markApiKeyRevoked(trx, keyId, new Date());
    return key;
  });
  await forgetApiKey(store, revoked.secret_hash);
}
