import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Mailer } from './mail/mailer.js';
import type { Metrics } from './metrics/metrics.js';
import type { ClickWriter } from './resources/clicks/click-writer.js';
import type { WebhookWorker } from './resources/webhook-endpoints/webhook-worker.js';
import type { SharedStore } from './store/index.js';

/** What the app is built from; tests build it with their own database and store. */
export interface AppDeps {
  config: Config;
  db: Db;
  store: SharedStore;
  logger: Logger;
  mailer: Mailer;
  /** Delivers webhooks; `kick()` after queueing deliveries. */
  webhooks: WebhookWorker;
  /** The Prometheus metrics, when SVC_METRICS_PORT is set (ingest/docs/metrics.md); else nothing is measured. */
  metrics?: Metrics;
}

/** What a resource module needs to register its routes. */
export interface RouteDeps extends AppDeps {
  /** Authentication, rate limit and idempotency for the secret-key API. */
  secretGuards: RequestHandler[];
  /** Click inserts, grouped into multi-row statements (both click endpoints share it). */
  writeClick: ClickWriter;
}
