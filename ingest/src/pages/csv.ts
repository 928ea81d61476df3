import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import type { Logger } from 'pino';

/**
 * A list as a CSV download, streamed (ingest/docs/dashboard.md#csv-exports): rows are read only
 * as fast as the client takes the file, so a list of any length holds about a page in memory.
 */

const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

export interface CsvDownload<Row> {
  /** The file's name; made safe by safeFileName. */
  filename: string;
  /** The header row, and the key of each row read for each cell. */
  columns: readonly string[];
  /** The rows, read one at a time as the client takes them. */
  rows: AsyncIterable<Row>;
}

/**
 * A file name that needs no quoting in `Content-Disposition` and that no file system reads as a
 * path or a hidden file: letters, digits, `.`, `_` and `-` only, ending in `.csv`.
 */
export function safeFileName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, 120);
  return safe.endsWith('.csv') ? safe : `${safe || 'export'}.csv`;
}

/** Rows written to the socket at a time: one chunk of the response (tens of KB), not a chunk and a write per row. */
const ROWS_PER_CHUNK = 100;

/**
 * The CSV writer's settings for every download. `escape_formulas` prefixes `'` to a text cell
 * starting with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP's CSV injection advice), so
 * that a partner named `=HYPERLINK(…)` stays text in a spreadsheet; numbers (negative amounts too)
 * are written as numbers. Booleans are written `true`/`false` as the API shows them (the library's
 * default is `1`/empty), objects as JSON text, null as an empty cell. Rows end in CRLF (RFC 4180),
 * as the payout files do.
 */
const CSV_OPTIONS = {
  record_delimiter: 'windows',
  escape_formulas: true,
  cast: { boolean: (value: boolean) => String(value) },
} as const;

/**
 * Sends `file` as a CSV attachment. Its first row is read before anything is sent, so a list
 * that cannot be read at all (a filter's 404, SQL down) is still answered by the caller's error
 * page. After that, rows are written a chunk at a time with backpressure: the next rows (and so
 * the next page of SQL) are read only when the socket has taken what came before. A failure while
 * the file is sent (SQL gone halfway) destroys the connection, so the client sees a broken
 * download rather than a shorter file that looks complete, and is logged.
 */
export async function sendCsv<Row extends object>(res: Response, file: CsvDownload<Row>, logger: Logger): Promise<void> {
  const rows = file.rows[Symbol.asyncIterator]();
  const first = await rows.next();
  res.attachment(safeFileName(file.filename)).set({ 'Content-Type': CSV_CONTENT_TYPE, 'Cache-Control': 'no-store' }).status(200);
  try {
    // Bytes, not objects: the stream holds at most its 16 KB high-water mark ahead of the socket.
    await pipeline(Readable.from(csvChunks(first, rows, file.columns), { objectMode: false }), res);
  } catch (err) {
    // pipeline has destroyed the response already; said again so that no path ends the file cleanly.
    res.destroy();
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      logger.info({ file: file.filename }, 'CSV download left by the client before its end');
    } else {
      logger.error({ err, file: file.filename }, 'CSV download failed while it was sent; the connection was cut');
    }
  }
}

/**
 * The file's text from `first` on, ROWS_PER_CHUNK rows at a time, the first chunk with the byte
 * order mark (which tells Excel the file is UTF-8) and the header. Closing it early (the client
 * left) closes `rows`, which stops reading SQL.
 */
async function* csvChunks<Row extends object>(first: IteratorResult<Row>, rows: AsyncIterator<Row>, columns: readonly string[]) {
  let batch: Row[] = [];
  let header = true;
  const text = () => {
    const chunk = stringify(batch, { ...CSV_OPTIONS, columns: [...columns], header, bom: header });
    header = false;
    batch = [];
    return chunk;
  };
  try {
    for (let next = first; !next.done; next = await rows.next()) {
      batch.push(next.value);
      if (batch.length === ROWS_PER_CHUNK) yield text();
    }
    if (batch.length > 0 || header) yield text();
  } finally {
    await rows.return?.();
  }
}
