import type { Db } from '../../db/database.js';
import type { EventRow } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { requireProgram } from '../programs/programs.service.js';
import { findEvent, purgeEventsBefore, selectEventList } from './events.repository.js';
import type { EventListInput, EventObject } from './events.schema.js';
import { toEvent } from './events.serializer.js';

/** How long events are kept (and listed); deliveries are kept as long (webhook-endpoints.service.ts). */
export const EVENT_RETENTION_DAYS = 30;

/** The caller's event, or 404. */
export async function requireEvent(db: Db, organizationId: string, eventId: string): Promise<EventRow> {
  const event = await findEvent(db, organizationId, eventId);
  if (!event) throw notFound('event', eventId);
  return event;
}

export async function listEvents(db: Db, organizationId: string, query: EventListInput): Promise<Page<EventObject>> {
  if (query.program_id) await requireProgram(db, organizationId, query.program_id, 'program_id');
  const page = await paginate(selectEventList(db, organizationId, { programId: query.program_id, type: query.type }), query, {
    createdAt: 'created_at',
    id: 'id',
  });
  return { ...page, rows: page.rows.map(toEvent) };
}

export async function retrieveEvent(db: Db, organizationId: string, eventId: string): Promise<EventObject> {
  return toEvent(await requireEvent(db, organizationId, eventId));
}

/** Where the retention of events, and of their deliveries, ends. */
export const retentionCutoff = (now: Date) => new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000);

/** Forgets events older than the retention (the hourly purge). */
export function purgeOldEvents(db: Db, now = new Date()): Promise<number> {
  return purgeEventsBefore(db, retentionCutoff(now));
}
