import type { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { ApiKeyRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { forgetApiKey } from '../../http/auth.js';
import { badRequest, notFound } from '../../http/errors.js';
import { toIso } from '../../http/fields.js';
import { newId, newSecretKey, sha256 } from '../../ids.js';
import type { SharedStore } from '../../store/index.js';
import type { ApiKey } from './api-keys.schema.js';

export function selectActiveKeys(db: Db, organizationId: string) {
  return db.selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId).where('revoked_at', 'is', null);
}

/** Only the hash is stored: the secret is returned once, here. */
export async function createApiKey(db: Db, organizationId: string, name: string | null): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = newSecretKey();
  const key = await db
    .insertInto('api_keys')
    .values({
      id: newId('apiKey'),
      organization_id: organizationId,
      name,
      secret_hash: sha256(secret),
      last4: secret.slice(-4),
      created_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { key, secret };
}

/** Revokes a key at once, in every process. The organization's last active key cannot be revoked, so nobody locks themselves out. */
export async function revokeApiKey(db: Db, store: SharedStore, organizationId: string, keyId: string): Promise<void> {
  const revoked = await inTransaction(db, async (trx) => {
    const active = await selectActiveKeys(trx, organizationId).forUpdate().execute();
    const key = active.find((k) => k.id === keyId);
    if (!key) throw notFound('API key', keyId);
    if (active.length === 1) throw badRequest('The last active API key cannot be revoked; create another key first', 'id');
    await trx.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).execute();
    return key;
  });
  await forgetApiKey(store, revoked.secret_hash);
}

export function toApiKey(k: ApiKeyRow): z.output<typeof ApiKey> {
  return { id: k.id, name: k.name, redacted_key: `sk_…${k.last4}`, organization_id: k.organization_id, created_at: toIso(k.created_at) };
}
