import { type Kysely, sql } from 'kysely';

/**
 * A program's brand on its partner portal and in its partner e-mails
 * (ingest/docs/partner-portal.md#the-programs-logo-and-accent-color).
 *
 * - `program_branding`: one row per program that has a logo or an accent color, beside the
 *   program (never in its API object, and its bytes never read with the program). The logo's
 *   bytes, content type (PNG, JPEG or WebP only: recognised by their bytes before they are
 *   stored), SHA-256 (the URL it is served at carries it, so a new logo is a new URL), size in
 *   bytes and pixels; the accent color as `#rrggbb` in lower case. The checks keep the logo's
 *   columns all set or all null.
 * - `email_outbox.program_id`: whose brand an e-mail's HTML wears. Such a message is queued with
 *   its HTML in svc's own colors; the mailer, which knows svc's public address (the logo's URL),
 *   renders it again in the program's brand as it sends it and keeps what it sent in
 *   `html_body`. Messages queued before this migration are sent as they were queued; during a
 *   rolling deploy, an older process sends a newer one's messages in svc's colors.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('program_branding')
    .addColumn('program_id', 'text', (c) => c.primaryKey().references('programs.id'))
    .addColumn('logo', 'bytea')
    .addColumn('logo_type', 'text')
    .addColumn('logo_sha256', 'text')
    .addColumn('logo_size', 'integer')
    .addColumn('logo_width', 'integer')
    .addColumn('logo_height', 'integer')
    .addColumn('accent_color', 'text')
    .addColumn('updated_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'program_branding_logo',
      sql`(logo is null and logo_type is null and logo_sha256 is null and logo_size is null and logo_width is null and logo_height is null)
       or (logo is not null and logo_type in ('image/png', 'image/jpeg', 'image/webp') and logo_sha256 is not null
           and logo_size = octet_length(logo) and logo_width > 0 and logo_height > 0)`,
    )
    .addCheckConstraint('program_branding_accent_color', sql`accent_color is null or accent_color ~ '^#[0-9a-f]{6}$'`)
    .execute();

  await db.schema
    .alterTable('email_outbox')
    .addColumn('program_id', 'text', (c) => c.references('programs.id'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_outbox').dropColumn('program_id').execute();
  await db.schema.dropTable('program_branding').ifExists().execute();
}
