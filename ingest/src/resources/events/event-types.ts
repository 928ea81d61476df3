import type { CommissionRow, CustomerRow, LinkRow, PartnerRow, PayoutRow, RiskEventRow, TransactionRow } from '../../db/schema.js';
import { COMMISSION_INCLUDES } from '../commissions/commissions.schema.js';
import { includedFields, toFullCommission } from '../commissions/commissions.serializer.js';
import { toCustomerWithIdentifier } from '../customers/customers.serializer.js';
import { toLink } from '../links/links.serializer.js';
import { toPartner } from '../partners/partners.serializer.js';
import { toPayout } from '../payouts/payouts.serializer.js';
import { toRiskEvent } from '../risk/risk.serializer.js';
import { toTransaction } from '../transactions/transactions.serializer.js';

/**
 * The resources whose changes are events, what happens to them, and the serializer that makes an
 * event's `data`: the object exactly as the API answers a create or an update of it. Stored fields
 * the API shows only on request (`include[]`, as a commission's `rejection_reason`) come from
 * `included` and go beside `data`, in the event's `included`: `data` stays the Partnership Program
 * API's object, and a receiver still learns what changed. Which change is which event is decided by
 * the triggers of migrations 0009 (created, updated, deleted; a transaction whose refunded amount
 * grew is refunded) and 0010 (payouts); this is the one list the API, its validation and its
 * documentation read.
 */
export const EVENT_RESOURCES = {
  partner: { actions: ['created', 'updated', 'deleted'], present: (row: PartnerRow) => toPartner(row) },
  link: { actions: ['created', 'updated', 'deleted'], present: (row: LinkRow) => toLink(row) },
  customer: { actions: ['created', 'updated', 'deleted'], present: (row: CustomerRow) => toCustomerWithIdentifier(row) },
  transaction: { actions: ['created', 'updated', 'refunded', 'deleted'], present: (row: TransactionRow) => toTransaction(row) },
  commission: {
    actions: ['created', 'updated', 'deleted'],
    present: (row: CommissionRow) => toFullCommission(row),
    included: (row: CommissionRow) => includedFields(row, COMMISSION_INCLUDES),
  },
  // Migration 0010: a status a payout reaches names its event; any other change is an update.
  payout: { actions: ['created', 'updated', 'paid', 'failed', 'canceled'], present: (row: PayoutRow) => toPayout(row) },
  // Migration 0017: a risk event is created and resolved; what it holds is read when it is retrieved, not sent.
  risk_event: { actions: ['created', 'resolved'], present: (row: RiskEventRow) => toRiskEvent(row) },
} as const;

export type EventResource = keyof typeof EVENT_RESOURCES;

/** Sent by `POST /v1/webhook-endpoints/:id/test` to that endpoint only; not something to subscribe to. */
export const TEST_EVENT_TYPE = 'test';

/** Every event type an endpoint may subscribe to, e.g. `commission.updated`. */
export const EVENT_TYPES = Object.entries(EVENT_RESOURCES).flatMap(([resource, { actions }]) =>
  actions.map((action) => `${resource}.${action}`),
) as [string, ...string[]];

/** What an endpoint's `events` may hold: a type, every type of a resource (`partner.*`), or everything (`*`). */
export const EVENT_FILTERS = ['*', ...Object.keys(EVENT_RESOURCES).map((r) => `${r}.*`), ...EVENT_TYPES] as [string, ...string[]];

/** What an event of this type carries beside its data (`included`), if its resource has such fields. */
export function includedOf(type: string, snapshot: Record<string, unknown>): Record<string, unknown> | undefined {
  const resource = resourceOf(type);
  const entry = resource ? EVENT_RESOURCES[resource] : undefined;
  return entry && 'included' in entry ? entry.included(snapshot as never) : undefined;
}

/** The resource an event type is about (`commission` for `commission.updated`), if it is one. */
export function resourceOf(type: string): EventResource | undefined {
  const resource = type.split('.')[0];
  return Object.hasOwn(EVENT_RESOURCES, resource) ? (resource as EventResource) : undefined;
}
