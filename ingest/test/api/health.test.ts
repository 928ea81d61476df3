import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/store/redis-store.js';
import { useTestApp } from '../support/fixture.js';
import { createTestApp, openTestStorage, type TestApp, type TestStorage } from '../support/harness.js';

describe('health endpoints', () => {
  const { t } = useTestApp();

  it('healthz answers while the process is up', async () => {
    const res = await t.request.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('readyz checks SQL and shared state', async () => {
    const res = await t.request.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sql: 'ok', shared_state: 'ok' });
  });
});

describe('readyz when the shared state is unreachable', () => {
  let storage: TestStorage;
  let t: TestApp;
  beforeAll(async () => {
    storage = await openTestStorage();
    // A real Redis client pointed at a port where nothing listens.
    const unreachable = createRedisStore('redis://127.0.0.1:1');
    t = await createTestApp({ storage: { ...storage, openStore: () => unreachable } });
  });
  afterAll(async () => {
    await t.close();
    await t.deps.store.close();
    await storage.close();
  });

  it('stays ready (SQL is the system of record) and names the shared state as unreachable', async () => {
    const res = await t.request.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { sql: 'ok', shared_state: 'unreachable' } });
    expect((await t.request.get('/healthz')).status).toBe(200);
  });
});
