import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { afterCommit } from '../../db/request-transaction.js';
import type { EventRow, WebhookEndpointRow } from '../../db/schema.js';
import { findEventsByIds } from '../events/events.repository.js';
import { toEvent } from '../events/events.serializer.js';
import { createAttemptRecorder } from './webhook-attempt-recorder.js';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  disableEndpoint,
  fanOutEvents,
  findEndpointById,
  releaseClaims,
  updateEndpointHealth,
} from './webhook-endpoints.repository.js';
import { createLeases } from './webhook-leases.js';
import { createWebhookSender, type SendResult } from './webhook-sender.js';
import { createSigner } from './webhook-signature.js';

/**
 * When a failed attempt is tried again, by the Standard Webhooks schedule: the first attempt at
 * once, then after 5 seconds, 5 minutes, 30 minutes, 2, 5, 10 and 10 hours; after the eighth
 * attempt fails the delivery has failed (resend it from `/v1/events/:id/resend`).
 */
export const RETRY_DELAYS_MS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000].map((s) => s * 1000);
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint none of whose attempts has succeeded for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

const DAY_MS = 86_400_000;
const FAN_OUT_BATCH = 500;

/**
 * An attempt starts only while its lease outlasts it by this much: room for the clocks of the
 * processes to disagree (another process compares the lease's end with its own clock).
 */
const CLOCK_SLACK_MS = 2000;

export interface WebhookWorkerOptions {
  /** Private and loopback destinations allowed (SVC_WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /**
   * Runs by itself: every `pollMs` and when kicked. Off, it runs only when `drain()` is called
   * (tests, which then decide when deliveries happen).
   */
  autoRun: boolean;
  /**
   * How long a claim holds its delivery without renewal (SVC_WEBHOOK_LEASE_SECONDS): a process
   * that dies leaves its deliveries to the others within this long. An attempt's time and the
   * clock slack must fit in three quarters of it (renewals come every quarter).
   */
  leaseMs: number;
  /** Per attempt: the whole exchange with the receiver. */
  timeoutMs?: number;
  pollMs?: number;
  /** Endpoints served at once by this process. */
  lanes?: number;
  /** Deliveries claimed for one endpoint at a time (sent one after another, in order). */
  perLane?: number;
}

