import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';

const BATCH = 500;

/**
 * Approves the scheduled commissions that are due. Safe on any number of processes at once:
 * each batch is claimed with `FOR UPDATE SKIP LOCKED` and the update re-checks `pending`, so a
 * commission is approved exactly once, and one that is skipped because another process holds
 * it is approved by that process (or by the next run, if that process fails). The claim is a
 * materialized CTE so it runs once, before the update, whatever plan the planner picks.
 */
export async function approveDueCommissions(db: Db, now: Date = new Date()): Promise<number> {
  let approved = 0;
  for (;;) {
    const { rows } = await sql<{ id: string }>`
      with due as materialized (
        select id from commissions
         where status = 'pending' and approval_type = 'scheduled' and deleted_at is null
           and scheduled_approval_date <= ${now}
         order by scheduled_approval_date
         limit ${BATCH}
         for update skip locked)
      update commissions c set status = 'approved', updated_at = now()
        from due
       where c.id = due.id and c.status = 'pending'
      returning c.id`.execute(db);
    approved += rows.length;
    if (rows.length < BATCH) return approved;
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
