import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { statementCounter } from '../../bench/statement-counter.js';
import { createApp } from '../../src/app.js';
import { loggerOptions } from '../../src/logger.js';
import { createOrganization, createPartner } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * Failed authentication is throttled per client address, and a valid key is served all the same
 * (ingest/docs/api.md#rate-limits); no secret key ever reaches a log line.
 */

const LIMIT = 4;

describe('failed authentication is throttled per client address', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1, env: { SVC_AUTH_FAILURE_LIMIT: String(LIMIT), SVC_TRUST_PROXY: 'true' } });

  const from = (address: string) => ({ 'X-Forwarded-For': address });
  const createPartnerFrom = (address: Record<string, string>) =>
    t.request
      .post('/v1/partners')
      .set(address)
      .set(org.auth)
      .send({ program_id: org.program_id, first_name: 'Nat', last_name: 'Shared', email: `nat-${Date.now()}@example.com` });

  it(`answers 401 to the first ${LIMIT} failures of an address a minute, then 429 with Retry-After`, async () => {
    const attacker = from('203.0.113.7');
    for (let i = 0; i < LIMIT; i++) {
      const res = await t.request.get('/v1/programs').set(attacker).set('Authorization', `Bearer sk_guess${i}`);
      expect(res.status).toBe(401);
    }
    const refused = await t.request.get('/v1/programs').set(attacker).set('Authorization', 'Bearer sk_guessAgain');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: { type: 'rate_limit_error', message: expect.stringContaining('failed authentication') },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // A missing or malformed header is refused the same way.
    expect((await t.request.get('/v1/programs').set(attacker)).status).toBe(429);
  });

  it('serves a valid key from an address past the limit: 100 wrong keys, then the valid key reads and writes', async () => {
    const shared = from('203.0.113.50'); // one NAT for a broken job and a working integration
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++)
      statuses.add((await t.request.get('/v1/partners').set(shared).set('Authorization', `Bearer sk_wrong${i}`)).status);
    expect([...statuses].sort()).toEqual([401, 429]);
    expect((await t.request.get('/v1/programs').set(shared).set(org.auth)).status).toBe(200);
    const created = await createPartnerFrom(shared);
    expect(created.status, created.text).toBe(201);
    // A key made now is served at once; a revoked one is refused like any wrong key.
    const fresh = await t.request.post('/v1/api-keys').set(shared).set(org.auth).send({ name: 'fresh' });
    const freshAuth = { Authorization: `Bearer ${fresh.body.data[0].secret}` };
    expect((await t.request.get('/v1/programs').set(shared).set(freshAuth)).status).toBe(200);
    expect((await t.request.delete(`/v1/api-keys/${fresh.body.data[0].id}`).set(shared).set(org.auth)).status).toBe(200);
    expect((await t.request.get('/v1/programs').set(shared).set(freshAuth)).status).toBe(429);
    // The throttle holds for wrong keys all along.
    expect((await t.request.get('/v1/programs').set(shared).set('Authorization', 'Bearer sk_wrongAgain')).status).toBe(429);
  });

  it('refuses wrong keys past the limit without a SQL lookup each (at most one read of the key directory)', async () => {
    const counter = statementCounter();
    const counted = supertest(createApp({ ...t.deps, db: t.deps.db.withPlugin(counter.plugin) }));
    const guesser = from('203.0.113.60');
    for (let i = 0; i < LIMIT; i++) await counted.get('/v1/programs').set(guesser).set('Authorization', `Bearer sk_first${i}`);
    expect((await counted.get('/v1/programs').set(guesser).set('Authorization', 'Bearer sk_over')).status).toBe(429);
    counter.reset();
    for (let i = 0; i < 50; i++) {
      expect((await counted.get('/v1/programs').set(guesser).set('Authorization', `Bearer sk_guess${i}`)).status).toBe(429);
    }
    expect(counter.count).toBeLessThanOrEqual(1);
  });

  it('other addresses, and valid keys from them, are not affected', async () => {
    const bystander = from('198.51.100.20');
    expect((await t.request.get('/v1/programs').set(bystander).set(org.auth)).status).toBe(200);
    expect((await t.request.get('/v1/programs').set(bystander).set('Authorization', 'Bearer sk_wrong')).status).toBe(401);
  });

  it('successful requests do not count toward the limit', async () => {
    const busy = from('198.51.100.30');
    for (let i = 0; i < LIMIT * 3; i++) expect((await t.request.get('/v1/programs').set(busy).set(org.auth)).status).toBe(200);
    expect((await t.request.get('/v1/programs').set(busy).set('Authorization', 'Bearer sk_wrong')).status).toBe(401);
  });
});

describe('no secret key in any log line, at any level', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const { t } = useTestApp({ logger: pino(loggerOptions('trace'), sink) });

  it('logs requests at trace level without the Authorization header, a new key, or cookies', async () => {
    const org = await createOrganization(t);
    const partner = await createPartner(t, org, { program_id: org.program_id });
    const created = await t.request.post('/v1/api-keys').set(org.auth).send({ name: 'logged?' });
    const secret: string = created.body.data[0].secret;
    await t.request.get('/v1/programs').set({ Authorization: `Bearer ${secret}` });
    await t.request.get('/v1/nowhere').set(org.auth).set('Cookie', 'svc_ref=clk_secretcookie');
    await t.request.get('/v1/programs').set('Authorization', `Bearer ${org.api_key}x`);
    await t.request.put(`/v1/partners/${partner.id}`).set(org.auth).send({ first_name: 'Logged' });

    expect(lines.length).toBeGreaterThan(4); // the access lines were written
    const all = lines.join('\n');
    expect(all).toContain('[redacted]');
    for (const key of [org.api_key, secret, 'clk_secretcookie']) expect(all).not.toContain(key);
    expect(all).not.toMatch(/sk_[0-9A-Za-z]{20,}/);
  });
});
