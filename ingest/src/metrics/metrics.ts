import type { RequestHandler } from 'express';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type Db, poolOf } from '../db/database.js';
import { type SharedStore, STORE_COMMAND_TIMEOUT_MS } from '../store/store.js';
import { withTimeout } from '../with-timeout.js';
import { backlogCache } from './backlog-cache.js';
import { routeLabel } from './route-label.js';

/**
 * The process's Prometheus metrics (ingest/docs/metrics.md): the instruments the code records
 * into, and the gauges read when scraped. Served on a port of its own (metrics-server.ts).
 */
export interface Metrics {
  readonly registry: Registry;
  /** Times every response by method, route template and status (first middleware of the app). */
  readonly httpRequests: RequestHandler;
  /** One statement of the click writer committed `rows` clicks. */
  readonly clicksCommitted: (rows: number) => void;
  /**
   * A Stripe event was received and handled (or found handled before: `duplicate`), or its
   * handling failed and was answered 5xx (`fault`: Stripe delivers it again).
   */
  readonly stripeEventHandled: (status: string, duplicate: boolean) => void;
  /** A run of the approval job finished and approved `approved` commissions. */
  readonly approvalRan: (approved: number) => void;
}

export interface MetricsSources {
  db: Db;
  store: SharedStore;
  /** The clock of the backlog cache (tests move it instead of waiting). */
  now?: () => number;
}

const CLICK_BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500];

export function createMetrics({ db, store, now = Date.now }: MetricsSources): Metrics {
  const registry = new Registry();
  // Node's own figures under their standard names (process_*, nodejs_*: event-loop lag, heap, RSS…),
  // so that ready-made dashboards for Node.js work unchanged.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP responses of the public port, by method, route template and status; _count counts them',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const clicks = new Counter({ name: 'svc_clicks_recorded_total', help: 'Clicks written to SQL', registers });
  const clickBatches = new Histogram({
    name: 'svc_click_batch_size',
    help: 'Clicks per INSERT of the click writer (its group commit)',
    buckets: CLICK_BATCH_BUCKETS,
    registers,
  });
  const stripeEvents = new Counter({
    name: 'svc_stripe_events_total',
    help: 'Stripe events received with a valid signature, by outcome (processed, ignored, failed, error, duplicate, fault)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const approvalLastRun = new Gauge({
    name: 'svc_approval_last_run_timestamp_seconds',
    help: 'When the commission approval job of this process last finished a run (Unix time)',
    registers,
  });
  const approvalApproved = new Gauge({
    name: 'svc_approval_last_run_approved',
    help: 'Commissions the last run of the approval job approved',
    registers,
  });

  const pool = poolOf(db);
  if (pool) {
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'PostgreSQL connections of this process, by state (in_use, idle)',
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
      },
    });
    new Gauge({
      name: 'svc_db_pool_waiting',
      help: 'Queries waiting for a PostgreSQL connection of this process',
      registers,
      collect() {
        this.set(pool.waitingCount);
      },
    });
  }

  new Gauge({
    name: 'svc_shared_store_up',
    help: 'Whether the shared store answers a ping (1) or not (0); kind is redis, or memory (in-process, always up)',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      const up = await withTimeout(store.ping(), STORE_COMMAND_TIMEOUT_MS).then(
        () => 1,
        () => 0,
      );
      this.set({ kind: store.kind }, up);
    },
  });

  // Each backlog gauge awaits the same cached reading when scraped (prom-client collects them
  // side by side): one SQL read per family serves them all, at most once per BACKLOG_MAX_AGE_MS.
  const backlogs = backlogCache(db, { now });
  new Gauge({
    name: 'svc_backlog_read_failed',
    help: 'Whether the latest read of the webhook and e-mail backlogs from SQL failed (1): their gauges then hold the last values read',
    registers,
    async collect() {
      this.set((await backlogs()).failed ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svc_backlog_read_timestamp_seconds',
    help: 'When the backlog gauges were last read from SQL (Unix time; absent until the first read succeeds)',
    registers,
    async collect() {
      const { readAt } = await backlogs();
      if (readAt !== null) this.set(readAt / 1000);
    },
  });
  new Gauge({
    name: 'svc_webhook_deliveries',
    help: 'Webhook deliveries of every organization: pending (to be attempted) and failed (given up), as last read',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const { last } = await backlogs();
      if (!last) return;
      this.set({ status: 'pending' }, last.webhooks.pending);
      this.set({ status: 'failed' }, last.webhooks.failed);
    },
  });
  new Gauge({
    name: 'svc_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none is pending), from the last read',
    registers,
    async collect() {
      const { last } = await backlogs();
      if (!last) return;
      const oldest = last.webhooks.oldestPendingAt;
      this.set(oldest ? Math.max(0, (now() - oldest.getTime()) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'svc_emails',
    help: 'Unsent e-mails of the outbox: waiting (attempts left) and failed (every attempt used), as last read',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const { last } = await backlogs();
      if (!last) return;
      this.set({ state: 'waiting' }, last.emails.waiting);
      this.set({ state: 'failed' }, last.emails.failed);
    },
  });

  const httpRequests: RequestHandler = (req, res, next) => {
    const stop = httpDuration.startTimer();
    res.once('finish', () => stop({ method: req.method, route: routeLabel(req), status: String(res.statusCode) }));
    next();
  };

  return {
    registry,
    httpRequests,
    clicksCommitted: (rows) => {
      clicks.inc(rows);
      clickBatches.observe(rows);
    },
    stripeEventHandled: (status, duplicate) => {
      stripeEvents.inc({ outcome: duplicate ? 'duplicate' : status });
    },
    approvalRan: (approved) => {
      approvalLastRun.set(Date.now() / 1000);
      approvalApproved.set(approved);
    },
  };
}
