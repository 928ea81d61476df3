import { type Kysely, sql } from 'kysely';

/**
 * Webhook deliveries are leased apart from when they are due (ingest/docs/webhooks.md#delivery).
 *
 * - `webhook_deliveries.leased_until`: the end of the lease of the process that claimed the
 *   delivery, which that process renews while it works on it; null when no process holds it.
 *   Until now the lease's end was written over `next_attempt_at`, so the deliveries of a process
 *   that died became due only at their lease's end and waited behind everything due before it;
 *   now they keep their place (the time they were due) and go out first once the lease ends.
 * - Rows claimed before this migration keep their lease in `next_attempt_at`: they are due when
 *   it ends, as before. During a rolling deploy, a process of the earlier version does not see
 *   these leases and may make an attempt a newer process is making (a receiver sees it twice;
 *   the `webhook-id` tells).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('leased_until', sql`timestamptz(3)`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').dropColumn('leased_until').execute();
}
