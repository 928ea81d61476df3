import { type Kysely, sql } from 'kysely';

/**
 * `Idempotency-Key` records, in SQL: a request's record is written in the same SQL transaction
 * as the changes it made, so a retry finds either both or neither, whatever failed in between.
 * `response_body` is `json`, not `jsonb`, so a replay returns the first answer's keys in their
 * order. `created_at` is indexed for the purge of records older than 24 h.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('response_status', 'int2', (c) => c.notNull())
    .addColumn('response_body', 'json', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['organization_id', 'key_hash'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
