import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/**
 * What start-up refuses about the proxy in front of svc, and what it lets through
 * (ingest/src/proxy-setup.ts; ingest/docs/production.md#the-environment-file). That the process
 * then exits with this one line is checked on real processes by ingest/test/deploy/https.test.ts.
 */

const PRODUCTION = { NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example.com' };

const refusal = (env: NodeJS.ProcessEnv) => {
  try {
    loadConfig(env);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
};

describe('the proxy set-up at start-up', () => {
  it('refuses an https public address in production without SVC_TRUST_PROXY, in one line naming the fix', () => {
    const message = refusal(PRODUCTION);
    expect(message).toMatch(/^SVC_PUBLIC_URL is https.*set SVC_TRUST_PROXY to its address/);
    expect(message).not.toContain('\n');
    expect(refusal({ ...PRODUCTION, SVC_TRUST_PROXY: 'false' })).toBe(message);
  });

  it('lets through a trusted proxy, plain http, and the same set-up outside production (warned about on requests)', () => {
    for (const trust of ['127.0.0.1', 'loopback', '10.0.0.0/8, ::1', '1', 'true']) {
      expect(refusal({ ...PRODUCTION, SVC_TRUST_PROXY: trust }), trust).toBeUndefined();
      expect(loadConfig({ ...PRODUCTION, SVC_TRUST_PROXY: trust }).trustProxy).toBe(trust === 'true' ? true : trust === '1' ? 1 : trust);
    }
    expect(refusal({ ...PRODUCTION, SVC_PUBLIC_URL: 'http://svc.internal' })).toBeUndefined();
    expect(refusal({ SVC_PUBLIC_URL: 'https://svc.example.com' })).toBeUndefined();
  });

  it('refuses a SVC_TRUST_PROXY Express could not read, before anything starts', () => {
    for (const trust of ['127.0.0.1.5', 'caddy', '10.0.0.0/99', '127.0.0.1,,nope']) {
      expect(refusal({ SVC_TRUST_PROXY: trust }), trust).toMatch(
        /^Invalid configuration: SVC_TRUST_PROXY: must be true, false, a hop count/,
      );
    }
  });
});
