import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

/** Hands one message of the outbox (mailer.ts) to its way out: SMTP, or an .eml file. */
export type Deliver = (message: { id: string; to: string; subject: string; text: string; html?: string }) => Promise<void>;

/**
 * Line breaks as nodemailer takes them: it makes every \n a CRLF (RFC 5322 §2.1) but keeps a lone
 * CR as it is, which the RFC forbids and mail programs read differently (a partner's name or a
 * program's can carry one). So a CR, alone or before \n, becomes \n here.
 */
const lineBreaks = (body: string) => body.replace(/\r\n?/g, '\n');

export function smtpDelivery(url: string, from: string): Deliver {
  const transport: Transporter = nodemailer.createTransport(url);
  return async ({ to, subject, text, html }) => {
    await transport.sendMail({ from, to, subject, text: lineBreaks(text), html: html && lineBreaks(html) });
  };
}

/**
 * Writes each message to `dir` as `<id>.eml`, a whole message as SMTP would carry it: CRLF line
 * endings (nodemailer's `newline: 'windows'`), so the file is the same message wherever it is
 * copied or opened, and can be sent on as it is (ingest/docs/partner-emails.md#how-they-are-sent).
 */
export function fileDelivery(dir: string, from: string): Deliver {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return async ({ id, to, subject, text, html }) => {
    const info = await transport.sendMail({ from, to, subject, text: lineBreaks(text), html: html && lineBreaks(html) });
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, `${id}.eml`), info.message as Buffer);
  };
}
