import type { Db } from '../../db/database.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { badRequest, notFound } from '../../http/errors.js';
import { type Page, paginate } from '../../http/list.js';
import { newId } from '../../ids.js';
import { TEST_EVENT_TYPE } from '../events/event-types.js';
import { insertEvent } from '../events/events.repository.js';
import { requireEvent, retentionCutoff } from '../events/events.service.js';
import { requireProgram } from '../programs/programs.service.js';
import { endpointUrlProblem } from './webhook-address.js';
import {
  findEndpoint,
  insertDeliveriesOfEvent,
  insertDelivery,
  insertEndpoint,
  purgeDeliveriesBefore,
  selectDeliveryList,
  selectEndpointList,
  softDeleteEndpoint,
  updateEndpointRow,
} from './webhook-endpoints.repository.js';
import type {
  WebhookDeliveryListInput,
  WebhookDeliveryObject,
  WebhookEndpointCreateInput,
  WebhookEndpointListInput,
  WebhookEndpointObject,
  WebhookEndpointUpdateInput,
} from './webhook-endpoints.schema.js';
import { toWebhookDelivery, toWebhookEndpoint } from './webhook-endpoints.serializer.js';
import { newWebhookSecret } from './webhook-signature.js';

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** The caller's live endpoint, or 404. */
export async function requireEndpoint(db: Db, organizationId: string, endpointId: string, param?: string): Promise<WebhookEndpointRow> {
  const found = await findEndpoint(db, organizationId, endpointId);
  if (!found) throw notFound('webhook endpoint', endpointId, param);
  return found;
}

function checkUrl(url: string, allowPrivate: boolean): void {
  const problem = endpointUrlProblem(url, allowPrivate);
  if (problem) throw badRequest(`url ${problem}`, 'url');
}

/** `*` covers everything else; otherwise each filter once, in the order given. */
function eventFilters(events: string[]): string[] {
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

/** The signing secret is kept (svc signs with it, so it cannot be a hash) and returned once, here. */
export async function createEndpoint(
  db: Db,
  organizationId: string,
  input: WebhookEndpointCreateInput,
  allowPrivate: boolean,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  checkUrl(input.url, allowPrivate);
  if (input.program_id) await requireProgram(db, organizationId, input.program_id, 'program_id');
  const secret = newWebhookSecret();
  const now = new Date();
  const endpoint = await insertEndpoint(db, {
    id: newId('webhookEndpoint'),
    organization_id: organizationId,
    program_id: input.program_id ?? null,
    url: input.url,
    description: input.description ?? null,
    event_types: eventFilters(input.events ?? ['*']),
    enabled: input.enabled ?? true,
    secret,
    created_at: now,
    updated_at: now,
  });
  return { endpoint, secret };
}

export async function listEndpoints(db: Db, organizationId: string, query: WebhookEndpointListInput): Promise<Page<WebhookEndpointObject>> {
  if (query.program_id) await requireProgram(db, organizationId, query.program_id, 'program_id');
  const page = await paginate(selectEndpointList(db, organizationId, { programId: query.program_id }), query, {
    createdAt: 'created_at',
    id: 'id',
  });
  return { ...page, rows: page.rows.map((e) => toWebhookEndpoint(e)) };
}

export async function updateEndpoint(
  db: Db,
  organizationId: string,
  endpointId: string,
  input: WebhookEndpointUpdateInput,
  allowPrivate: boolean,
): Promise<WebhookEndpointRow> {
  const current = await requireEndpoint(db, organizationId, endpointId);
  if (input.url !== undefined) checkUrl(input.url, allowPrivate);
  if (input.program_id) await requireProgram(db, organizationId, input.program_id, 'program_id');
  // Enabling again is a fresh start: svc's reason for disabling it, and its failing streak, go.
  // Disabling is a pause: nothing is queued for it until it is enabled
  // (ingest/docs/webhooks.md#delivery).
  const reenabled = input.enabled === true && !current.enabled;
  const paused = input.enabled === false;
  return updateEndpointRow(db, current.id, {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.events !== undefined ? { event_types: eventFilters(input.events) } : {}),
    ...(input.program_id !== undefined ? { program_id: input.program_id } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...(reenabled ? { disabled_at: null, disabled_reason: null, failing_since: null } : {}),
    ...(paused ? { disabled_reason: null } : {}),
    updated_at: new Date(),
  });
}

/** Soft delete: the endpoint disappears and its deliveries still due are not sent (the worker skips deleted endpoints). */
export async function deleteEndpoint(db: Db, organizationId: string, endpointId: string): Promise<void> {
  const endpoint = await requireEndpoint(db, organizationId, endpointId);
  await softDeleteEndpoint(db, endpoint.id, new Date());
}

/** A new secret; the one it replaces keeps signing beside it for SECRET_OVERLAP_MS (an older one stops at once). */
export async function rotateEndpointSecret(
  db: Db,
  organizationId: string,
  endpointId: string,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const secret = newWebhookSecret();
  const endpoint = await inTransaction(db, async (trx) => {
    const current = await findEndpoint(trx, organizationId, endpointId, true);
    if (!current) throw notFound('webhook endpoint', endpointId);
    const now = new Date();
    return updateEndpointRow(trx, current.id, {
      secret,
      previous_secret: current.secret,
      previous_secret_expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS),
      updated_at: now,
    });
  });
  return { endpoint, secret };
}

