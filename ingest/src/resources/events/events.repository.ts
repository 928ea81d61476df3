import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { EventRow, EventsTable } from '../../db/schema.js';

/**
 * The events outbox's SQL apart from its fan-out to webhook endpoints (which lives with the
 * deliveries it makes, in webhook-endpoints.repository.ts). Rows are written by the triggers of
 * migration 0009; the service writes only test events.
 */

export interface EventListFilters {
  programId?: string;
  type?: string;
}

/** The organization's events with the list filters applied, for `paginate`. */
export function selectEventList(db: Db, organizationId: string, filters: EventListFilters) {
  let query = db.selectFrom('events').selectAll().where('organization_id', '=', organizationId);
  if (filters.programId) query = query.where('program_id', '=', filters.programId);
  if (filters.type) query = query.where('type', '=', filters.type);
  return query;
}

/** A program's latest events, newest first (the dashboard's recent activity): the list's index read backwards. */
export function selectRecentEvents(db: Db, organizationId: string, programId: string, limit: number): Promise<EventRow[]> {
  return selectEventList(db, organizationId, { programId }).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export function findEvent(db: Db, organizationId: string, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

/** The events with these ids (of any organization: the delivery worker's read). */
export function findEventsByIds(db: Db, ids: string[]): Promise<EventRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
}

/** An event the service makes itself (a test event), already dispatched: its one delivery is made with it. */
export function insertEvent(db: Db, event: Omit<Insertable<EventsTable>, 'seq'>): Promise<EventRow> {
  return db.insertInto('events').values(event).returningAll().executeTakeFirstOrThrow();
}

/** Deletes events created before `before` (fanned out or not: their deliveries go at the same age); returns how many. */
export async function purgeEventsBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('events').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
