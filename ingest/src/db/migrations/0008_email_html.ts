import type { Kysely } from 'kysely';

/**
 * The partner e-mails (ingest/docs/partner-emails.md) are sent as plain text with a simple HTML
 * alternative; messages queued before this migration have text only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('email_outbox').addColumn('html_body', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('email_outbox').dropColumn('html_body').execute();
}
