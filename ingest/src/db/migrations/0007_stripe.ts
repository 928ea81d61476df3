import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

/**
 * Stripe in (ingest/docs/stripe.md). A program's connection holds the signing secret of the
 * merchant's Stripe webhook endpoint. Every event received is kept as one row keyed by
 * Stripe's event id, which is what makes each event count once. An event that cannot take
 * effect yet (a payment of a Stripe customer not linked so far, a refund of a payment not
 * recorded so far) keeps its payload and the Stripe ids it waits for, and runs again when one
 * of them is linked. `stripe_links` maps Stripe's ids to svc's: a Stripe customer to a
 * customer, an invoice, PaymentIntent or charge to a transaction, a promotion code id to its
 * code text.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stripe_integrations')
    .addColumn('program_id', 'text', (c) => c.primaryKey().references('programs.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('tax_counts_as_revenue', 'boolean', (c) => c.notNull())
    .addColumn('connected_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('stripe_events')
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('api_version', 'text')
    .addColumn('stripe_created_at', ts, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('message', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('waiting_for', sql`text[]`)
    .addColumn('payload', 'jsonb')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('received_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('stripe_events_pkey', ['program_id', 'event_id'])
    .addCheckConstraint('stripe_events_status', sql`status in ('processed', 'ignored', 'failed', 'error')`)
    .addCheckConstraint('stripe_events_waiting', sql`payload is null or waiting_for is not null`)
    .execute();
  await db.schema
    .createIndex('stripe_events_program_received')
    .on('stripe_events')
    .columns(['program_id', 'received_at', 'event_id'])
    .execute();
  // The counts by outcome and the last arrival that GET …/integrations/stripe shows, from the index alone.
  await db.schema
    .createIndex('stripe_events_program_status')
    .on('stripe_events')
    .columns(['program_id', 'status', 'received_at'])
    .execute();
  await sql`create index stripe_events_waiting on stripe_events using gin (waiting_for) where payload is not null`.execute(db);
  await sql`create index stripe_events_kept on stripe_events (received_at) where payload is not null`.execute(db);

  await db.schema
    .createTable('stripe_links')
    .addColumn('program_id', 'text', (c) => c.notNull().references('programs.id'))
    .addColumn('stripe_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('stripe_links_pkey', ['program_id', 'stripe_id'])
    .addCheckConstraint('stripe_links_kind', sql`kind in ('customer', 'payment', 'promotion_code')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stripe_links').execute();
  await db.schema.dropTable('stripe_events').execute();
  await db.schema.dropTable('stripe_integrations').execute();
}
