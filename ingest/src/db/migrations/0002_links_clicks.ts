import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;
const now = sql`now()`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('param', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema.createIndex('links_program_created').on('links').columns(['program_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('links_partner').on('links').columns(['partner_id']).execute();
  // A link is found for tracking by (param, value) within its program, the value compared case-insensitively.
  await sql`create unique index links_program_param_value on links (program_id, param, lower(value)) where deleted_at is null`.execute(db);
  // Method 2 clicks without program_id look a link up across the organization's programs.
  await sql`create index links_org_param_value on links (organization_id, param, lower(value)) where deleted_at is null`.execute(db);

  await db.schema
    .createTable('clicks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('link_id', 'text', (c) => c.references('links.id'))
    .addColumn('country', 'text')
    .addColumn('state', 'text')
    .addColumn('device', 'text')
    .addColumn('page', 'text')
    .addColumn('browser', 'text')
    .addColumn('referrer', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex('clicks_program_created').on('clicks').columns(['program_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('clicks_partner_created').on('clicks').columns(['partner_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('clicks').execute();
  await db.schema.dropTable('links').execute();
}
