import type { AddressInfo } from 'node:net';
import net from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { closeGracefully } from '../../src/http/graceful-close.js';

/**
 * closeGracefully (ingest/src/http/graceful-close.ts) when a request arrives during the stop on a
 * connection that was busy when it began, and the route answers at once (as /healthz does): the
 * answer ends the connection, without an exception. A listener added after the app's once set the
 * header after the answer had gone, which threw ERR_HTTP_HEADERS_SENT and ended svc with status 1
 * during a stop under traffic.
 */
describe('closeGracefully', () => {
  it('answers the next request of a busy connection with Connection: close and no exception, then closes', async () => {
    let slowStarted!: () => void;
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const app = express();
    app.get('/slow', (_req, res) => {
      slowStarted();
      setTimeout(() => res.json({ slow: true }), 300);
    });
    app.get('/healthz', (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const errors: unknown[] = [];
    const onError = (err: unknown) => errors.push(err);
    process.on('uncaughtException', onError);
    try {
      // One connection, busy with the slow request when the stop begins; the next request is
      // sent on it after that (pipelined: the connection is never idle in between).
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (d: string) => (received += d));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      socket.write('GET /slow HTTP/1.1\r\nHost: svc\r\n\r\n');
      await started;
      const closed = new Promise<void>((resolve) => closeGracefully(server, resolve));
      socket.write('GET /healthz HTTP/1.1\r\nHost: svc\r\n\r\n');
      await ended;
      await closed;
      const answers = received.split(/(?=HTTP\/1\.1 )/);
      expect(answers.map((a) => a.split('\r\n')[0])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
      expect(answers[1]).toMatch(/\r\nConnection: close\r\n/i);
      expect(answers[1]).toContain('{"ok":true}');
      expect(errors).toEqual([]);
    } finally {
      process.off('uncaughtException', onError);
      server.close();
    }
  });
});
