import { type Kysely, sql } from 'kysely';

/**
 * The dashboard counts the partners awaiting review in its navigation, on every page
 * (ingest/docs/dashboard.md#pending-partners-in-the-navigation).
 *
 * - `partners_awaiting_review`: a partial index of the live, onboarded, pending partners by
 *   organization and program. The count reads these entries alone (an index-only scan), however
 *   many active partners a program has; pending partners are few, so the index stays small.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index partners_awaiting_review on partners (organization_id, program_id)
              where status = 'pending' and completed_onboarding = true and deleted_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists partners_awaiting_review`.execute(db);
}
