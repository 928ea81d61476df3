import { type Insertable, type RawBuilder, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type {
  DeliveryAttempt,
  WebhookDeliveriesTable,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookEndpointsTable,
} from '../../db/schema.js';

/** The SQL of webhook endpoints and their deliveries, the events' fan-out to them included. */

/** A value in a statement: a parameter, or a column of the statement's own rows. */
type SqlValue = string | RawBuilder<unknown>;

export function selectEndpoints(db: Db, organizationId: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
}

/** The organization's live endpoints, optionally of one program, for `paginate`. */
export function selectEndpointList(db: Db, organizationId: string, filters: { programId?: string }) {
  const query = selectEndpoints(db, organizationId);
  return filters.programId ? query.where('program_id', '=', filters.programId) : query;
}

/** The caller's live endpoint; `forUpdate` locks it for the rest of the SQL transaction. */
export function findEndpoint(db: Db, organizationId: string, id: string, forUpdate = false): Promise<WebhookEndpointRow | undefined> {
  const query = selectEndpoints(db, organizationId).where('id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export function insertEndpoint(db: Db, endpoint: Insertable<WebhookEndpointsTable>): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(endpoint).returningAll().executeTakeFirstOrThrow();
}

export function updateEndpointRow(db: Db, id: string, changes: Updateable<WebhookEndpointsTable>): Promise<WebhookEndpointRow> {
  return db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function softDeleteEndpoint(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ deleted_at: now, updated_at: now }).where('id', '=', id).execute();
}

/** An endpoint by id, deleted or not (the worker's read of where to send and with which secrets). */
export function findEndpointById(db: Db, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The one rule of which endpoint `e` wants an event: its organization's, not deleted, enabled or
 * disabled by svc for failing (its deliveries wait until it is enabled again; one its owner
 * disabled gets nothing), of the event's program or of every program, and subscribed to the
 * type, its resource (`x.*`) or `*`.
 */
function endpointWants(event: { organizationId: SqlValue; programId: SqlValue | null; type: SqlValue }) {
  return sql<boolean>`e.organization_id = ${event.organizationId} and (e.enabled or e.disabled_reason is not null) and e.deleted_at is null
    and (e.program_id is null or e.program_id = ${event.programId})
    and ('*' = any(e.event_types) or ${event.type} = any(e.event_types) or split_part(${event.type}, '.', 1) || '.*' = any(e.event_types))`;
}

/**
 * Fans out up to `batch` new events, oldest first, in one statement: a pending delivery for every
 * endpoint that wants each one (due at the event's time, so they go out in event order), and the
 * events marked dispatched. Returns how many events it took; SKIP LOCKED lets processes share the work.
 */
export async function fanOutEvents(db: Db, opts: { batch: number; now: Date }): Promise<number> {
  const b = (column: string) => sql.ref(`b.${column}`);
  const { rows } = await sql<{ id: string }>`
    with batch as (
      select id, seq, organization_id, program_id, type, created_at from events
       where dispatched_at is null
       order by seq
       limit ${opts.batch}
       for update skip locked
    ), fanned as (
      insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, attempts, created_at, updated_at)
      select svc_random_id('wd'), b.organization_id, e.id, b.id, b.type, 'pending', 0, least(b.created_at, ${opts.now}), '[]', ${opts.now}, ${opts.now}
        from batch b join webhook_endpoints e
          on ${endpointWants({ organizationId: b('organization_id'), programId: b('program_id'), type: b('type') })}
       order by b.seq, e.id
    )
    update events set dispatched_at = ${opts.now} where id in (select id from batch) returning id`.execute(db);
  return rows.length;
}

/**
 * New pending deliveries of one event, due now: to `endpointId` only, or else to every endpoint
 * that wants it (a resend).
 */
export function insertDeliveriesOfEvent(
  db: Db,
  event: { id: string; organization_id: string; program_id: string | null; type: string },
  opts: { now: Date; endpointId?: string },
): Promise<WebhookDeliveryRow[]> {
  const which = opts.endpointId
    ? sql<boolean>`e.organization_id = ${event.organization_id} and e.id = ${opts.endpointId} and e.deleted_at is null`
    : endpointWants({ organizationId: event.organization_id, programId: event.program_id, type: event.type });
  return sql<WebhookDeliveryRow>`
    insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, attempts, created_at, updated_at)
    select svc_random_id('wd'), e.organization_id, e.id, ${event.id}, ${event.type}, 'pending', 0, ${opts.now}, '[]', ${opts.now}, ${opts.now}
      from webhook_endpoints e
     where ${which}
     order by e.id
    returning *`
    .execute(db)
    .then((r) => r.rows);
}

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  /** The number of the attempt this claim makes. */
  attempt_count: number;
  seq: number;
}

/** Not held by any process: never claimed, recorded or given back since, or its lease has ended. */
function unleased(now: Date) {
  return sql<boolean>`(d.leased_until is null or d.leased_until <= ${now})`;
}

/**
 * Claims due deliveries for this process: of up to `endpoints` enabled endpoints not in `busy`
 * (those whose deliveries are oldest first), up to `perEndpoint` each, in the order they are due.
 * Each claimed delivery's attempt number goes up and it is leased until `leaseUntil`, so no
 * other process takes the same attempt; the claimer renews the lease while it works
 * (`renewClaims`), and should it die, the lease ends and the delivery is due again, in the place
 * it had (its `next_attempt_at` is left as it was).
 */
export async function claimDueDeliveries(
  db: Db,
  opts: { now: Date; endpoints: number; perEndpoint: number; leaseUntil: Date; busy: string[] },
): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<ClaimedDelivery>`
    with due_endpoints as (
      select id from (
        select e.id, (select min(d.next_attempt_at) from webhook_deliveries d
                       where d.endpoint_id = e.id and d.status = 'pending' and ${unleased(opts.now)}) as oldest
          from webhook_endpoints e
         where e.enabled and e.deleted_at is null and not (e.id = any(${opts.busy}::text[]))
      ) x
       where oldest <= ${opts.now}
       order by oldest
       limit ${opts.endpoints}
    ), claimed as (
      select c.id from due_endpoints de cross join lateral (
        select d.id from webhook_deliveries d
         where d.endpoint_id = de.id and d.status = 'pending' and d.next_attempt_at <= ${opts.now} and ${unleased(opts.now)}
         order by d.next_attempt_at, d.seq
         limit ${opts.perEndpoint}
         for update skip locked
      ) c
    )
    update webhook_deliveries d
       set attempt_count = d.attempt_count + 1, leased_until = ${opts.leaseUntil}, updated_at = ${opts.now}
      from claimed
     where d.id = claimed.id
    returning d.id, d.endpoint_id, d.event_id, d.attempt_count, d.seq`.execute(db);
  return rows;
}

