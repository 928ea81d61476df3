import type { Db } from './database.js';

const DEADLOCK_DETECTED = '40P01';
const ATTEMPTS = 3;

/**
 * Runs `work` again when PostgreSQL aborted it to break a deadlock. The sharded counters
 * (partner_stats, list_counts) are locked statement by statement, so two writers that share a
 * shard can meet in opposite orders; the loser is rolled back whole and simply runs again.
 * `work` must do nothing but SQL, so that a second run is the same as the first.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= ATTEMPTS || (err as { code?: string } | null)?.code !== DEADLOCK_DETECTED) throw err;
    }
  }
}

/** One SQL transaction around `work`, run again if a deadlock aborted it. */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return retryOnDeadlock(() => db.transaction().execute(work));
}
