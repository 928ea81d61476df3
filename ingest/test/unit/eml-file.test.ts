import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerRow, ProgramRow } from '../../src/db/schema.js';
import { fileDelivery } from '../../src/mail/delivery.js';
import { signInLinkEmail } from '../../src/resources/partners/partner-emails.js';
import { readEml } from '../support/eml.js';

/**
 * The outbox's .eml files (no SMTP configured: ingest/docs/partner-emails.md#how-they-are-sent):
 * whole messages with CRLF line endings (RFC 5322 §2.1), which a reader (test/support/eml.ts, as
 * the tests read their e-mails) gets back as queued, sign-in link included, across quoted-printable
 * soft line breaks.
 */
describe('the outbox .eml files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-eml-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  const deliver = () => fileDelivery(dir, 'svc <no-reply@svc.example>');
  const written = (id: string) => fs.readFile(path.join(dir, `${id}.eml`), 'utf8');

  // A link longer than a quoted-printable line (76 characters): it is cut by a soft line break.
  const link = `https://partners.example.com/p/the-longest-program-name-we-could-think-of/sign-in/${'Ab9'.repeat(15)}`;
  const email = signInLinkEmail(
    { organization_id: 'org_1', email: 'zoe@example.com', first_name: 'Zoë' } as PartnerRow,
    { name: 'Crème Brûlée Partners' } as ProgramRow,
    link,
    15,
    'sign-in',
  );

  it('ends every line with CRLF: no bare LF, no bare CR, lines of at most 78 characters', async () => {
    await deliver()({ id: 'eml_crlf', to: email.to, subject: email.subject, text: email.text, html: email.html });
    const raw = await written('eml_crlf');
    expect(raw).toMatch(/\r\n$/);
    expect(raw).not.toMatch(/[^\r]\n|^\n/);
    expect(raw).not.toMatch(/\r(?!\n)/);
    expect(raw.split('\r\n').every((line) => line.length <= 78)).toBe(true);
    // The link really is cut across lines in the file (else the next test proves nothing).
    expect(raw).not.toContain(link);
  });

  it('reads back as queued: headers, text and the exact sign-in link', async () => {
    await deliver()({ id: 'eml_read', to: email.to, subject: email.subject, text: email.text, html: email.html });
    const eml = readEml(await written('eml_read'));
    expect(eml.header('To')).toBe('zoe@example.com');
    expect(eml.header('Subject')).toBe('Sign in to the Crème Brûlée Partners partner portal');
    expect(eml.text).toBe(email.text);
    expect(/https?:\/\/\S+\/sign-in\/[0-9A-Za-z]+/.exec(eml.text)?.[0]).toBe(link);
  });

  it('tells a file read while it was still being written: complete only with the closing delimiter', async () => {
    await deliver()({ id: 'eml_cut', to: email.to, subject: email.subject, text: email.text, html: email.html });
    const raw = await written('eml_cut');
    expect(readEml(raw).complete).toBe(true);
    const closing = raw.lastIndexOf('--\r\n');
    for (const cut of [0, raw.indexOf('\r\n\r\n'), raw.indexOf('\r\n\r\n') + 4, Math.floor(raw.length / 2), closing])
      expect(readEml(raw.slice(0, cut)).complete, `cut at ${cut} of ${raw.length}`).toBe(false);
  });

  it('writes a lone CR (say, in a name) as a line break, never as a bare CR', async () => {
    await deliver()({ id: 'eml_cr', to: 'pat@example.com', subject: 'Hello', text: 'Hi Pat\r,\r\nline two', html: '<p>Hi Pat\r,</p>' });
    const raw = await written('eml_cr');
    expect(raw).not.toMatch(/\r(?!\n)|[^\r]\n/);
    expect(readEml(raw).text).toBe('Hi Pat\n,\nline two');
  });
});