export interface AttemptOutcome {
  deliveryId: string;
  entry: DeliveryAttempt;
  status: WebhookDeliveryRow['status'];
  nextAttemptAt: Date | null;
}

/**
 * Records attempts in their deliveries' logs in one statement, each with its outcome (the
 * status and when to try next) unless a later claim of the delivery has overtaken it (a lease
 * that ran out). Writing the same attempt again (a retry after an answer lost with its
 * connection) adds no second log entry.
 */
export async function recordAttempts(db: Db, outcomes: AttemptOutcome[], now: Date): Promise<void> {
  const rows = outcomes.map((o) => ({
    id: o.deliveryId,
    attempt: o.entry.attempt,
    status: o.status,
    next_attempt_at: o.nextAttemptAt?.toISOString() ?? null,
    entry: [o.entry],
  }));
  await sql`
    update webhook_deliveries d
       set attempts = case when d.attempts @> v.entry then d.attempts else d.attempts || v.entry end,
           status = case when d.attempt_count = v.attempt then v.status else d.status end,
           next_attempt_at = case when d.attempt_count = v.attempt then v.next_attempt_at else d.next_attempt_at end,
           leased_until = case when d.attempt_count = v.attempt then null else d.leased_until end,
           updated_at = ${now}
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id text, attempt int, status text, next_attempt_at timestamptz, entry jsonb)
     where d.id = v.id`.execute(db);
}

