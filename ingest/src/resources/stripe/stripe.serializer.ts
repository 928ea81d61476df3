import type { StripeEventRow, StripeIntegrationRow } from '../../db/schema.js';
import { toIso, toIsoOrNull } from '../../http/fields.js';
import {
  STRIPE_EVENT_STATUSES,
  type StripeEventObject,
  type StripeIntegrationObject,
  type StripeWebhookReceiptObject,
} from './stripe.schema.js';
import { EVENTS_TO_ENABLE } from './stripe-event-handlers.js';

/** whsec_…wxyz: enough to tell which secret is in use, never enough to sign with. */
const redact = (secret: string) => `whsec_…${secret.slice(-4)}`;

export function toStripeIntegration(
  programId: string,
  integration: StripeIntegrationRow | undefined,
  summary: { counts: Record<string, number>; lastAt: Date | null },
  webhookUrl: string,
): StripeIntegrationObject {
  return {
    program_id: programId,
    connected: integration !== undefined,
    webhook_secret: integration ? redact(integration.webhook_secret) : null,
    webhook_url: webhookUrl,
    tax_counts_as_revenue: integration?.tax_counts_as_revenue ?? false,
    events_to_enable: EVENTS_TO_ENABLE,
    event_counts: Object.fromEntries(
      STRIPE_EVENT_STATUSES.map((s) => [s, summary.counts[s] ?? 0]),
    ) as StripeIntegrationObject['event_counts'],
    last_event_at: toIsoOrNull(summary.lastAt),
    connected_at: integration ? toIso(integration.connected_at) : null,
    updated_at: integration ? toIso(integration.updated_at) : null,
  };
}

export function toStripeEvent(row: StripeEventRow): StripeEventObject {
  return {
    id: row.event_id,
    type: row.type,
    status: row.status as StripeEventObject['status'],
    reason: row.reason,
    message: row.message,
    customer_id: row.customer_id,
    transaction_id: row.transaction_id,
    waiting_for: row.payload === null ? null : row.waiting_for,
    livemode: row.livemode,
    api_version: row.api_version,
    attempts: row.attempts,
    stripe_created_at: toIso(row.stripe_created_at),
    created_at: toIso(row.received_at),
    updated_at: toIso(row.updated_at),
  };
}

/** What the webhook answers Stripe: the event's outcome, and whether this delivery was a repeat. */
export function receiptOf(
  row: Pick<StripeEventRow, 'event_id' | 'type' | 'status' | 'reason' | 'message'>,
  duplicate: boolean,
): StripeWebhookReceiptObject {
  return {
    event_id: row.event_id,
    type: row.type,
    status: row.status as StripeWebhookReceiptObject['status'],
    reason: row.reason,
    message: row.message,
    duplicate,
  };
}
