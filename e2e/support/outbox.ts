import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from '@playwright/test';
import { type Eml, readEml } from '../../ingest/test/support/eml.js';

/**
 * The e-mails the demo's ingest writes as .eml files (no SMTP configured:
 * ingest/docs/partner-emails.md#how-they-are-sent), read the way a partner reads their inbox.
 * Ingest queues an e-mail in SQL with the change that causes it, and a background sender writes
 * the file after the commit: the page has
 * answered before its e-mail exists, and an older e-mail to the same address may be the newest
 * file for a while. So a test never reads "the newest e-mail": it names the e-mail its action
 * causes (recipient and subject) and waits for a file that was not in the outbox before the
 * action, read once wholly written.
 */

/** What tells the e-mail a test waits for from the others in the outbox. */
export interface EmailMatch {
  to: string;
  subject: string | RegExp;
}

const SIGN_IN_SUBJECT = /^Sign in to the .+ partner portal$/;
const SIGN_IN_LINK = /https?:\/\/\S+\/sign-in\/[0-9A-Za-z]+/;

async function emlFiles(dir: string): Promise<string[]> {
  return (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml'));
}

const matches = (eml: Eml, { to, subject }: EmailMatch) =>
  eml.header('To').toLowerCase() === to.toLowerCase() &&
  (typeof subject === 'string' ? eml.header('Subject') === subject : subject.test(eml.header('Subject')));

/**
 * Runs `action`, then waits for the one e-mail it caused: to `match.to`, with `match.subject`, in
 * a file that was not in the outbox before the action. Fails when none is written in time, or
 * when the action caused more than one.
 */
export async function emailCausedBy(dir: string, match: EmailMatch, action: () => Promise<unknown>): Promise<Eml> {
  const before = new Set(await emlFiles(dir));
  await action();
  let found: Eml[] = [];
  await expect
    .poll(
      async () => {
        const fresh = await Promise.all(
          (await emlFiles(dir)).filter((f) => !before.has(f)).map(async (f) => readEml(await fs.readFile(path.join(dir, f), 'utf8'))),
        );
        // Other tests' e-mails come and go too; one still being written may be ours.
        if (fresh.some((m) => !m.complete)) return 0;
        found = fresh.filter((m) => matches(m, match));
        return found.length;
      },
      { message: `an e-mail to ${match.to} with the subject ${match.subject}`, timeout: 15_000 },
    )
    .toBeGreaterThan(0);
  expect(found, `e-mails to ${match.to} with the subject ${match.subject}`).toHaveLength(1);
  return found[0];
}

/** Runs `action` (a request for a sign-in link) and answers the URL of the link in the one e-mail it caused. */
export async function signInLinkCausedBy(dir: string, to: string, action: () => Promise<unknown>): Promise<string> {
  const eml = await emailCausedBy(dir, { to, subject: SIGN_IN_SUBJECT }, action);
  const url = SIGN_IN_LINK.exec(eml.text)?.[0];
  expect(url, `a sign-in link in the e-mail to ${to}`).toBeDefined();
  return url!;
}
