import { type Kysely, sql } from 'kysely';

// Timestamps are kept at millisecond precision so that they round-trip exactly through
// JavaScript dates and through pagination cursors.
const ts = sql`timestamptz(3)`;
const now = sql`now()`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text')
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('revoked_at', ts)
    .execute();
  await db.schema.createIndex('api_keys_org_created').on('api_keys').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('programs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('subdomain', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('cookie_duration', 'integer', (c) => c.notNull())
    .addColumn('url_params', 'jsonb', (c) => c.notNull())
    .addColumn('payout_term', 'text', (c) => c.notNull())
    .addColumn('payout_methods', 'jsonb', (c) => c.notNull())
    .addColumn('attribution_model', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex('programs_org_created').on('programs').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('public_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema.createIndex('groups_program_created').on('groups').columns(['program_id', 'created_at', 'id']).execute();
  // Exactly one live default group per program, enforced by the database.
  await sql`create unique index groups_one_default on groups (program_id) where is_default and deleted_at is null`.execute(db);

  await db.schema
    .createTable('flows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('group_id', 'text', (c) => c.references('groups.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('conditions', 'jsonb', (c) => c.notNull())
    .addColumn('reward', 'jsonb', (c) => c.notNull())
    .addColumn('approval', 'jsonb', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema.createIndex('flows_program_created').on('flows').columns(['program_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('partners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('company_name', 'text')
    .addColumn('country_code', 'text')
    .addColumn('payout_method', 'text', (c) => c.notNull())
    .addColumn('payout_details', 'jsonb', (c) => c.notNull())
    .addColumn('completed_onboarding', 'boolean', (c) => c.notNull())
    .addColumn('rejection_note', 'text')
    .addColumn('internal_note', 'text')
    .addColumn('suspension_reason', 'text')
    .addColumn('first_customer_email_active', 'boolean', (c) => c.notNull())
    .addColumn('new_customer_email_active', 'boolean', (c) => c.notNull())
    .addColumn('payout_paid_email_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema.createIndex('partners_program_created').on('partners').columns(['program_id', 'created_at', 'id']).execute();
  // One live partner per e-mail in a program, compared case-insensitively; a deleted partner frees it.
  await sql`create unique index partners_program_email on partners (program_id, lower(email)) where deleted_at is null`.execute(db);

  await db.schema
    .createTable('email_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('sent_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await sql`create index email_outbox_due on email_outbox (next_attempt_at) where sent_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['email_outbox', 'partners', 'flows', 'groups', 'programs', 'api_keys', 'organizations']) {
    await db.schema.dropTable(table).execute();
  }
}
