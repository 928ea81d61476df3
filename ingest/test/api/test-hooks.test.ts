import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { type ApiObject, createClick, createOrganization, createPartner, type TestOrg } from '../support/factories.js';
import { createTestApp, type TestApp } from '../support/harness.js';
import { signInLinkCausedBy } from '../support/outbox.js';

/**
 * The browser tests' hooks (SVC_TEST_HOOKS=1): POST /__test/clicks/:id/age {seconds} makes a click
 * that many seconds old as the server sees it. Off by default; never under /v1 or in the OpenAPI
 * document.
 */

const age = (t: TestApp, clickId: string, body: unknown) => t.request.post(`/__test/clicks/${clickId}/age`).send(body as object);

describe('test hooks, off (the default)', () => {
  let t: TestApp;
  let org: TestOrg;
  let click: ApiObject;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    click = await createClick(t, org, { partner_id: (await createPartner(t, org)).id });
  });
  afterAll(() => t.close());

  it('are not served: 404, and the click keeps its time', async () => {
    const res = await age(t, click.id, { seconds: 3600 });
    expectError(res, 404, 'not_found_error');
    const row = await t.storage.db.selectFrom('clicks').select('created_at').where('id', '=', click.id).executeTakeFirstOrThrow();
    expect(new Date(row.created_at).toISOString()).toBe(click.created_at);
  });
});

describe('test hooks, on (SVC_TEST_HOOKS=1)', () => {
  let t: TestApp;
  let org: TestOrg;
  let partner: ApiObject;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await createTestApp({ env: { SVC_TEST_HOOKS: '1' }, logger: pino({ level: 'info' }, sink) });
    org = await createOrganization(t);
    partner = await createPartner(t, org);
  });
  afterAll(() => t.close());

  const createdAt = async (id: string) =>
    new Date((await t.storage.db.selectFrom('clicks').select('created_at').where('id', '=', id).executeTakeFirstOrThrow()).created_at);

  it('are logged as on when the app is built', () => {
    expect(lines.some((l) => /test hooks on/.test(JSON.parse(l).msg) && JSON.parse(l).level === 40)).toBe(true);
  });

  it('age a click: 204, its created_at moves back by that many seconds', async () => {
    const click = await createClick(t, org, { partner_id: partner.id });
    const before = Date.now();
    const res = await age(t, click.id, { seconds: 30 * 86_400 });
    const after = Date.now();
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.text).toBe('');
    const at = (await createdAt(click.id)).getTime();
    expect(at).toBeGreaterThanOrEqual(before - 30 * 86_400_000 - 1);
    expect(at).toBeLessThanOrEqual(after - 30 * 86_400_000 + 1);

    // seconds 0: the click is made "now" again.
    expect((await age(t, click.id, { seconds: 0 })).status).toBe(204);
    expect(Date.now() - (await createdAt(click.id)).getTime()).toBeLessThan(60_000);
  });

  it('answer 404 for an unknown click', async () => {
    const res = await age(t, 'clk_doesnotexist000000000000', { seconds: 10 });
    expectError(res, 404, 'not_found_error');
  });

  it('answer 400 for a bad seconds, and leave the click alone', async () => {
    const click = await createClick(t, org, { partner_id: partner.id });
    for (const body of [{ seconds: -1 }, { seconds: 'ten' }, { seconds: null }, {}, { seconds: 1e300 }]) {
      const res = await age(t, click.id, body);
      expectError(res, 400, 'invalid_request_error', 'seconds');
    }
    expect((await createdAt(click.id)).toISOString()).toBe(click.created_at);
  });

  it("expire a partner's portal sign-in links and sessions: 204, and the link no longer signs in; 404 for an unknown partner", async () => {
    const program = (await t.request.get(`/v1/programs/${org.program_id}`).set(org.auth)).body.data;
    const link = await signInLinkCausedBy(t, partner.email, () =>
      t.request.post(`/p/${program.subdomain}/sign-in`).type('form').send({ email: partner.email }),
    );
    const expire = (id: string) => t.request.post(`/__test/partners/${id}/expire-access`);
    expect((await expire(partner.id)).status).toBe(204);
    expect((await t.request.post(link)).status).toBe(410);
    expectError(await expire('ptn_doesnotexist000000000000'), 404, 'not_found_error');
  });

  it('stay out of /v1 and of the OpenAPI document', async () => {
    const doc = (await t.request.get('/v1/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.includes('__test') || p.includes('/age'))).toEqual([]);
    expect((await t.request.post('/v1/clicks/x/age').set(org.auth).send({ seconds: 1 })).status).toBe(404);
  });
});
