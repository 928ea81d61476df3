import { type Kysely, sql } from 'kysely';

/**
 * The click flooding rule's check reads, for each browser that clicked in its window, that
 * browser's own clicks on that partner's links of the hour before (ingest/docs/risk.md).
 *
 * - `clicks_partner_visitor`: a partial index of the clicks made through the script (those with
 *   a fingerprint) by partner, fingerprint and time, so each browser's hour is one index range and
 *   a check costs what its window's clicks cost, not a re-read of the program's whole hour on
 *   each run. On an installation with many clicks, build it beforehand without blocking writes
 *   (ingest/docs/upgrades.md#indexes-on-large-tables).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists clicks_partner_visitor on clicks (partner_id, visitor_hash, created_at)
              where visitor_hash is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists clicks_partner_visitor`.execute(db);
}
