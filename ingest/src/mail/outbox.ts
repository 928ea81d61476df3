import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { newId } from '../ids.js';

export interface OutgoingEmail {
  organizationId: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  /** A simple HTML alternative of `text`. */
  html?: string;
  /** The program whose brand the HTML wears: the mailer renders it again with it as it sends (mailer.ts). */
  programId?: string;
}

/**
 * The e-mail outbox table and all of its SQL: queued in the transaction of the change that
 * causes an e-mail, claimed and marked by the mailer (mailer.ts).
 */

/** Queues an e-mail in the same SQL transaction as the change that causes it; the mailer sends it after commit. */
export async function queueEmail(db: Db, email: OutgoingEmail): Promise<void> {
  await db
    .insertInto('email_outbox')
    .values({
      id: newId('email'),
      organization_id: email.organizationId,
      kind: email.kind,
      to_address: email.to,
      subject: email.subject,
      text_body: email.text,
      html_body: email.html ?? null,
      program_id: email.programId ?? null,
      next_attempt_at: new Date(),
      created_at: new Date(),
    })
    .execute();
}

export interface ClaimedEmail {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  program_id: string | null;
  attempts: number;
}

/**
 * Claims up to `batch` due e-mails for `leaseSeconds` (their next attempt moves past the lease,
 * so a crashed sender's claim runs out); SKIP LOCKED lets any number of processes claim at once.
 */
export async function claimDueEmails(db: Db, opts: { batch: number; leaseSeconds: number; maxAttempts: number }): Promise<ClaimedEmail[]> {
  const claimed = await sql<ClaimedEmail>`
    update email_outbox
       set next_attempt_at = now() + make_interval(secs => ${opts.leaseSeconds}), attempts = attempts + 1
     where id in (
       select id from email_outbox
        where sent_at is null and next_attempt_at <= now() and attempts < ${opts.maxAttempts}
        order by next_attempt_at
        limit ${opts.batch}
        for update skip locked)
    returning id, to_address, subject, text_body, html_body, program_id, attempts`.execute(db);
  return claimed.rows;
}

/** Marks an e-mail sent; `html`, when it was rendered as sent, is kept as what was sent. */
export async function markEmailSent(db: Db, id: string, html?: string): Promise<void> {
  await db
    .updateTable('email_outbox')
    .set({ sent_at: new Date(), last_error: null, ...(html === undefined ? {} : { html_body: html }) })
    .where('id', '=', id)
    .execute();
}

export async function markEmailFailed(db: Db, id: string, error: string, nextAttemptAt: Date): Promise<void> {
  await db.updateTable('email_outbox').set({ last_error: error, next_attempt_at: nextAttemptAt }).where('id', '=', id).execute();
}

export interface EmailBacklog {
  /** Not sent yet, with attempts left. */
  waiting: number;
  /** Not sent, and every attempt used: the mailer no longer tries them. */
  failed: number;
}

/** The outbox's unsent messages, in one statement (the metrics endpoint, ingest/docs/metrics.md). */
export async function selectEmailBacklog(db: Db, maxAttempts: number): Promise<EmailBacklog> {
  const r = await sql<EmailBacklog>`
    select count(*) filter (where attempts < ${maxAttempts})::int as waiting,
           count(*) filter (where attempts >= ${maxAttempts})::int as failed
      from email_outbox
     where sent_at is null`.execute(db);
  return r.rows[0];
}
