import type { Db } from '../db/database.js';
import { MAX_ATTEMPTS } from '../mail/mailer.js';
import { type EmailBacklog, selectEmailBacklog } from '../mail/outbox.js';
import { type DeliveryBacklog, selectDeliveryBacklog } from '../resources/webhook-endpoints/webhook-endpoints.repository.js';
import { withTimeout } from '../with-timeout.js';

/** How long a reading of the backlogs is served before SQL is asked again (ingest/docs/metrics.md#backlogs). */
export const BACKLOG_MAX_AGE_MS = 10_000;
/** A reading that takes longer counts as failed, so a scrape never waits on a stuck database. */
const READ_TIMEOUT_MS = 2_000;

export interface Backlogs {
  webhooks: DeliveryBacklog;
  emails: EmailBacklog;
}

export interface BacklogReading {
  /** The last values read; null until a read has succeeded once. */
  last: Backlogs | null;
  /** When `last` was read (ms since the epoch); null until a read has succeeded once. */
  readAt: number | null;
  /** Whether the latest attempt to read failed (the values are then the last known ones). */
  failed: boolean;
}

/**
 * The webhook and e-mail backlogs, read from SQL at most once per `maxAgeMs` however often
 * the metrics are scraped (one statement per family), so a scraper hammering the metrics port
 * cannot load the database. A failed read keeps the last values and says it failed.
 */
export function backlogCache(db: Db, options: { maxAgeMs?: number; now?: () => number } = {}): () => Promise<BacklogReading> {
  const maxAgeMs = options.maxAgeMs ?? BACKLOG_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  const reading: BacklogReading = { last: null, readAt: null, failed: false };
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<BacklogReading> | null = null;

  async function read(): Promise<BacklogReading> {
    try {
      const [webhooks, emails] = await withTimeout(
        Promise.all([selectDeliveryBacklog(db), selectEmailBacklog(db, MAX_ATTEMPTS)]),
        READ_TIMEOUT_MS,
      );
      reading.last = { webhooks, emails };
      reading.readAt = now();
      reading.failed = false;
    } catch {
      reading.failed = true;
    }
    return reading;
  }

  return () => {
    // A failed read is retried no sooner than a successful one: a database that is down is not hammered either.
    if (inFlight || now() - attemptedAt < maxAgeMs) return inFlight ?? Promise.resolve(reading);
    attemptedAt = now();
    inFlight = read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
