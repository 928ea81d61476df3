import { z } from 'zod';
import { idField, isoString, optionalText, urlField } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';
import { EVENT_FILTERS } from '../events/event-types.js';

const eventFilters = z
  .array(z.enum(EVENT_FILTERS))
  .min(1)
  .max(EVENT_FILTERS.length)
  .meta({
    description: 'Event types (`commission.updated`), every type of a resource (`commission.*`), or `*` for all (the default on create)',
    example: ['*'],
  });

const endpointFields = {
  url: urlField.meta({
    description:
      'Where events are posted: https, without credentials, at a public address (not localhost, a loopback, private, link-local, shared or reserved address: 400)',
    example: 'https://example.com/svc/webhooks',
  }),
  description: optionalText(500).optional(),
  events: eventFilters.optional(),
  program_id: idField
    .nullable()
    .optional()
    .meta({ description: "Only this program's events; null or left out for the whole organization" }),
  enabled: z
    .boolean()
    .optional()
    .meta({ description: 'Default true. false pauses the endpoint: nothing is queued for it until it is enabled again' }),
};

export const WebhookEndpointCreate = z.strictObject(endpointFields).meta({ id: 'WebhookEndpointCreate' });
export type WebhookEndpointCreateInput = z.output<typeof WebhookEndpointCreate>;
export const WebhookEndpointUpdate = z
  .strictObject({ ...endpointFields, url: endpointFields.url.optional() })
  .meta({ id: 'WebhookEndpointUpdate' });
export type WebhookEndpointUpdateInput = z.output<typeof WebhookEndpointUpdate>;

export const WebhookEndpointListQuery = listQuery({ program_id: idField.optional() });
export type WebhookEndpointListInput = z.output<typeof WebhookEndpointListQuery>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const WebhookDeliveryListQuery = listQuery({ status: z.enum(DELIVERY_STATUSES).optional(), event_id: idField.optional() });
export type WebhookDeliveryListInput = z.output<typeof WebhookDeliveryListQuery>;

/** The operations' descriptions in the OpenAPI document. */
export const webhookEndpointDocs = {
  create:
    'The signing secret (`whsec_…`) is in this response only (`Cache-Control: no-store`; an `Idempotency-Key` replay answers without it). Events are posted with the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and `webhook-signature`. The endpoint receives the events of changes made after it was created; send it earlier ones with `POST /v1/events/{id}/resend`. Delivery, retries and verifying: ingest/docs/webhooks.md.',
  list: 'The organization’s webhook endpoints, filtered by `program_id`. The secret is never shown again: `redacted_secret` has its last four characters.',
  retrieve: 'The secret is never shown again: `redacted_secret` has its last four characters.',
  update:
    'Setting `enabled: true` again after svc disabled a failing endpoint clears `disabled_reason` and `failing_since`, and the deliveries that waited go out. `enabled: false` pauses it: nothing is queued for it until it is enabled (resend what you need from `/v1/events`).',
  delete: 'Deliveries still due are not sent.',
  rotate:
    'A new signing secret, in this response only. The previous one keeps signing beside it for 24 hours (both signatures are in `webhook-signature`; `previous_secret_expires_at` says until when), so receivers can switch over. Rotating again within those 24 hours ends the oldest secret at once.',
  test: 'Posts an event of type `test` to this endpoint (whatever types it subscribes to), and answers its delivery; see its outcome in the delivery log.',
  deliveries:
    'Each event sent to this endpoint with its attempts: status, response code and start of the body, duration, error. Filters `status` (`pending`, `succeeded`, `failed`) and `event_id`. Deliveries are kept 30 days.',
} as const;

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    program_id: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: 'Why svc disabled the endpoint (every attempt failing for 5 days); null otherwise' }),
    disabled_at: isoString.nullable(),
    failing_since: isoString.nullable().meta({ description: 'Since when every attempt has failed; null after a success' }),
    redacted_secret: z.string().meta({ example: 'whsec_…a1B2' }),
    previous_secret_expires_at: isoString
      .nullable()
      .meta({ description: 'After a rotation: until when the previous secret still signs beside the current one; null otherwise' }),
    organization_id: z.string(),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointObject = z.output<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().optional().meta({
    description: 'The signing secret. Shown only in this response; store it now. Absent when the response is an Idempotency-Key replay.',
  }),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const DeliveryAttemptObject = z
  .object({
    attempt: z.number().int(),
    status: z.enum(['succeeded', 'failed']),
    response_status: z.number().int().nullable(),
    response_body: z.string().nullable().meta({ description: 'The first 1,024 bytes of the answer' }),
    duration_ms: z.number().int(),
    error: z
      .string()
      .nullable()
      .meta({ description: 'e.g. "HTTP 500", "timed out after 5 s", "ECONNREFUSED: …", "refused: … is not a public address"' }),
    created_at: isoString,
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const WebhookDelivery = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    next_attempt_at: isoString.nullable().meta({ description: 'When the next attempt is due while pending' }),
    attempts: z.array(DeliveryAttemptObject),
    created_at: isoString,
    updated_at: isoString,
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryObject = z.output<typeof WebhookDelivery>;
