import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;
const now = sql`now()`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('promotion_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'integer', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.references('partners.id'))
    .addColumn('group_id', 'text', (c) => c.references('groups.id'))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .addCheckConstraint('promotion_codes_one_owner', sql`partner_id is null or group_id is null`)
    .execute();
  await db.schema
    .createIndex('promotion_codes_program_created')
    .on('promotion_codes')
    .columns(['program_id', 'created_at', 'id'])
    .execute();
  await sql`create unique index promotion_codes_program_code on promotion_codes (program_id, lower(code)) where deleted_at is null`.execute(
    db,
  );
  await sql`create index promotion_codes_org_code on promotion_codes (organization_id, lower(code)) where deleted_at is null`.execute(db);

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('subscription_id', 'text')
    .addColumn('click_id', 'text', (c) => c.references('clicks.id'))
    .addColumn('promotion_code_id', 'text', (c) => c.references('promotion_codes.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('plan', 'text')
    .addColumn('lead_at', ts, (c) => c.notNull())
    .addColumn('active_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(now))
    .addColumn('deleted_at', ts)
    .execute();
  await db.schema.createIndex('customers_program_created').on('customers').columns(['program_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('customers_partner').on('customers').columns(['partner_id', 'status']).execute();
  // One live customer per identifier (an e-mail or a user id, compared case-insensitively) and per integrator id.
  await sql`create unique index customers_program_identifier on customers (program_id, lower(identifier)) where deleted_at is null`.execute(
    db,
  );
  await sql`create unique index customers_program_customer_id on customers (program_id, customer_id) where deleted_at is null and customer_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('customers').execute();
  await db.schema.dropTable('promotion_codes').execute();
}
