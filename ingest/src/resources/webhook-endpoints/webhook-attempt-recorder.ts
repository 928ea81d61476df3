import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { type AttemptOutcome, recordAttempts } from './webhook-endpoints.repository.js';

/**
 * Writes webhook attempts to their deliveries' logs as they complete
 * (ingest/docs/webhooks.md#delivery), every lane's together: one statement at a time per process,
 * carrying every attempt that completed while the one before was written. A process serving many
 * endpoints thus spends one pooled connection and one commit a round, not one per attempt, and an
 * attempt waits for its record no longer than about two statements.
 */
export interface AttemptRecorder {
  /**
   * Resolves once the attempt is written: true, or false when it could not be (logged; its
   * delivery is attempted again once its lease ends). Never rejects.
   */
  record(outcome: AttemptOutcome): Promise<boolean>;
  /** Resolves when every record asked for is written or given up. */
  close(): Promise<void>;
}

export function createAttemptRecorder(db: Db, logger: Logger): AttemptRecorder {
  let waiting: { outcome: AttemptOutcome; done: (written: boolean) => void }[] = [];
  let writing: Promise<void> | null = null;

  async function writeAll(): Promise<void> {
    // Attempts completed in the same turn of the event loop join this statement.
    await Promise.resolve();
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      let written = true;
      try {
        await persistently(() =>
          recordAttempts(
            db,
            batch.map((w) => w.outcome),
            new Date(),
          ),
        );
      } catch (err) {
        written = false;
        logger.error(
          { reason: (err as Error).message, deliveryIds: batch.map((w) => w.outcome.deliveryId) },
          'webhook attempts could not be recorded; they are made again once their lease ends',
        );
      }
      for (const w of batch) w.done(written);
    }
    writing = null;
  }

  return {
    record(outcome) {
      return new Promise((done) => {
        waiting.push({ outcome, done });
        writing ??= writeAll();
      });
    },
    async close() {
      await writing;
    },
  };
}

/**
 * A write that must not be lost (its attempts would be made again): tried three times. Writing
 * the same attempts twice is harmless (`recordAttempts` adds no second log entry).
 */
async function persistently(write: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await write();
    } catch (err) {
      if (tries === 3) throw err;
      await new Promise((r) => setTimeout(r, 250 * 4 ** (tries - 1)));
    }
  }
}
