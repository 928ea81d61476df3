import fs from 'node:fs/promises';
import path from 'node:path';
import type { Selectable } from 'kysely';
import { expect, vi } from 'vitest';
import type { EmailOutboxTable } from '../../src/db/schema.js';
import { readEml } from './eml.js';
import type { TestApp } from './harness.js';

/**
 * The e-mails a test app sends, read in one way by every test. An e-mail is queued in SQL (the
 * email_outbox table, before any encoding for sending) with the change that causes it, and the
 * app's mailer writes it as an .eml file to `t.outboxDir` in the background after the commit. A
 * test never takes "the newest e-mail" (an older one to the same address may be as new, to the
 * millisecond): it names the e-mail its action causes, or reads every e-mail to an address of
 * its own.
 */

export type QueuedEmail = Selectable<EmailOutboxTable>;

/** The e-mails queued to an address (in any case), oldest first; only those of `kind` when given. */
export async function queuedTo(t: TestApp, to: string, kind?: string): Promise<QueuedEmail[]> {
  let query = t.deps.db
    .selectFrom('email_outbox')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['to_address']), '=', to.toLowerCase()));
  if (kind !== undefined) query = query.where('kind', '=', kind);
  return query.orderBy('created_at').orderBy('id').execute();
}

/**
 * Runs `action`, then waits for the one e-mail of `kind` to `to` that it queued: one that was not
 * in the outbox before the action. Fails when the action queued none (in time) or more than one.
 */
export async function emailCausedBy(t: TestApp, match: { to: string; kind: string }, action: () => Promise<unknown>): Promise<QueuedEmail> {
  const before = new Set((await queuedTo(t, match.to, match.kind)).map((e) => e.id));
  await action();
  const fresh = await vi.waitFor(
    async () => {
      const queued = (await queuedTo(t, match.to, match.kind)).filter((e) => !before.has(e.id));
      expect(queued.length, `an e-mail of kind ${match.kind} to ${match.to}`).toBeGreaterThan(0);
      return queued;
    },
    { timeout: 10_000, interval: 20 },
  );
  expect(fresh, `e-mails of kind ${match.kind} to ${match.to}`).toHaveLength(1);
  return fresh[0];
}

/** Runs `action` (a request for a sign-in link) and answers the path of the link in the one e-mail it queued. */
export async function signInLinkCausedBy(t: TestApp, email: string, action: () => Promise<unknown>): Promise<string> {
  const queued = await emailCausedBy(t, { to: email, kind: 'partner_sign_in_link' }, action);
  const url = /https?:\/\/\S+\/sign-in\/[0-9A-Za-z]+/.exec(queued.text_body)?.[0];
  expect(url, `a sign-in link e-mailed to ${email}`).toBeDefined();
  return new URL(url!).pathname;
}

/** A message written by the file mailer (an .eml in the outbox directory): the file as written, its main headers and its text. */
export interface OutboxMessage {
  file: string;
  to: string;
  from: string;
  subject: string;
  /** The text part as queued (line endings \n, quoted-printable decoded). */
  text: string;
  raw: string;
}

/**
 * Sends every due e-mail now, then reads the .eml files the test app's mailer wrote. The drain
 * also waits for a background send already under way, so every file is whole when read.
 */
export async function sentEmails(t: TestApp): Promise<OutboxMessage[]> {
  await t.deps.mailer.drain();
  const files = (await fs.readdir(t.outboxDir)).filter((f) => f.endsWith('.eml')).sort();
  return Promise.all(
    files.map(async (file) => {
      const raw = await fs.readFile(path.join(t.outboxDir, file), 'utf8');
      const eml = readEml(raw);
      return { file, raw, to: eml.header('To'), from: eml.header('From'), subject: eml.header('Subject'), text: eml.text };
    }),
  );
}
