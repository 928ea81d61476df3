import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { afterCommit } from '../../db/request-transaction.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { findEventsByIds } from '../events/events.repository.js';
import { toEvent } from '../events/events.serializer.js';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  disableEndpoint,
  fanOutEvents,
  findEndpointsByIds,
  recordAttempts,
  updateEndpointHealth,
} from './webhook-endpoints.repository.js';
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

export interface WebhookWorkerOptions {
  /** Private and loopback destinations allowed (SVC_WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /**
   * Runs by itself: every `pollMs` and when kicked. Off, it runs only when `drain()` is called
   * (tests, which then decide when deliveries happen).
   */
  autoRun: boolean;
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
 * The delivery worker of every ingest process (README, "Webhooks and events"): it fans new events
 * out to the endpoints that want them, then claims due deliveries and posts them, each endpoint's
 * in order on a lane of its own, so one slow receiver holds up no other. Claims are leases taken
 * with SKIP LOCKED (webhook-endpoints.repository.ts): any number of processes share the work and
 * never make the same attempt twice; an attempt lost with its process is made again once its lease
 * runs out.
 */
export function createWebhookWorker(db: Db, logger: Logger, options: WebhookWorkerOptions): WebhookWorker {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxLanes = options.lanes ?? 16;
  const perLane = options.perLane ?? 20;
  // A lane sends its deliveries one after another: its lease covers all of them timing out.
  const leaseMs = perLane * timeoutMs + 60_000;
  const sender = createWebhookSender({ timeoutMs, allowPrivate: options.allowPrivate });
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
    const [endpoint] = await findEndpointsByIds(db, [endpointId]);
    const events = new Map(
      (
        await findEventsByIds(
          db,
          deliveries.map((d) => d.event_id),
        )
      ).map((e) => [e.id, e]),
    );
    const sign = createSigner(secretsOf(endpoint, new Date()));
    const outcomes: AttemptOutcome[] = [];
    let since: Date | null = null;
    let hadSuccess = false;
    let lastError = '';
    try {
      for (const delivery of deliveries) {
        const event = events.get(delivery.event_id);
        const started = new Date();
        let result: SendResult = { ok: false, status: null, body: null, durationMs: 0, error: 'the event no longer exists' };
        if (event) {
          const body = JSON.stringify(toEvent(event));
          result = await sender.send(endpoint.url, { ...sign(event.id, body, started) }, body);
        }
        const retry = !result.ok && event !== undefined && delivery.attempt_count < MAX_ATTEMPTS;
        outcomes.push({
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
        });
        if (result.ok) {
          hadSuccess = true;
          since = null;
        } else {
          since ??= started;
          lastError = result.error ?? '';
        }
      }
    } finally {
      // What was sent is recorded even when the lane stops early.
      if (outcomes.length) await recordAttempts(db, outcomes, new Date());
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
      sender.close();
    },
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
