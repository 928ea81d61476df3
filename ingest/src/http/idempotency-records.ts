import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** How long a key's answer is replayed. */
export const KEY_LIFETIME_HOURS = 24;
const expiredBefore = () => new Date(Date.now() - KEY_LIFETIME_HOURS * 3_600_000);

export interface IdempotencyRecord {
  fingerprint: string;
  response_status: number;
  response_body: unknown;
}

export interface KeyRef {
  organizationId: string;
  keyHash: string;
}

/**
 * Takes the key for the current SQL transaction; false when another request holds it. A
 * transaction-scoped advisory lock, so it is let go by the commit or rollback that ends the
 * request, or by PostgreSQL when the connection dies.
 */
export async function lockKey(db: Db, _key: KeyRef, lockId: bigint): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${lockId.toString()}::bigint) as locked`.execute(db);
  return rows[0].locked;
}

export function findRecord(db: Db, key: KeyRef): Promise<IdempotencyRecord | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'response_status', 'response_body'])
    .where('organization_id', '=', key.organizationId)
    .where('key_hash', '=', key.keyHash)
    .where('created_at', '>', expiredBefore())
    .executeTakeFirst();
}

/** Keeps the answer; an expired record of the same key is replaced, a live one is left alone. */
export async function saveRecord(db: Db, key: KeyRef, record: IdempotencyRecord): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      organization_id: key.organizationId,
      key_hash: key.keyHash,
      fingerprint: record.fingerprint,
      response_status: record.response_status,
      response_body: JSON.stringify(record.response_body),
      created_at: new Date(),
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'key_hash'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          response_status: eb.ref('excluded.response_status'),
          response_body: eb.ref('excluded.response_body'),
          created_at: eb.ref('excluded.created_at'),
        }))
        .where('idempotency_keys.created_at', '<=', expiredBefore()),
    )
    .execute();
}

/** Deletes the records that can no longer be replayed; returns how many. */
export async function purgeExpiredRecords(db: Db): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<=', expiredBefore()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
