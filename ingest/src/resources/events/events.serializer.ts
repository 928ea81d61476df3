import type { EventRow } from '../../db/schema.js';
import { toIso } from '../../http/fields.js';
import { EVENT_RESOURCES, includedOf, resourceOf } from './event-types.js';
import type { EventObject } from './events.schema.js';

type Snapshot = Record<string, unknown>;

/**
 * A row as SQL snapshotted it (migration 0009), as the API shows it: the resource's own
 * serializer reads the snapshot as it reads a row (timestamps arrive as ISO strings, which the
 * serializers' `toIso` takes as well). A test event's snapshot is its data.
 */
function present(type: string, snapshot: Snapshot): Snapshot {
  const resource = resourceOf(type);
  if (!resource) return snapshot;
  return (EVENT_RESOURCES[resource].present as (row: never) => Snapshot)(snapshot as never);
}

/** The fields whose value differs between two versions of an object, with their earlier value. */
function changedFields(before: Snapshot, after: Snapshot): Snapshot {
  return Object.fromEntries(
    Object.entries(before).filter(([key, value]) => key !== 'updated_at' && JSON.stringify(value) !== JSON.stringify(after[key])),
  );
}

/**
 * The event as `/v1/events` answers it and as webhook endpoints receive it. Its changed fields
 * are those of `data` and of `included` alike: a commission whose rejection reason alone changed
 * is an update whose `previous_attributes` holds the reason it had.
 */
export function toEvent(row: EventRow): EventObject {
  const data = present(row.type, row.snapshot);
  const included = includedOf(row.type, row.snapshot);
  const event: EventObject = { id: row.id, type: row.type, created_at: toIso(row.created_at), data };
  if (included) event.included = included;
  // Every change but a delete says what it changed (a delete's object is as it was).
  if (row.previous_snapshot && !row.type.endsWith('.deleted')) {
    const before = { ...present(row.type, row.previous_snapshot), ...includedOf(row.type, row.previous_snapshot) };
    event.previous_attributes = changedFields(before, { ...data, ...included });
  }
  return event;
}
