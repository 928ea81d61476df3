import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { approveDueBatch } from './commissions.repository.js';

const BATCH = 500;

/**
 * Approves the scheduled commissions that are due, a batch at a time until a batch comes back
 * short. Safe on any number of processes at once (see approveDueBatch): a commission that is
 * skipped because another process holds it is approved by that process (or by the next run, if
 * that process fails).
 */
export async function approveDueCommissions(db: Db, now: Date = new Date()): Promise<number> {
  let approved = 0;
  for (;;) {
    const ids = await approveDueBatch(db, now, BATCH);
    approved += ids.length;
    if (ids.length < BATCH) return approved;
  }
}

export interface ApprovalJob {
  /** Runs once now (joining a run in progress); resolves to the number approved. */
  runNow(): Promise<number>;
  close(): Promise<void>;
}

/** Runs `approveDueCommissions` now and then every `intervalSeconds`, one run at a time in this process. */
export function startApprovalJob(db: Db, logger: Logger, intervalSeconds: number): ApprovalJob {
  let running: Promise<number> | null = null;
  const runNow = () => {
    running ??= approveDueCommissions(db)
      .then((n) => {
        if (n > 0) logger.info({ approved: n }, 'approved due commissions');
        return n;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const tick = () => runNow().catch((err) => logger.error({ err }, 'commission approval run failed'));
  const timer = setInterval(tick, intervalSeconds * 1000);
  timer.unref();
  void tick();
  return {
    runNow,
    async close() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
