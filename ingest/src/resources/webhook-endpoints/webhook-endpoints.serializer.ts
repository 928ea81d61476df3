import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import type { WebhookDeliveryObject, WebhookEndpointObject } from './webhook-endpoints.schema.js';
import { redactSecret } from './webhook-signature.js';

/** The endpoint as the API shows it: never its secrets, only the current one's last four characters. */
export function toWebhookEndpoint(e: WebhookEndpointRow, now = new Date()): WebhookEndpointObject {
  const overlapping = e.previous_secret_expires_at !== null && new Date(e.previous_secret_expires_at) > now;
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.event_types,
    program_id: e.program_id,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    disabled_at: toIsoOrNull(e.disabled_at),
    failing_since: toIsoOrNull(e.failing_since),
    redacted_secret: redactSecret(e.secret),
    previous_secret_expires_at: overlapping ? toIsoOrNull(e.previous_secret_expires_at) : null,
    organization_id: e.organization_id,
    created_at: toIso(e.created_at),
    updated_at: toIso(e.updated_at),
  };
}

export function toWebhookDelivery(d: WebhookDeliveryRow): WebhookDeliveryObject {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status as WebhookDeliveryObject['status'],
    attempt_count: d.attempt_count,
    next_attempt_at: toIsoOrNull(d.next_attempt_at),
    attempts: d.attempts.map((a) => ({ ...a, created_at: toIso(a.created_at) })),
    created_at: toIso(d.created_at),
    updated_at: toIso(d.updated_at),
  };
}