function requireEnabled(endpoint: WebhookEndpointRow, param?: string): void {
  if (!endpoint.enabled) throw badRequest(`Webhook endpoint '${endpoint.id}' is disabled; enable it first (PUT enabled: true)`, param);
}

/** A `test` event for this endpoint alone, and its delivery, made together. */
export async function sendTestEvent(db: Db, organizationId: string, endpointId: string): Promise<WebhookDeliveryRow> {
  const endpoint = await requireEndpoint(db, organizationId, endpointId);
  requireEnabled(endpoint);
  const now = new Date();
  return inTransaction(db, async (trx) => {
    const event = await insertEvent(trx, {
      id: newId('event'),
      organization_id: organizationId,
      program_id: endpoint.program_id,
      type: TEST_EVENT_TYPE,
      object_id: endpoint.id,
      snapshot: JSON.stringify({
        endpoint_id: endpoint.id,
        message: 'A test event from svc: this endpoint receives and verifies webhooks.',
      }),
      created_at: now,
      // Made with its one delivery: the fan-out has nothing to do for it.
      dispatched_at: now,
    });
    return insertDelivery(trx, {
      id: newId('webhookDelivery'),
      organization_id: organizationId,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: event.type,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: now,
      attempts: '[]',
      created_at: now,
      updated_at: now,
    });
  });
}

/**
 * Queues an event again as new deliveries: to `endpointId` (enabled, and of the event's program
 * when narrowed to one), or to every enabled endpoint that wants it. A test event goes back to the
 * endpoint it was made for.
 */
export async function resendEvent(
  db: Db,
  organizationId: string,
  eventId: string,
  target: { endpoint_id?: string },
): Promise<WebhookDeliveryObject[]> {
  const event = await requireEvent(db, organizationId, eventId);
  let endpointId = target.endpoint_id ?? (event.type === TEST_EVENT_TYPE ? (event.object_id ?? undefined) : undefined);
  if (endpointId) {
    const endpoint = await requireEndpoint(db, organizationId, endpointId, target.endpoint_id ? 'endpoint_id' : undefined);
    requireEnabled(endpoint, 'endpoint_id');
    if (endpoint.program_id && endpoint.program_id !== event.program_id) {
      throw badRequest(`Webhook endpoint '${endpoint.id}' receives only the events of program '${endpoint.program_id}'`, 'endpoint_id');
    }
    endpointId = endpoint.id;
  }
  const rows = await insertDeliveriesOfEvent(db, event, { now: new Date(), endpointId });
  return rows.map(toWebhookDelivery);
}

export async function listDeliveries(
  db: Db,
  organizationId: string,
  endpointId: string,
  query: WebhookDeliveryListInput,
): Promise<Page<WebhookDeliveryObject>> {
  const endpoint = await requireEndpoint(db, organizationId, endpointId);
  const page = await paginate(
    selectDeliveryList(db, organizationId, { endpointId: endpoint.id, status: query.status, eventId: query.event_id }),
    query,
    { createdAt: 'created_at', id: 'id' },
  );
  return { ...page, rows: page.rows.map(toWebhookDelivery) };
}

/** Forgets deliveries as old as the events that are forgotten (the hourly purge). */
export function purgeOldDeliveries(db: Db, now = new Date()): Promise<number> {
  return purgeDeliveriesBefore(db, retentionCutoff(now));
}
