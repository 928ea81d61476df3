import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/harness.js';

describe('health endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

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
