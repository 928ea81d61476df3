import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/logger.js';
import { useTestApp } from '../support/fixture.js';

/**
 * Requests through a proxy svc does not trust are warned about once per process, with the setting
 * that fixes it (ingest/src/http/untrusted-proxy-warning.ts). supertest connects from 127.0.0.1,
 * as a proxy on the same machine does.
 */

interface LogLine {
  msg: string;
  proxy?: string;
}

function logLines() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino(loggerOptions('info'), sink) };
}

const warnings = (lines: LogLine[]) => lines.filter((l) => l.msg.includes('does not trust'));

describe('a proxy svc does not trust', () => {
  const untrusted = logLines();
  const { t } = useTestApp({ logger: untrusted.logger });
  const trusting = logLines();
  const { t: behindProxy } = useTestApp({ sharesStorageWith: t, logger: trusting.logger, env: { SVC_TRUST_PROXY: 'loopback' } });

  it('is warned about once, on the first request with X-Forwarded-For, with the setting to add', async () => {
    await t.request.get('/healthz');
    expect(warnings(untrusted.lines)).toEqual([]);
    for (const client of ['203.0.113.7', '203.0.113.8', '203.0.113.9']) {
      expect((await t.request.get('/healthz').set('X-Forwarded-For', client)).status).toBe(200);
    }
    const [warning, ...more] = warnings(untrusted.lines);
    expect(more).toEqual([]);
    expect(warning.proxy).toBe('127.0.0.1');
    expect(warning.msg).toContain('set SVC_TRUST_PROXY=127.0.0.1');
  });

  it('is not, once SVC_TRUST_PROXY trusts it', async () => {
    expect((await behindProxy.request.get('/healthz').set('X-Forwarded-For', '203.0.113.7')).status).toBe(200);
    expect(warnings(trusting.lines)).toEqual([]);
  });
});
