import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;
const now = sql`now()`;

/**
 * The partner portal at `/p/:subdomain` (ingest/docs/partner-portal.md).
 *
 * - A program's subdomain names its portal, so it becomes unique across the service. Programs
 *   that shared one before keep the oldest on it; the others get a suffix from their id.
 * - New program settings: `auto_approve_partners` (a sign-up starts active instead of pending),
 *   `partner_terms` (shown on the sign-up form) and `website_url` (the base of the portal's link
 *   builder).
 * - `partner_sessions`: a partner signed in to the portal, named by the SHA-256 of its token;
 *   `kind` is `cookie` (signed in by a link from an e-mail) or `embed` (an embed token: the
 *   token travels in the iframe's URL, never in a third-party cookie).
 * - `partner_sign_in_links`: one-time sign-in links, by the SHA-256 of their token; `used_at`
 *   makes them single-use.
 * - `commissions.rejection_reason`: why the merchant rejected a commission, shown to the partner.
 *   Only a rejected commission has one (the check `commissions_rejection_reason`); the service
 *   clears it when a commission leaves `rejected`. Commission events need no new trigger: 0009's snapshot is the whole row
 *   (`to_jsonb`), which the commission serializer reads, so the reason is in event data as it is
 *   in the API's answers, and a change of the reason alone is a `commission.updated`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update programs p
       set subdomain = left(p.subdomain, 56) || '-' || left(md5(p.id), 6)
     where exists (select 1 from programs q
                    where q.subdomain = p.subdomain
                      and (q.created_at, q.id) < (p.created_at, p.id))`.execute(db);
  await sql`create unique index programs_subdomain on programs (subdomain)`.execute(db);

  await db.schema
    .alterTable('programs')
    .addColumn('auto_approve_partners', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('programs').addColumn('partner_terms', 'text').execute();
  await db.schema.alterTable('programs').addColumn('website_url', 'text').execute();

  await db.schema
    .createTable('partner_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('partner_sessions_partner').on('partner_sessions').columns(['partner_id']).execute();
  await db.schema.createIndex('partner_sessions_expires').on('partner_sessions').columns(['expires_at']).execute();

  await db.schema
    .createTable('partner_sign_in_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('used_at', ts)
    .execute();
  await db.schema.createIndex('partner_sign_in_links_partner').on('partner_sign_in_links').columns(['partner_id']).execute();
  await db.schema.createIndex('partner_sign_in_links_expires').on('partner_sign_in_links').columns(['expires_at']).execute();

  await db.schema.alterTable('commissions').addColumn('rejection_reason', 'text').execute();
  await db.schema
    .alterTable('commissions')
    .addCheckConstraint('commissions_rejection_reason', sql`rejection_reason is null or status = 'rejected'`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('commissions').dropColumn('rejection_reason').execute(); // its check constraint goes with it
  await db.schema.dropTable('partner_sign_in_links').ifExists().execute();
  await db.schema.dropTable('partner_sessions').ifExists().execute();
  await db.schema.alterTable('programs').dropColumn('website_url').execute();
  await db.schema.alterTable('programs').dropColumn('partner_terms').execute();
  await db.schema.alterTable('programs').dropColumn('auto_approve_partners').execute();
  await sql`drop index if exists programs_subdomain`.execute(db);
}
