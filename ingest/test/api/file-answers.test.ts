import express from 'express';
import pino from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiBuilder } from '../../src/http/api.js';
import { errorHandler } from '../../src/http/error-handler.js';

/**
 * A route answering a file (the payout export): its content is read while it is sent, so a
 * failure halfway (SQL gone) can only cut the answer short; it must never end the process.
 */
describe('file answers', () => {
  function appWith(rows: (res: express.Response) => AsyncIterable<string>) {
    const api = new ApiBuilder();
    api.route({
      method: 'get',
      path: '/file',
      tag: 'Test',
      summary: 'A file',
      file: 'text/plain',
      status: 200,
      response: z.string(),
      handler: ({ res }) => ({ filename: 'test.txt', body: rows(res), through: [] }),
    });
    const app = express();
    app.use(api.router);
    app.use(errorHandler(pino({ level: 'silent' })));
    return supertest(app);
  }

  it('streams the rows with a file name', async () => {
    const res = await appWith(async function* () {
      yield 'a\n';
      yield 'b\n';
    }).get('/file');
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename=test.txt');
    expect(res.text).toBe('a\nb\n');
  });

  it('cuts the answer short when reading fails halfway, and goes on serving', async () => {
    let fail = true;
    const request = appWith(async function* (res) {
      yield 'first row\n';
      // Halfway: the answer has started (its status and first row are on their way) when reading fails.
      while (!res.headersSent) await new Promise((resolve) => setImmediate(resolve));
      if (fail) throw new Error('SQL went away');
      yield 'second row\n';
    });
    await expect(request.get('/file').then((r) => r.text)).rejects.toThrow();
    fail = false;
    const again = await request.get('/file');
    expect(again.text).toBe('first row\nsecond row\n');
  });
});
