import express from 'express';
import pino from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { safeFileName, sendCsv } from '../../src/pages/csv.js';

/**
 * The page kit's CSV download (src/pages/csv.ts) with sources of its own: file names, a source
 * that fails before its first row (an error page is still possible) or halfway (the connection is
 * cut, never a clean end). The exports over SQL: test/dashboard/exports*.test.ts.
 */

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: { level: number; msg: string }[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }) };
}

/** An app sending `rows()` as a CSV download of columns a and b; an error before the answer starts becomes a 503 text. */
function appWith(rows: () => AsyncIterable<{ a: unknown; b: unknown }>) {
  const { lines, logger } = recordingLogger();
  const app = express();
  app.get('/file.csv', async (_req, res) => {
    try {
      await sendCsv(res, { filename: 'rows.csv', columns: ['a', 'b'], rows: rows() }, logger);
    } catch (err) {
      res
        .status(503)
        .type('text')
        .send((err as Error).message);
    }
  });
  return { request: supertest(app), lines };
}

describe('CSV downloads', () => {
  it.each([
    ['partners-acme-2026-01-31.csv', 'partners-acme-2026-01-31.csv'],
    ['../../etc/passwd', 'etc-passwd.csv'],
    ['a "quoted"; name\r\n.csv', 'a-quoted-name-.csv'],
    ['.hidden', 'hidden.csv'],
    ['Zoë’s list', 'Zo-s-list.csv'],
    ['', 'export.csv'],
  ])('names %j %j', (given, safe) => {
    expect(safeFileName(given)).toBe(safe);
  });

  it('writes the header, then every row, with values as the API shows them', async () => {
    const { request } = appWith(async function* () {
      yield { a: true, b: { x: 1 } };
      yield { a: null, b: -5 };
      yield { a: '-5', b: 'plain' };
    });
    const res = await request.get('/file.csv');
    expect(res.status).toBe(200);
    expect(res.text).toBe('\ufeffa,b\r\ntrue,"{""x"":1}"\r\n,-5\r\n\'-5,plain\r\n');
  });

  it('answers no file when the source fails before its first row, so that the caller still sends an error page', async () => {
    const { request, lines } = appWith(() => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('SQL is down')) }),
    }));
    const res = await request.get('/file.csv');
    expect(res.status).toBe(503);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('cuts the connection when the source fails halfway, logs it, and goes on serving', async () => {
    let fail = true;
    const { request, lines } = appWith(async function* () {
      yield { a: 1, b: 2 };
      if (fail) throw new Error('SQL went away');
      yield { a: 3, b: 4 };
    });
    // The client sees a broken answer (its chunked body never ends), not a shorter file.
    await expect(request.get('/file.csv').then((r) => r.text)).rejects.toThrow();
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, msg: 'CSV download failed while it was sent; the connection was cut', file: 'rows.csv' }),
    ]);
    fail = false;
    expect((await request.get('/file.csv')).text).toBe('\ufeffa,b\r\n1,2\r\n3,4\r\n');
  });
});
