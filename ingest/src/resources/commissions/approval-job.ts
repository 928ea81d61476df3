import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { type PeriodicJob, startPeriodicJob } from '../../periodic-job.js';
import { addApprovedEntriesToPayouts } from '../payouts/payouts.service.js';
import { approveDueBatch } from './commissions.repository.js';

const BATCH = 500;

/**
 * Approves the scheduled commissions that are due, a batch at a time until a batch comes back
 * short. Safe on any number of processes at once (see approveDueBatch): a commission that is
 * skipped because another process holds it is approved by that process (or by the next run, if
 * that process fails). A refund entry approved after its reward went into a pending payout goes
 * into it too, in the batch's SQL transaction (addApprovedEntriesToPayouts).
 */
export async function approveDueCommissions(db: Db, now: Date = new Date()): Promise<number> {
  let approved = 0;
  for (;;) {
    const count = await inTransaction(db, async (trx) => {
      const batch = await approveDueBatch(trx, now, BATCH);
      await addApprovedEntriesToPayouts(
        trx,
        batch.filter((c) => c.type === 'refund'),
        new Date(),
      );
      return batch.length;
    });
    approved += count;
    if (count < BATCH) return approved;
  }
}

export type ApprovalJob = PeriodicJob<number>;

/** Runs `approveDueCommissions` now and then every `intervalSeconds`, one run at a time in this process. */
export function startApprovalJob(db: Db, logger: Logger, intervalSeconds: number, onRun?: (approved: number) => void): ApprovalJob {
  return startPeriodicJob(
    async () => {
      const n = await approveDueCommissions(db);
      if (n > 0) logger.info({ approved: n }, 'approved due commissions');
      onRun?.(n);
      return n;
    },
    intervalSeconds,
    (err) => logger.error({ err }, 'commission approval run failed'),
  );
}
