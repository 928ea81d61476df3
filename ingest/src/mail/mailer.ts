import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { afterCommit } from '../db/request-transaction.js';
import { brandedEmailHtml } from '../resources/branding/branding.service.js';
import { fileDelivery, smtpDelivery } from './delivery.js';
import { claimDueEmails, markEmailFailed, markEmailSent } from './outbox.js';

const BATCH = 20;
/** Attempts before a message is given up (counted as failed by the metrics, ingest/docs/metrics.md). */
export const MAX_ATTEMPTS = 8;
// A claimed message is invisible to other processes for this long, so a crash mid-send retries it.
const LEASE_SECONDS = 300;
const POLL_MS = 30_000;

export interface Mailer {
  /** Sends what is due soon, without blocking the caller. */
  kick(): void;
  /** Sends every due message now; resolves when done. */
  drain(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Sends the e-mail outbox with nodemailer: over SMTP when `SMTP_URL` is set, otherwise each
 * message is written as an .eml file to the outbox directory. Safe with several processes:
 * messages are claimed with a lease taken under `FOR UPDATE SKIP LOCKED`.
 */
export function createMailer(config: Config, db: Db, logger: Logger): Mailer {
  const deliver = config.smtp.url ? smtpDelivery(config.smtp.url, config.smtp.from) : fileDelivery(config.outboxDir, config.smtp.from);
  let running: Promise<number> | null = null;
  let again = false;
  let closed = false;

  async function sendDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const claimed = await claimDueEmails(db, { batch: BATCH, leaseSeconds: LEASE_SECONDS, maxAttempts: MAX_ATTEMPTS });
      if (claimed.length === 0) return sent;
      for (const m of claimed) {
        try {
          // An e-mail about a program wears its brand as it is now, with the logo at svc's public address.
          const branded = m.program_id === null ? undefined : await brandedEmailHtml(db, config.publicUrl, m.program_id, m);
          await deliver({ id: m.id, to: m.to_address, subject: m.subject, text: m.text_body, html: branded ?? m.html_body ?? undefined });
          await markEmailSent(db, m.id, branded);
          sent++;
        } catch (err) {
          const backoffSeconds = Math.min(3600, 30 * 2 ** (m.attempts - 1));
          logger.warn({ err, emailId: m.id }, 'e-mail delivery failed; will retry');
          await markEmailFailed(db, m.id, String((err as Error).message).slice(0, 1000), new Date(Date.now() + backoffSeconds * 1000));
        }
      }
    }
  }

  function drain(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      // `running` is cleared in the same step as the last `again` check: a drain() or kick()
      // arriving after that check starts a fresh run instead of joining one that is ending.
      try {
        let total = 0;
        do {
          again = false;
          total += await sendDue();
        } while (again && !closed);
        return total;
      } finally {
        running = null;
      }
    })();
    return running;
  }

  // Called right after a message is queued: inside a request's transaction the message is not
  // visible (nor certain) until the commit.
  const kick = () =>
    afterCommit(() => {
      if (closed) return;
      drain().catch((err) => logger.error({ err }, 'e-mail outbox run failed'));
    });
  const timer = setInterval(kick, POLL_MS);
  timer.unref();

  return {
    kick,
    drain,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
