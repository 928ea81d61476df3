import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from '@playwright/test';
import { type Eml, readEml } from '../../ingest/test/support/eml.js';

/**
 * The e-mails the demo's ingest wrote as .eml files (no SMTP configured:
 * ingest/docs/partner-emails.md#how-they-are-sent), read the way a partner reads their inbox: the
 * newest message to an address.
 */

async function messagesTo(dir: string, to: string): Promise<{ eml: Eml; mtime: number }[]> {
  const files = await fs.readdir(dir).catch(() => [] as string[]);
  const messages = await Promise.all(
    files
      .filter((f) => f.endsWith('.eml'))
      .map(async (f) => {
        const file = path.join(dir, f);
        const [raw, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
        return { eml: readEml(raw), mtime: stat.mtimeMs };
      }),
  );
  return messages.filter((m) => m.eml.header('To').toLowerCase() === to.toLowerCase()).sort((a, b) => b.mtime - a.mtime);
}

/** The URL of a sign-in link e-mailed to this address after `since` (polled: the mailer sends after the commit). */
export async function signInLinkTo(dir: string, to: string, since: number): Promise<string> {
  let url: string | undefined;
  await expect
    .poll(
      async () => {
        const fresh = (await messagesTo(dir, to)).filter((m) => m.mtime >= since - 1000);
        url = fresh.map((m) => /https?:\/\/\S+\/sign-in\/[0-9A-Za-z]+/.exec(m.eml.text)?.[0]).find(Boolean);
        return url;
      },
      { message: `a sign-in link e-mailed to ${to}`, timeout: 15_000 },
    )
    .toBeTruthy();
  return url!;
}

/** The subjects of the messages to this address, newest first. */
export async function subjectsTo(dir: string, to: string): Promise<string[]> {
  return (await messagesTo(dir, to)).map((m) => m.eml.header('Subject'));
}
