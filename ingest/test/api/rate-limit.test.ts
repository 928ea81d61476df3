import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { RATE_WINDOW_SECONDS } from '../../src/http/rate-limit.js';
import { createApiKey } from '../../src/resources/api-keys/api-keys.service.js';
import type { TestOrg } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp, STORAGE } from '../support/harness.js';
import { inOneWindow } from '../support/time.js';

/**
 * Per-API-key rate limit (ingest/docs/api.md#rate-limits): with SVC_API_RATE_LIMIT=3, the fourth
 * request within a second answers 429 `rate_limit_error` with Retry-After and RateLimit-* headers.
 */

const LIMIT = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectLimited(res: Response): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: { type: 'rate_limit_error', message: expect.any(String) } });
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(1);
  expect(res.headers['ratelimit-limit']).toBe(String(LIMIT));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-reset']).toMatch(/^\d+$/);
  expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(1);
}

describe('API rate limit', () => {
  const { t } = useTestApp({ env: { SVC_API_RATE_LIMIT: String(LIMIT) } });

  /** Each test starts with a fresh organization, so a fresh key with a full budget. */
  const freshOrg = (name: string) => t.newOrganization({ org: name, program: `${name} program` });
  const secondKey = async (o: TestOrg) => {
    const { secret } = await createApiKey(t.storage.db, o.organization_id, 'second');
    return { Authorization: `Bearer ${secret}` };
  };

  /** Runs `scenario` with a fresh organization (a key with a full budget) until a run fits in one window of the limit. */
  const withFreshKey = (name: string, scenario: (org: TestOrg) => Promise<void>) =>
    inOneWindow(RATE_WINDOW_SECONDS * 1000, async (attempt) => scenario(await freshOrg(`${name} ${attempt}`)));

  it('allows the configured number of requests, counting RateLimit-Remaining down, then answers 429', async () => {
    await withFreshKey('Counting', async (org) => {
      const allowed: Response[] = [];
      for (let i = 0; i < LIMIT; i++) allowed.push(await t.request.get('/v1/programs').set(org.auth));
      expect(allowed.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(allowed.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3']);
      expect(allowed.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
      for (const r of allowed) {
        expect(r.headers['ratelimit-reset']).toMatch(/^\d+$/);
        expect(r.headers['retry-after']).toBeUndefined();
      }

      const refused = await t.request.get('/v1/programs').set(org.auth);
      expectLimited(refused);
      expectLimited(await t.request.get(`/v1/programs/${org.program_id}`).set(org.auth));
    });
  });

  it('a concurrent burst lets exactly the limit through', async () => {
    await withFreshKey('Burst', async (org) => {
      const results = await Promise.all(Array.from({ length: 8 }, () => t.request.get('/v1/programs').set(org.auth)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
      results.filter((r) => r.status === 429).forEach(expectLimited);
    });
  });

  it('refused writes change nothing', async () => {
    await withFreshKey('Writes', async (org) => {
      const results: Response[] = [];
      for (let i = 0; i < LIMIT + 2; i++)
        results.push(
          await t.request
            .post('/v1/programs')
            .set(org.auth)
            .send({ name: `Write ${i}` }),
        );
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 429, 429]);

      // Read back with another key of the organization, whose budget is untouched.
      const list = await t.request.get('/v1/programs?limit=100').set(await secondKey(org));
      expect(list.status).toBe(200);
      expect(list.body.total_count).toBe(1 + LIMIT);
      const names = list.body.data.map((p: { name: string }) => p.name);
      expect(names).toEqual(expect.arrayContaining(['Write 0', 'Write 1', 'Write 2']));
      expect(names).not.toContain('Write 3');
      expect(names).not.toContain('Write 4');
    });
  });

  it('limits are per key: a second key of the same organization, and another organization, are unaffected', async () => {
    await withFreshKey('Per key', async (org) => {
      const other = await freshOrg('Bystander');
      for (let i = 0; i < LIMIT; i++) expect((await t.request.get('/v1/programs').set(org.auth)).status).toBe(200);
      expectLimited(await t.request.get('/v1/programs').set(org.auth));

      const second = await secondKey(org);
      const viaSecond = await t.request.get('/v1/programs').set(second);
      expect(viaSecond.status).toBe(200);
      expect(viaSecond.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));

      const viaOther = await t.request.get('/v1/programs').set(other.auth);
      expect(viaOther.status).toBe(200);
      expect(viaOther.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));

      // the first key is still refused
      expectLimited(await t.request.get('/v1/programs').set(org.auth));
    });
  });

  it('the key is allowed again once the window has passed', async () => {
    let org!: TestOrg;
    let refused!: Response;
    await withFreshKey('Recovery', async (fresh) => {
      org = fresh;
      for (let i = 0; i < LIMIT; i++) expect((await t.request.get('/v1/programs').set(org.auth)).status).toBe(200);
      refused = await t.request.get('/v1/programs').set(org.auth);
      expectLimited(refused);
    });
    // What a client is told to do: wait Retry-After. The test is that this is enough, so it waits
    // that long rather than until the key is allowed again.
    await sleep(Number(refused.headers['retry-after']) * 1000 + 100);
    const again = await t.request.get('/v1/programs').set(org.auth);
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('requests without a valid key answer 401, not 429, and do not use up a key budget', async () => {
    const org = await freshOrg('Unauthenticated');
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await t.request.get('/v1/programs').set('Authorization', 'Bearer sk_notAKey');
      expect(res.status).toBe(401);
    }
    const res = await t.request.get('/v1/programs').set(org.auth);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('health checks are not rate limited', async () => {
    for (let i = 0; i < LIMIT + 3; i++) expect((await t.request.get('/healthz')).status).toBe(200);
  });

  it.runIf(STORAGE === 'postgres')('two app instances on the same Redis share one budget per key', async () => {
    const second = await createTestApp({ storage: t.storage, env: { SVC_API_RATE_LIMIT: String(LIMIT) } });
    try {
      await withFreshKey('Two instances', async (org) => {
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT + 1; i++) {
          const app = i % 2 === 0 ? t : second;
          statuses.push((await app.request.get('/v1/programs').set(org.auth)).status);
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
      });
    } finally {
      await second.close();
    }
  });
});