/**
 * Renews leases this process holds to `until`: each claim only while it is still the one this
 * process made (its attempt number), pending, and under the lease end this process last had
 * confirmed (`heldUntil`). A claim another process took over after the lease ended, or one whose
 * attempt was recorded meanwhile, is left as it is. Returns the ids renewed.
 */
export async function renewClaims(
  db: Db,
  claims: { id: string; attempt: number; heldUntil: Date }[],
  until: Date,
  now: Date,
): Promise<string[]> {
  if (claims.length === 0) return [];
  const rows = claims.map((c) => ({ id: c.id, attempt: c.attempt, held_until: c.heldUntil.toISOString() }));
  const { rows: renewed } = await sql<{ id: string }>`
    update webhook_deliveries d
       set leased_until = ${until}, updated_at = ${now}
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id text, attempt int, held_until timestamptz)
     where d.id = v.id and d.attempt_count = v.attempt and d.status = 'pending' and d.leased_until = v.held_until
    returning d.id`.execute(db);
  return renewed.map((r) => r.id);
}

/**
 * Gives claims back unused (their endpoint was disabled or deleted meanwhile, or the lease ran
 * short): due again at once, in their place, with the attempt number they had, unless claimed
 * again since.
 */
export async function releaseClaims(db: Db, claims: ClaimedDelivery[], now: Date): Promise<void> {
  if (claims.length === 0) return;
  const rows = claims.map((c) => ({ id: c.id, attempt: c.attempt_count }));
  await sql`
    update webhook_deliveries d
       set attempt_count = d.attempt_count - 1, leased_until = null, updated_at = ${now}
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id text, attempt int)
     where d.id = v.id and d.attempt_count = v.attempt and d.status = 'pending'`.execute(db);
}

/**
 * Keeps when an endpoint started failing: `since` is the first failure after its last success
 * (null when the last attempt succeeded); `hadSuccess` says whether these attempts succeeded at
 * all, which clears an older start. Returns the endpoint's start of failing after the change.
 */
export async function updateEndpointHealth(db: Db, id: string, health: { since: Date | null; hadSuccess: boolean }): Promise<Date | null> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: health.hadSuccess ? health.since : sql`coalesce(failing_since, ${health.since}::timestamptz)` })
    .where('id', '=', id)
    .returning('failing_since')
    .executeTakeFirst();
  return row?.failing_since ? new Date(row.failing_since) : null;
}

/** Disables an endpoint that is still enabled; false when it was not (another process did it first, or its owner). */
export async function disableEndpoint(db: Db, id: string, reason: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_at: now, disabled_reason: reason, updated_at: now })
    .where('id', '=', id)
    .where('enabled', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface DeliveryListFilters {
  endpointId: string;
  status?: string;
  eventId?: string;
}

/** An endpoint's deliveries with the list filters applied, for `paginate`. */
export function selectDeliveryList(db: Db, organizationId: string, filters: DeliveryListFilters) {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', filters.endpointId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.eventId) query = query.where('event_id', '=', filters.eventId);
  return query;
}

/** Inserts one delivery (a test event's). */
export function insertDelivery(db: Db, delivery: Omit<Insertable<WebhookDeliveriesTable>, 'seq'>): Promise<WebhookDeliveryRow> {
  return db.insertInto('webhook_deliveries').values(delivery).returningAll().executeTakeFirstOrThrow();
}

/** Deletes deliveries created before `before`; returns how many. */
export async function purgeDeliveriesBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface DeliveryBacklog {
  pending: number;
  failed: number;
  /** When the oldest pending delivery was queued; null when none is pending. */
  oldestPendingAt: Date | null;
}

/** Every organization's deliveries waiting and given up, in one statement (the metrics endpoint, ingest/docs/metrics.md). */
export async function selectDeliveryBacklog(db: Db): Promise<DeliveryBacklog> {
  const r = await sql<{ pending: number; failed: number; oldest: Date | string | null }>`
    select count(*) filter (where status = 'pending')::int as pending,
           count(*) filter (where status = 'failed')::int as failed,
           min(created_at) filter (where status = 'pending') as oldest
      from webhook_deliveries`.execute(db);
  const row = r.rows[0];
  return { pending: row.pending, failed: row.failed, oldestPendingAt: row.oldest === null ? null : new Date(row.oldest) };
}
