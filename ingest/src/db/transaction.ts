import type { Db } from './database.js';
import { isDeadlock } from './errors.js';
import { inRequestTransaction } from './request-transaction.js';

const ATTEMPTS = 3;

/**
 * Runs `work` again when PostgreSQL aborted it to break a deadlock. The sharded counters
 * (partner_stats, list_counts) are locked statement by statement, so two writers that share a
 * shard can meet in opposite orders; the loser is rolled back whole and simply runs again.
 * `work` must do nothing but SQL through the `q` it is given, so that a second run is the same
 * as the first. Inside a request's transaction each run gets a savepoint (an SQL transaction
 * there), so a deadlock undoes only that run and not the request.
 */
export function retryOnDeadlock<T>(db: Db, work: (q: Db) => Promise<T>): Promise<T> {
  return retrying(inRequestTransaction() ? () => db.transaction().execute(work) : () => work(db));
}

/** One SQL transaction around `work`, run again if a deadlock aborted it. */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return retrying(() => db.transaction().execute(work));
}

async function retrying<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= ATTEMPTS || !isDeadlock(err)) throw err;
    }
  }
}
