import type { Kysely } from 'kysely';

/** Indexes for lookups on the tracking path. */
export async function up(db: Kysely<any>): Promise<void> {
  // A repeat click asks whether its click already became a customer.
  await db.schema.createIndex('customers_click').on('customers').column('click_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('customers_click').execute();
}
