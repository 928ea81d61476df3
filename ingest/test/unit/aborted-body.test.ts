import net from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../../src/http/json-body.js';

/**
 * A request whose client goes away while it waits before its body is read (in the API key check
 * or the rate limit) must not run as if it had sent no body: `PUT …/refund` with an amount would
 * refund everything (ingest/bench/README.md#fraud-and-risk-rules, "A problem found").
 */
describe('a request cut off before its body is read', () => {
  /** What became of each request: the body its handler ran with, or `refused`. */
  const outcomes: unknown[] = [];
  let server: ReturnType<express.Express['listen']>;
  let port = 0;

  beforeAll(async () => {
    const app = express();
    // An asynchronous guard, as the key check and the rate limit are: the client leaves meanwhile.
    app.put(
      '/refund',
      (_req, _res, next) => void setTimeout(next, 100),
      jsonBody,
      (req, res) => {
        outcomes.push(req.body);
        res.json({ ok: true });
      },
    );
    app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      outcomes.push('refused');
      res.status(400).end();
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('is never handled without its body', async () => {
    for (let i = 0; i < 5; i++) {
      const body = JSON.stringify({ amount: 100 });
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`PUT /refund HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      // The client goes away while the guard holds its request.
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
    }
    // Every request is decided: its handler ran with its whole body, or it was refused.
    await expect.poll(() => outcomes.length).toBe(5);
    for (const outcome of outcomes) expect([{ amount: 100 }, 'refused']).toContainEqual(outcome);
  });
});
