import type { Db } from '../../db/database.js';
import { isDatabaseUnavailable } from '../../db/errors.js';
import { beginRequestTransaction } from '../../db/request-transaction.js';
import type { StripeIntegrationRow } from '../../db/schema.js';
import { ApiError, badRequest } from '../../http/errors.js';
import type { FlowSource } from '../flows/flow-cache.js';
import {
  type EventRecord,
  findEvent,
  findIntegrationOfProgram,
  findWaitingEvents,
  lockProgramEvents,
  saveEvent,
  saveEventError,
} from './stripe.repository.js';
import type { StripeWebhookReceiptObject } from './stripe.schema.js';
import { receiptOf } from './stripe.serializer.js';
import { type EventContext, handleEvent, type Outcome, UnusableEvent } from './stripe-event-handlers.js';
import { StripeEvent } from './stripe-objects.js';

/** Stripe's own default: a signature older than five minutes is refused, so a captured request cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A status that a new delivery of the event does not change: it was handled for good. */
const SETTLED = new Set(['processed', 'ignored', 'failed']);

/**
 * The `stripe` package, loaded on the first delivery: it is large (every API resource), and a
 * process that never receives a Stripe event should not carry it
 * (ingest/bench/README.md#where-the-targets-do-not-hold-and-why: RSS).
 */
let stripePackage: Promise<typeof import('stripe').default> | undefined;
const loadStripe = () => {
  stripePackage ??= import('stripe').then((m) => m.default);
  return stripePackage;
};

/** The event, if the signature is Stripe's for this body with the program's secret; 400 otherwise, before anything is written. */
async function verify(integration: StripeIntegrationRow, rawBody: Buffer, signature: string): Promise<StripeEvent> {
  const Stripe = await loadStripe();
  let event: unknown;
  try {
    event = Stripe.webhooks.constructEvent(rawBody, signature, integration.webhook_secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw badRequest(`Invalid Stripe signature: ${err.message.split('\n')[0]}`, 'Stripe-Signature');
    }
    throw badRequest('The body is not a Stripe event (invalid JSON)');
  }
  const parsed = StripeEvent.safeParse(event);
  if (!parsed.success) throw badRequest('The body is not a Stripe event: it lacks id, type, created, livemode or data.object');
  return parsed.data;
}

/** The outcome of one run of the event; an event that can never take effect is recorded as failed. */
async function run(ctx: EventContext, event: StripeEvent): Promise<Outcome> {
  const linkedBefore = ctx.linked.length;
  try {
    // Inside the delivery's request transaction this is a savepoint that every statement of the
    // event joins (request-transaction.ts): a failure undoes this event's changes only.
    return await ctx.db.transaction().execute(() => handleEvent(ctx, event));
  } catch (err) {
    // Its links were undone with it: nothing waits for them.
    ctx.linked.length = linkedBefore;
    if (err instanceof UnusableEvent) return { status: 'failed', reason: 'unusable_event', message: err.message };
    // The API's own checks (say a Stripe currency svc does not know) can never pass on a retry either.
    if (err instanceof ApiError && err.status < 500) return { status: 'failed', reason: 'rejected', message: err.message };
    throw err;
  }
}

function recordOf(integration: StripeIntegrationRow, event: StripeEvent, outcome: Outcome): EventRecord {
  const waiting = outcome.waitingFor?.length ? outcome.waitingFor : null;
  return {
    program_id: integration.program_id,
    organization_id: integration.organization_id,
    event_id: event.id,
    type: event.type,
    livemode: event.livemode,
    api_version: event.api_version ?? null,
    stripe_created_at: new Date(event.created * 1000),
    status: outcome.status,
    reason: outcome.reason,
    message: outcome.message,
    customer_id: outcome.customerId ?? null,
    transaction_id: outcome.transactionId ?? null,
    waiting_for: waiting,
    // Kept only while waiting: the event runs again from it once what it waits for is linked.
    payload: waiting ? event : null,
  };
}

/**
 * Runs the events that waited for the Stripe ids linked so far, oldest in Stripe's time first,
 * and those waiting for what they link in turn. A waiting event that fails by a fault of its
 * own is recorded as `error` (its payload kept) without failing the delivery that woke it; SQL
 * going away fails the delivery, so Stripe delivers it again.
 */
async function runWaiting(ctx: EventContext): Promise<void> {
  const done = new Set<string>();
  while (ctx.linked.length) {
    const ids = ctx.linked.splice(0);
    for (const row of await findWaitingEvents(ctx.db, ctx.integration.program_id, ids)) {
      if (done.has(row.event_id)) continue;
      done.add(row.event_id);
      const event = StripeEvent.parse(row.payload);
      let outcome: Outcome;
      try {
        outcome = await run(ctx, event);
      } catch (err) {
        if (isDatabaseUnavailable(err)) throw err;
        outcome = { status: 'error', reason: 'processing_error', message: errorText(err), waitingFor: row.waiting_for ?? [] };
      }
      await saveEvent(ctx.db, recordOf(ctx.integration, event, outcome), new Date());
    }
  }
}

const errorText = (err: unknown) => ((err as Error)?.message ?? String(err)).slice(0, 500);

/**
 * One delivery of a Stripe event to a program's webhook URL (ingest/docs/stripe.md). The signature
 * is checked first. The event then runs in one SQL transaction with its record: its effects
 * and the record of its outcome commit together, so a retry after any failure finds both or
 * neither, and each event id takes effect once. The program's events run one at a time (an
 * advisory lock), so two processes given the same event at once do it once, and an event that
 * links a Stripe customer always sees the events that arrived earlier and wait for it. A fault
 * (say SQL going away) rolls everything back and answers 5xx, so Stripe delivers again;
 * `onFault` is told (the metrics' `fault` outcome).
 */
export async function receiveStripeEvent(
  db: Db,
  flowsOf: FlowSource,
  programId: string,
  rawBody: Buffer,
  signature: string | undefined,
  { onEmailQueued, onFault }: { onEmailQueued?: () => void; onFault?: () => void } = {},
): Promise<StripeWebhookReceiptObject> {
  if (!signature) throw badRequest('Missing Stripe-Signature header', 'Stripe-Signature');
  const integration = await findIntegrationOfProgram(db, programId);
  if (!integration) throw new ApiError('not_found_error', `Stripe is not connected to program '${programId}'`);
  const event = await verify(integration, rawBody, signature);

  // From here on every failure is a fault of a verified event: SQL not answering is the likeliest.
  const trx = await beginRequestTransaction(db).catch((err) => {
    onFault?.();
    throw err;
  });
  try {
    const receipt = await trx.run(async () => {
      await lockProgramEvents(db, programId);
      const earlier = await findEvent(db, programId, event.id);
      if (earlier && SETTLED.has(earlier.status)) return receiptOf(earlier, true);
      const ctx: EventContext = { db, flowsOf, integration, linked: [], onEmailQueued };
      const record = recordOf(integration, event, await run(ctx, event));
      await saveEvent(db, record, new Date());
      await runWaiting(ctx);
      return receiptOf(record, false);
    });
    if (receipt.duplicate) await trx.rollback();
    else await trx.commit();
    return receipt;
  } catch (err) {
    await trx.rollback();
    // Told in the event list, if SQL still answers; the next delivery runs the event again.
    const failure: Outcome = { status: 'error', reason: 'processing_error', message: errorText(err) };
    await saveEventError(db, recordOf(integration, event, failure), new Date()).catch(() => {});
    onFault?.();
    throw err;
  }
}
