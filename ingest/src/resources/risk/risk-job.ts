import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { type PeriodicJob, startPeriodicJob } from '../../periodic-job.js';
import {
  claimClickCheck,
  floodedVisitors,
  insertRiskEvents,
  partnersWithoutPayoutAccount,
  programsToCheck,
  setClickCheck,
  setPayoutAccount,
} from './risk.repository.js';
import { eventRow, flagSharedPayoutAccount } from './risk-flags.js';
import { payoutAccountOf } from './risk-identity.js';
import { rulesOf } from './risk-rules.js';

/**
 * The risk rules that look at a window of time rather than one change (ingest/docs/risk.md):
 * click flooding, checked every `intervalSeconds` over the clicks made since the last check, so
 * nothing is added to the click's own path. Safe on any number of processes: each program's check
 * is claimed in SQL (SKIP LOCKED) and moves its mark forward in the same transaction.
 */

/** Clicks are committed in group commits a moment after they are made: a check looks this far back again. */
const LATE_CLICK_MS = 10_000;

/** Checks the clicks of every program made since its last check; answers the events made. */
export async function checkClickFlooding(db: Db, now: Date = new Date()): Promise<number> {
  let made = 0;
  for (const program of await programsToCheck(db)) {
    const rule = rulesOf(program).click_flooding;
    made += await inTransaction(db, async (trx) => {
      const checkedUntil = await claimClickCheck(trx, program.id, now);
      if (!checkedUntil) return 0; // another process checks this program now
      const from = new Date(Math.min(checkedUntil.getTime(), now.getTime()) - LATE_CLICK_MS);
      let events = 0;
      if (rule.enabled) {
        const flooded = await floodedVisitors(trx, program.id, from, now, rule.max_clicks_per_hour);
        const rows = flooded.map((f) =>
          eventRow(
            {
              organization_id: program.organization_id,
              program_id: program.id,
              partner_id: f.partner_id,
              rule: 'click_flooding',
              holds: 'visitor',
              click_id: f.first_click_id,
              visitor_hash: f.visitor_hash,
              // One event per browser, partner and day: a flood that goes on is not flagged again every minute.
              dedupe_key: `click_flooding:${f.partner_id}:${f.visitor_hash}:${f.first_click_at.toISOString().slice(0, 10)}`,
              evidence: {
                clicks_in_hour: f.clicks_in_hour,
                max_clicks_per_hour: rule.max_clicks_per_hour,
                extra_clicks: f.extra_clicks,
                first_extra_click_id: f.first_click_id,
              },
            },
            now,
          ),
        );
        events = (await insertRiskEvents(trx, rows)).length;
      }
      await setClickCheck(trx, program.id, now);
      return events;
    });
  }
  return made;
}

const BACKFILL_BATCH = 500;

/**
 * Partners saved before the shared payout account rule have no normalised account yet: each is
 * given one (or '' when their details name none) and checked against the others, a batch at a
 * time. Once every partner has one, this is one indexless query that finds none.
 */
export async function backfillPayoutAccounts(db: Db): Promise<number> {
  let done = 0;
  for (;;) {
    const count = await inTransaction(db, async (trx) => {
      const partners = await partnersWithoutPayoutAccount(trx, BACKFILL_BATCH);
      for (const partner of partners) {
        const account = payoutAccountOf(partner.payout_method, partner.payout_details) ?? '';
        const updated = await setPayoutAccount(trx, partner.id, account);
        if (updated && account) await flagSharedPayoutAccount(trx, updated);
      }
      return partners.length;
    });
    done += count;
    if (count < BACKFILL_BATCH) return done;
  }
}

export type RiskJob = PeriodicJob<number>;

/** Backfills payout accounts once, then checks for click flooding now and every `intervalSeconds`, one run at a time in this process. */
export function startRiskJob(db: Db, logger: Logger, intervalSeconds: number): RiskJob {
  let backfilled = false;
  return startPeriodicJob(
    async () => {
      if (!backfilled) {
        const n = await backfillPayoutAccounts(db);
        if (n > 0) logger.info({ partners: n }, 'normalised the payout accounts of partners saved before the risk rules');
        backfilled = true;
      }
      const made = await checkClickFlooding(db);
      if (made > 0) logger.info({ events: made }, 'flagged click flooding');
      return made;
    },
    intervalSeconds,
    (err) => logger.error({ err }, 'risk check run failed'),
  );
}