export interface WebhookWorker {
  /** Runs soon (after the caller's SQL transaction commits), without blocking the caller. */
  kick(): void;
  /** Delivers everything due now, and resolves when nothing is left to do. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The delivery worker of every ingest process (ingest/docs/webhooks.md): it fans new events
 * out to the endpoints that want them, then claims due deliveries and posts them, each endpoint's
 * in order on a lane of its own, so one slow receiver holds up no other. Claims are leases taken
 * with SKIP LOCKED (webhook-endpoints.repository.ts) and renewed while this process works on them
 * (webhook-leases.ts): any number of processes share the work and never make the same attempt
 * twice; the deliveries of a process that died are taken over once their lease runs out. Each
 * attempt is recorded as it completes, so such a takeover makes again only the attempts the dead
 * process had under way.
 */
export function createWebhookWorker(db: Db, logger: Logger, options: WebhookWorkerOptions): WebhookWorker {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxLanes = options.lanes ?? 16;
  const perLane = options.perLane ?? 20;
  const { leaseMs } = options;
  // An attempt needs its time and the slack under a lease renewed every quarter of it.
  if (leaseMs * 0.75 < timeoutMs + CLOCK_SLACK_MS)
    throw new Error(`a webhook lease of ${leaseMs} ms is too short for attempts of ${timeoutMs} ms`);
  const sender = createWebhookSender({ timeoutMs, allowPrivate: options.allowPrivate });
  const leases = createLeases(db, logger, leaseMs);
  const recorder = createAttemptRecorder(db, logger);
  const lanes = new Map<string, Promise<void>>();
  let queue: Promise<unknown> = Promise.resolve();
  let scheduled = false;
  let closed = false;

  /** One pass: fan out what is new, then start lanes for what is due. Whether it found work. */
  async function pass(): Promise<boolean> {
    let worked = false;
    while ((await fanOutEvents(db, { batch: FAN_OUT_BATCH, now: new Date() })) > 0) worked = true;
    while (!closed && lanes.size < maxLanes) {
      const now = new Date();
      const claimed = await claimDueDeliveries(db, {
        now,
        endpoints: maxLanes - lanes.size,
        perEndpoint: perLane,
        leaseUntil: new Date(now.getTime() + leaseMs),
        busy: [...lanes.keys()],
      });
      if (claimed.length === 0) break;
      worked = true;
      leases.take(claimed, now.getTime() + leaseMs);
      for (const [endpointId, deliveries] of byEndpoint(claimed)) {
        const lane = runLane(endpointId, deliveries)
          .catch((err) =>
            logger.error({ err, endpointId }, 'webhook delivery lane failed; its deliveries are retried when their lease runs out'),
          )
          .finally(() => {
            lanes.delete(endpointId);
            if (options.autoRun) schedule();
          });
        lanes.set(endpointId, lane);
      }
    }
    return worked;
  }

  /** Passes run one at a time in this process. */
  function runPass(): Promise<boolean> {
    const run = queue.then(pass);
    queue = run.catch(() => {});
    return run;
  }

  function schedule(): void {
    if (scheduled || closed) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      runPass().catch((err) => logger.error({ err }, 'webhook delivery pass failed; will retry'));
    });
  }

  async function runLane(endpointId: string, deliveries: ClaimedDelivery[]): Promise<void> {
    let sent = 0;
    // The record of the lane's latest attempt: whether it was written.
    let recorded: Promise<boolean> = Promise.resolve(true);
    let since: Date | null = null;
    let hadSuccess = false;
    let lastError = '';
    let endpoint: WebhookEndpointRow | undefined;
    try {
      endpoint = await findEndpointById(db, endpointId);
      // Disabled or deleted since the claim: nothing is sent, and the claims go back.
      if (!endpoint || endpoint.deleted_at !== null || !endpoint.enabled) return;
      const events = new Map(
        (
          await findEventsByIds(
            db,
            deliveries.map((d) => d.event_id),
          )
        ).map((e) => [e.id, e]),
      );
      const sign = createSigner(secretsOf(endpoint, new Date()));
      for (const delivery of deliveries) {
        // An attempt must end within the lease: past it, another process may make the same attempt.
        if (!(await leases.holds(delivery, timeoutMs + CLOCK_SLACK_MS))) break;
        const started = new Date();
        const result = await attempt(endpoint, delivery, events.get(delivery.event_id), sign, started);
        sent++;
        // The attempt before this one was being recorded meanwhile. One record under way per lane:
        // a crash makes again at most this attempt and the one being recorded. A record that
        // could not be written (SQL down) stops the lane: what it sent next would be made again.
        const previousWritten = await recorded;
        recorded = recorder.record(outcomeOf(delivery, result, started)).finally(() => leases.letGo([delivery]));
        if (result.ok) {
          hadSuccess = true;
          since = null;
        } else {
          since ??= started;
          lastError = result.error ?? '';
        }
        if (!previousWritten) break;
      }
    } finally {
      await recorded;
      // What was not sent is given back, due at once, even when the lane stops early.
      await releaseClaims(db, deliveries.slice(sent), new Date()).catch((err) =>
        logger.warn(
          { reason: (err as Error).message, endpointId },
          'giving webhook deliveries back failed; they are due when their lease ends',
        ),
      );
      leases.letGo(deliveries);
    }
    // A healthy endpoint that was healthy before has nothing to record.
    if (since === null && endpoint.failing_since === null) return;
    const failingSince = await updateEndpointHealth(db, endpointId, { since, hadSuccess });
    const now = new Date();
    if (failingSince && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS) {
      const days = Math.floor((now.getTime() - failingSince.getTime()) / DAY_MS);
      const reason = `Every delivery attempt failed for ${days} days, since ${failingSince.toISOString()}; the last: ${lastError}`;
      if (await disableEndpoint(db, endpointId, reason, now))
        logger.warn({ endpointId, failingSince }, 'webhook endpoint disabled: failing for 5 days');
    }
  }

  /** One attempt; never throws. A failure that trying again cannot mend is not `retryable`. */
  async function attempt(
    endpoint: WebhookEndpointRow,
    delivery: ClaimedDelivery,
    event: EventRow | undefined,
    sign: ReturnType<typeof createSigner>,
    at: Date,
  ): Promise<Attempted> {
    const final = (error: string): Attempted => ({ ok: false, status: null, body: null, durationMs: 0, error, retryable: false });
    if (!event) return final('the event no longer exists');
    // Claims whose attempts were lost with their process count too: the schedule still ends.
    if (delivery.attempt_count > MAX_ATTEMPTS) return final('given up: earlier attempts were lost with the process that made them');
    let body: string;
    let headers: Record<string, string>;
    try {
      body = JSON.stringify(toEvent(event));
      headers = { ...sign(event.id, body, at) };
    } catch (err) {
      logger.error({ err, eventId: event.id }, 'a webhook event could not be built');
      return final(`the event could not be built: ${(err as Error).message}`);
    }
    return { ...(await sender.send(endpoint.url, headers, body)), retryable: true };
  }

  const timer = options.autoRun ? setInterval(schedule, options.pollMs ?? 1000) : undefined;
  timer?.unref();

  return {
    kick: () => {
      if (options.autoRun) afterCommit(schedule);
    },
    async drain() {
      for (;;) {
        const worked = await runPass();
        if (lanes.size > 0) await Promise.allSettled([...lanes.values()]);
        else if (!worked) return;
      }
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await queue;
      await Promise.allSettled([...lanes.values()]);
      await Promise.all([recorder.close(), leases.close()]);
      sender.close();
    },
  };
}

