import type { Logger } from 'pino';
import { openHeldPglite } from './backup/embedded.js';
import type { Config } from './config.js';
import { type Db, migrateToLatest, openDatabase, waitForDatabase } from './db/database.js';
import type { AppDeps } from './deps.js';
import { purgeExpiredRecords } from './http/idempotency-records.js';
import { createMailer } from './mail/mailer.js';
import { createMetrics } from './metrics/metrics.js';
import { startApprovalJob } from './resources/commissions/approval-job.js';
import { purgeOldEvents } from './resources/events/events.service.js';
import { purgeExpiredPartnerAccess } from './resources/partner-access/partner-access.service.js';
import { forgetOldPartnerBrowsers } from './resources/risk/risk-flags.js';
import { startRiskJob } from './resources/risk/risk-job.js';
import { forgetStaleWaitingEvents } from './resources/stripe/stripe.service.js';
import { hashNewPasswordsCheaply } from './resources/users/passwords.js';
import { purgeExpiredSessions } from './resources/users/users.service.js';
import { purgeOldDeliveries } from './resources/webhook-endpoints/webhook-endpoints.service.js';
import { createWebhookWorker } from './resources/webhook-endpoints/webhook-worker.js';
import { openStore } from './store/index.js';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export interface Runtime extends AppDeps {
  close(): Promise<void>;
}

/** Where PostgreSQL is, for log lines: host, port and database, never the password. */
function describeDatabase(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/**
 * Opens SQL and shared state from the configuration and migrates SQL to the latest schema.
 * PostgreSQL that is not up yet is waited for (SVC_DB_WAIT_SECONDS); Redis that is down is no
 * reason not to start (the shared store works degraded until it is back).
 */
export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  if (config.testHooks) {
    // The browser tests make and sign in dashboard users dozens of times (passwords.ts).
    hashNewPasswordsCheaply();
    logger.warn('test hooks on (SVC_TEST_HOOKS=1): new dashboard passwords are hashed at a test cost; never in production');
  }
  // PGlite on disk is held by this process alone, and answers `svc backup` (ingest/docs/backups.md).
  const held = await openHeldPglite(config.database, logger);
  const db =
    held?.db ??
    openDatabase(config.database, {
      onIdleConnectionError: (err) =>
        logger.warn({ reason: err.message }, 'an idle PostgreSQL connection was lost; the pool opens a new one when needed'),
    });
  const store = openStore(config.redisUrl);
  try {
    if (config.database.kind === 'postgres') await waitForPostgres(db, config, describeDatabase(config.database.url), logger);
    await migrateToLatest(db, {
      onNewerSchema: (newer) =>
        logger.warn({ newer }, `the database is ahead of this release (${newer.join(', ')}): serving on it, as during a rolling upgrade`),
      onGaveWay: (attempt, waitMs, reason) =>
        logger.info({ attempt, reason }, `a migration gave way to the running traffic's locks; it runs again in ${waitMs} ms`),
    });
  } catch (err) {
    await Promise.allSettled([db.destroy(), store.close()]);
    await held?.release();
    throw err;
  }
  const mailer = createMailer(config, db, logger);
  const metrics = config.metricsPort === undefined ? undefined : createMetrics({ db, store });
  const approvals = startApprovalJob(db, logger, config.approvalIntervalSeconds, metrics?.approvalRan);
  const risk = startRiskJob(db, logger, config.riskIntervalSeconds);
  const webhooks = createWebhookWorker(db, logger, {
    allowPrivate: config.webhooksAllowPrivate,
    autoRun: config.webhookDelivery,
    leaseMs: config.webhookLeaseSeconds * 1000,
  });
  const purge = setInterval(() => {
    purgeExpiredRecords(db).catch((err) =>
      logger.warn({ reason: (err as Error).message }, 'purging expired Idempotency-Key records failed; will retry'),
    );
    forgetStaleWaitingEvents(db).catch((err) =>
      logger.warn({ reason: (err as Error).message }, 'forgetting the payloads of stale waiting Stripe events failed; will retry'),
    );
    Promise.all([purgeOldDeliveries(db), purgeOldEvents(db)]).catch((err) =>
      logger.warn({ reason: (err as Error).message }, 'purging old events and webhook deliveries failed; will retry'),
    );
    Promise.all([purgeExpiredSessions(db), purgeExpiredPartnerAccess(db), forgetOldPartnerBrowsers(db)]).catch((err) =>
      logger.warn({ reason: (err as Error).message }, 'purging expired dashboard and portal sessions failed; will retry'),
    );
  }, PURGE_INTERVAL_MS);
  purge.unref();
  return {
    config,
    db,
    store,
    logger,
    mailer,
    webhooks,
    metrics,
    async close() {
      clearInterval(purge);
      await Promise.all([mailer.close(), approvals.close(), risk.close(), webhooks.close()]);
      await Promise.allSettled([store.close(), db.destroy()]);
      await held?.release();
    },
  };
}

async function waitForPostgres(db: Db, config: Config, where: string, logger: Logger): Promise<void> {
  try {
    await waitForDatabase(db, {
      timeoutMs: config.databaseWaitSeconds * 1000,
      onRetry: ({ attempt, delayMs, error }) =>
        logger.warn({ attempt, retryInMs: delayMs, reason: (error as Error).message }, `waiting for PostgreSQL at ${where}`),
    });
  } catch (err) {
    throw new Error(
      `PostgreSQL at ${where} did not answer within ${config.databaseWaitSeconds} s (SVC_DB_WAIT_SECONDS): ${(err as Error).message}`,
      { cause: err },
    );
  }
}
