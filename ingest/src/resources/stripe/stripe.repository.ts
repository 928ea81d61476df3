import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { StripeEventRow, StripeIntegrationRow } from '../../db/schema.js';
import { advisoryLockId } from '../../ids.js';

export type StripeLinkKind = 'customer' | 'payment' | 'promotion_code';

export function findIntegration(db: Db, organizationId: string, programId: string): Promise<StripeIntegrationRow | undefined> {
  return db
    .selectFrom('stripe_integrations')
    .selectAll()
    .where('program_id', '=', programId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

/** The connection of a program, whoever owns it: the webhook knows only the program id from its URL. */
export function findIntegrationOfProgram(db: Db, programId: string): Promise<StripeIntegrationRow | undefined> {
  return db.selectFrom('stripe_integrations').selectAll().where('program_id', '=', programId).executeTakeFirst();
}

export function upsertIntegration(
  db: Db,
  row: Omit<StripeIntegrationRow, 'connected_at' | 'updated_at'>,
  now: Date,
): Promise<StripeIntegrationRow> {
  return db
    .insertInto('stripe_integrations')
    .values({ ...row, connected_at: now, updated_at: now })
    .onConflict((oc) =>
      oc
        .column('program_id')
        .doUpdateSet({ webhook_secret: row.webhook_secret, tax_counts_as_revenue: row.tax_counts_as_revenue, updated_at: now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteIntegration(db: Db, programId: string): Promise<void> {
  await db.deleteFrom('stripe_integrations').where('program_id', '=', programId).execute();
}

/** How many events ended in each status, and when the last one arrived. */
export async function summarizeEvents(db: Db, programId: string): Promise<{ counts: Record<string, number>; lastAt: Date | null }> {
  const rows = await db
    .selectFrom('stripe_events')
    .select(['status', sql<number>`count(*)::int`.as('n'), sql<Date>`max(received_at)`.as('last')])
    .where('program_id', '=', programId)
    .groupBy('status')
    .execute();
  const last = rows.reduce<Date | null>((at, r) => (at === null || new Date(r.last) > at ? new Date(r.last) : at), null);
  return { counts: Object.fromEntries(rows.map((r) => [r.status, r.n])), lastAt: last };
}

export interface StripeEventListFilters {
  programId: string;
  status?: string;
  type?: string;
}

export function selectStripeEventList(db: Db, filters: StripeEventListFilters) {
  let query = db.selectFrom('stripe_events').selectAll().where('program_id', '=', filters.programId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.type) query = query.where('type', '=', filters.type);
  return query;
}

/**
 * Holds the program's Stripe events for the rest of the SQL transaction: they run one at a
 * time, so an event that links a Stripe id always sees the events already waiting for it, and
 * a second delivery of one event waits for the first and then finds its record.
 */
export async function lockProgramEvents(db: Db, programId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${advisoryLockId(`stripe-events\n${programId}`).toString()}::bigint)`.execute(db);
}

export function findEvent(db: Db, programId: string, eventId: string): Promise<StripeEventRow | undefined> {
  return db.selectFrom('stripe_events').selectAll().where('program_id', '=', programId).where('event_id', '=', eventId).executeTakeFirst();
}

/** An event and its outcome; `payload` is the event as received, kept only while it waits. */
export type EventRecord = Omit<StripeEventRow, 'payload' | 'attempts' | 'received_at' | 'updated_at'> & { payload: unknown };

/** Writes an event's outcome; a later attempt of the same event (after an error) replaces it. */
export async function saveEvent(db: Db, record: EventRecord, now: Date): Promise<void> {
  const payload = record.payload === null ? null : JSON.stringify(record.payload);
  const outcome = {
    status: record.status,
    reason: record.reason,
    message: record.message,
    customer_id: record.customer_id,
    transaction_id: record.transaction_id,
    waiting_for: record.waiting_for,
    payload,
    updated_at: now,
  };
  await db
    .insertInto('stripe_events')
    .values({ ...record, ...outcome, attempts: 1, received_at: now })
    .onConflict((oc) =>
      oc.columns(['program_id', 'event_id']).doUpdateSet((eb) => ({ ...outcome, attempts: eb('stripe_events.attempts', '+', 1) })),
    )
    .execute();
}

/** Records that a fault stopped the event, unless another delivery recorded its outcome meanwhile. */
export async function saveEventError(db: Db, record: EventRecord, now: Date): Promise<void> {
  await db
    .insertInto('stripe_events')
    .values({ ...record, payload: null, attempts: 1, received_at: now, updated_at: now })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'event_id'])
        .doUpdateSet((eb) => ({ message: record.message, attempts: eb('stripe_events.attempts', '+', 1), updated_at: now }))
        .where('stripe_events.status', '=', 'error'),
    )
    .execute();
}

/** The kept events that wait for any of these Stripe ids, oldest in Stripe's time first. */
export function findWaitingEvents(db: Db, programId: string, stripeIds: string[]): Promise<StripeEventRow[]> {
  return db
    .selectFrom('stripe_events')
    .selectAll()
    .where('program_id', '=', programId)
    .where('payload', 'is not', null)
    .where(sql<boolean>`waiting_for && ${sql.val(stripeIds)}::text[]`)
    .orderBy('stripe_created_at')
    .orderBy('event_id')
    .execute();
}

/** Lets go of the payloads of events that waited longer than Stripe retries; their records stay. Returns how many. */
export async function forgetWaitingPayloads(db: Db, before: Date): Promise<number> {
  const result = await db
    .updateTable('stripe_events')
    .set({ payload: null, waiting_for: null })
    .where('payload', 'is not', null)
    .where('received_at', '<', before)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function findLinks(db: Db, programId: string, kind: StripeLinkKind, stripeIds: string[]): Promise<Map<string, string>> {
  if (stripeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('stripe_links')
    .select(['stripe_id', 'target'])
    .where('program_id', '=', programId)
    .where('kind', '=', kind)
    .where('stripe_id', 'in', stripeIds)
    .execute();
  return new Map(rows.map((r) => [r.stripe_id, r.target]));
}

/** Links Stripe ids to an svc record; an id already linked keeps its first target. Returns the ids newly linked. */
export async function insertLinks(db: Db, programId: string, kind: StripeLinkKind, stripeIds: string[], target: string): Promise<string[]> {
  if (stripeIds.length === 0) return [];
  const now = new Date();
  const rows = await db
    .insertInto('stripe_links')
    .values([...new Set(stripeIds)].map((stripe_id) => ({ program_id: programId, stripe_id, kind, target, created_at: now })))
    .onConflict((oc) => oc.columns(['program_id', 'stripe_id']).doNothing())
    .returning('stripe_id')
    .execute();
  return rows.map((r) => r.stripe_id);
}

/** A promotion code's text changes with `promotion_code.updated`. */
export async function upsertPromotionCodeLink(db: Db, programId: string, stripeId: string, code: string): Promise<void> {
  await db
    .insertInto('stripe_links')
    .values({ program_id: programId, stripe_id: stripeId, kind: 'promotion_code', target: code, created_at: new Date() })
    .onConflict((oc) => oc.columns(['program_id', 'stripe_id']).doUpdateSet({ target: code }))
    .execute();
}
