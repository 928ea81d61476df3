import { z } from 'zod';
import { idField, isoString } from '../../http/fields.js';
import { listQuery } from '../../http/list.js';
import { EVENT_TYPES, TEST_EVENT_TYPE } from './event-types.js';

export const EventListQuery = listQuery({
  program_id: idField.optional().meta({ description: "Only this program's events" }),
  type: z
    .enum([...EVENT_TYPES, TEST_EVENT_TYPE])
    .optional()
    .meta({ description: 'Only events of this type' }),
});
export type EventListInput = z.output<typeof EventListQuery>;

export const EventResend = z
  .strictObject({
    endpoint_id: idField
      .optional()
      .meta({ description: 'Send to this endpoint only; left out, to every enabled endpoint that wants the event' }),
  })
  .meta({ id: 'EventResend' });

/** The operations' descriptions in the OpenAPI document. */
export const eventDocs = {
  list: 'Events of the last 30 days, newest first, filtered by `type` and `program_id`. Each is also what webhook endpoints receive as the request body. Event types and when each is made: ingest/docs/webhooks.md.',
  retrieve: 'An event of the last 30 days, the same object webhook endpoints receive.',
  resend:
    'Queues the event again, as a new delivery, for every enabled endpoint that wants it (its types and program), or for `endpoint_id` only (whatever types it subscribes to), and answers the deliveries it queued (`wd_…` ids). The event keeps its id, so a receiver that already has it can tell.',
} as const;

export const Event = z
  .object({
    id: z.string().meta({ description: 'Stable: the same on every delivery and retry (also the `webhook-id` header)' }),
    type: z.string().meta({ example: 'commission.updated' }),
    created_at: isoString,
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The object after the change, exactly as the API answers a create or update of it' }),
    included: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "Commission events: what the API's `include[]` options add to it (`rejection_reason`), kept beside `data` so that `data` is exactly the spec's object",
    }),
    previous_attributes: z.record(z.string(), z.unknown()).optional().meta({
      description:
        'On a change (`*.updated`, `transaction.refunded`, `payout.paid`, `payout.failed`, `payout.canceled`): the changed fields of `data` and `included` as they were before (`updated_at` left out)',
    }),
  })
  .meta({ id: 'Event' });
export type EventObject = z.output<typeof Event>;
