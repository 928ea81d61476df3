import type { Logger } from 'pino';
import type { Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/database.js';
import type { AppDeps } from './deps.js';
import { createMailer } from './mail/mailer.js';
import { startApprovalJob } from './resources/commissions/approval-job.js';
import { openStore } from './store/index.js';

export interface Runtime extends AppDeps {
  close(): Promise<void>;
}

/** Opens SQL and shared state from the configuration and migrates SQL to the latest schema. */
export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const db = openDatabase(config.database);
  const store = openStore(config.redisUrl);
  try {
    await migrateToLatest(db);
  } catch (err) {
    await Promise.allSettled([db.destroy(), store.close()]);
    throw err;
  }
  const mailer = createMailer(config, db, logger);
  const approvals = startApprovalJob(db, logger, config.approvalIntervalSeconds);
  return {
    config,
    db,
    store,
    logger,
    mailer,
    async close() {
      await Promise.all([mailer.close(), approvals.close()]);
      await Promise.allSettled([store.close(), db.destroy()]);
    },
  };
}
