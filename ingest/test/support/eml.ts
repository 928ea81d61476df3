/**
 * An .eml file of the outbox (written by ingest/src/mail/delivery.ts) read as a mail program reads
 * it, for the ingest tests (outbox.ts) and the e2e tests (e2e/support/outbox.ts): the file has
 * CRLF line endings, MIME-encoded headers and quoted-printable parts; a reader gets headers and
 * text with \n line endings, as the message was queued.
 */
export interface Eml {
  /** A header's value: folded lines joined, encoded words decoded; '' when there is none. */
  header(name: string): string;
  /** The text/plain part (the first one, in a multipart message) as queued, or '' when there is none. */
  text: string;
  /**
   * False for a message cut short: its header block not ended, or a multipart one without its
   * closing delimiter (a file read while the mailer was still writing it). A single-part message
   * cut in its body cannot tell; every e-mail svc sends is multipart.
   */
  complete: boolean;
}

export function readEml(raw: string): Eml {
  const message = raw.replace(/\r\n/g, '\n');
  const { head, body } = entity(message);
  const boundary = boundaryOf(headerIn(head, 'Content-Type'));
  const headed = message.includes('\n\n');
  return {
    header: (name) => decodeWords(headerIn(head, name)),
    text: textOf(message) ?? '',
    complete: headed && (boundary === undefined || `\n${body}`.includes(`\n--${boundary}--`)),
  };
}

const boundaryOf = (type: string) => /^multipart\/.*;\s*boundary="?([^";]+)"?/i.exec(type)?.[1];

/** A MIME entity's header block and body, split at the first empty line. */
function entity(text: string): { head: string; body: string } {
  const at = text.indexOf('\n\n');
  return at < 0 ? { head: text, body: '' } : { head: text.slice(0, at), body: text.slice(at + 2) };
}

function headerIn(head: string, name: string): string {
  const line = head
    .replace(/\n[ \t]+/g, ' ')
    .split('\n')
    .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : '';
}

/** The first text/plain entity, looking into multipart ones (RFC 2046 §5.1: a delimiter is a line break, `--`, the boundary). */
function textOf(text: string): string | undefined {
  const { head, body } = entity(text);
  const type = headerIn(head, 'Content-Type') || 'text/plain';
  const boundary = boundaryOf(type);
  if (boundary) {
    // The first piece is the preamble; the piece after the closing delimiter starts with `--`.
    for (const part of `\n${body}`.split(`\n--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      const found = textOf(part.slice(part.indexOf('\n') + 1));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!/^text\/plain\b/i.test(type)) return undefined;
  return /quoted-printable/i.test(headerIn(head, 'Content-Transfer-Encoding')) ? quotedPrintable(body) : body;
}

/** RFC 2045 §6.7: `=` at a line's end is a soft break (the line goes on), `=XX` a byte; the bytes are UTF-8. */
function quotedPrintable(body: string): string {
  const bytes = body.replace(/=\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); the space between two of them is not part of the text. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g, (_, encoding: string, word: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(word, 'base64').toString('utf8') : quotedPrintable(word.replace(/_/g, ' ')),
    );
}