type Attempted = SendResult & { retryable: boolean };

/** What an attempt makes of its delivery: the log entry, and whether and when to try again. */
function outcomeOf(delivery: ClaimedDelivery, result: Attempted, started: Date): AttemptOutcome {
  const retry = !result.ok && result.retryable && delivery.attempt_count < MAX_ATTEMPTS;
  return {
    deliveryId: delivery.id,
    entry: {
      attempt: delivery.attempt_count,
      status: result.ok ? 'succeeded' : 'failed',
      response_status: result.status,
      response_body: result.body,
      duration_ms: result.durationMs,
      error: result.error,
      created_at: started.toISOString(),
    },
    status: result.ok ? 'succeeded' : retry ? 'pending' : 'failed',
    nextAttemptAt: retry ? new Date(Date.now() + RETRY_DELAYS_MS[delivery.attempt_count - 1]) : null,
  };
}

/** The secrets that sign now: the current one, and the one it replaced while their overlap lasts. */
function secretsOf(endpoint: WebhookEndpointRow, at: Date): string[] {
  const previous =
    endpoint.previous_secret_expires_at && new Date(endpoint.previous_secret_expires_at) > at ? endpoint.previous_secret : null;
  return previous ? [endpoint.secret, previous] : [endpoint.secret];
}

/** Claimed deliveries grouped by endpoint, each group in the order it is due. */
function byEndpoint(claimed: ClaimedDelivery[]): Map<string, ClaimedDelivery[]> {
  const groups = new Map<string, ClaimedDelivery[]>();
  for (const d of [...claimed].sort((a, b) => a.seq - b.seq)) {
    const group = groups.get(d.endpoint_id) ?? [];
    group.push(d);
    groups.set(d.endpoint_id, group);
  }
  return groups;
}
