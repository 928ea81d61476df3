import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { createProgram } from '../support/factories.js';
import { resource, useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

/**
 * /v1/webhook-endpoints (ingest/docs/webhooks.md): the merchant's receivers, their secrets, and
 * where they may point.
 */

const ENDPOINT_FIELDS = [
  'id',
  'url',
  'description',
  'events',
  'program_id',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'failing_since',
  'redacted_secret',
  'previous_secret_expires_at',
  'organization_id',
  'created_at',
  'updated_at',
].sort();

describe('/v1/webhook-endpoints', () => {
  const {
    t,
    orgs: [org, other],
  } = useTestApp({ orgs: 2 });
  const endpoints = () => resource(t, '/v1/webhook-endpoints', org);
  const URL = 'https://hooks.example.com/svc';

  it('creates an endpoint and shows its signing secret once', async () => {
    const res = await endpoints().post({ url: URL, description: 'CRM sync', events: ['partner.created', 'commission.*'] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const created = res.body.data[0];
    expect(Object.keys(created).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
    expect(created).toMatchObject({
      id: expect.stringMatching(/^we_\w{24}$/),
      url: URL,
      description: 'CRM sync',
      events: ['partner.created', 'commission.*'],
      program_id: null,
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
      organization_id: org.organization_id,
      created_at: expect.stringMatching(ISO_MS),
    });
    // 32 random bytes, base64: the Standard Webhooks secret format.
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(created.redacted_secret).toBe(`whsec_…${created.secret.slice(-4)}`);

    const read = await endpoints().get(created.id);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body.data).sort()).toEqual(ENDPOINT_FIELDS);
    const listed = await endpoints().list();
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
  });

  it('subscribes to everything by default; `*` covers any other filter', async () => {
    expect((await endpoints().post({ url: URL })).body.data[0].events).toEqual(['*']);
    expect((await endpoints().post({ url: URL, events: ['link.created', '*'] })).body.data[0].events).toEqual(['*']);
    expect((await endpoints().post({ url: URL, events: ['link.created', 'link.created'] })).body.data[0].events).toEqual(['link.created']);
  });

  it('replays a create under the same Idempotency-Key without the secret', async () => {
    const send = () => t.request.post('/v1/webhook-endpoints').set(org.auth).set('Idempotency-Key', `we-${Date.now()}`).send({ url: URL });
    const key = `we-${Math.random()}`;
    const first = await t.request.post('/v1/webhook-endpoints').set(org.auth).set('Idempotency-Key', key).send({ url: URL });
    const replay = await t.request.post('/v1/webhook-endpoints').set(org.auth).set('Idempotency-Key', key).send({ url: URL });
    expect(first.body.data[0].secret).toMatch(/^whsec_/);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data[0].id).toBe(first.body.data[0].id);
    expect(replay.body.data[0].secret).toBeUndefined();
    expect((await send()).status).toBe(201);
  });

  it('refuses URLs that are not https or point at private, loopback or link-local addresses (SSRF)', async () => {
    const refused = [
      'http://hooks.example.com/svc',
      'https://127.0.0.1/hook',
      'https://localhost:8787/hook',
      'https://api.localhost/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::127.0.0.1]/hook',
      'https://localhost./hook',
      'https://2130706433/hook',
      'https://0x7f.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.5/hook',
      'https://192.168.1.1/hook',
      'https://172.16.0.1/hook',
      'https://100.64.0.1/hook',
      'https://[fd00::1]/hook',
      'https://0.0.0.0/hook',
      'https://user:password@hooks.example.com/svc',
      'ftp://hooks.example.com/svc',
      'not a url',
    ];
    for (const url of refused) {
      expectError(await endpoints().post({ url }), 400, 'invalid_request_error', 'url');
    }
    const res = await endpoints().post({ url: 'https://93.184.215.14/hook' });
    expect(res.status).toBe(201);
  });

  it('updates, narrows to a program, disables and deletes', async () => {
    const program = await createProgram(t, org);
    const { id } = (await endpoints().post({ url: URL })).body.data[0];
    const updated = await endpoints().put(id, {
      url: 'https://hooks.example.com/v2',
      events: ['transaction.refunded'],
      program_id: program.id,
      description: null,
      enabled: false,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data[0]).toMatchObject({
      url: 'https://hooks.example.com/v2',
      events: ['transaction.refunded'],
      program_id: program.id,
      description: null,
      enabled: false,
      disabled_reason: null,
    });
    expect((await endpoints().list({ program_id: program.id })).body.data.map((e: { id: string }) => e.id)).toEqual([id]);
    expect((await endpoints().put(id, { url: 'https://127.0.0.1/' })).body.error.param).toBe('url');
    expect((await endpoints().put(id, { events: ['payout.whatever'] })).status).toBe(400);
    expect((await endpoints().put(id, { events: [] })).status).toBe(400);

    const deleted = await endpoints().del(id);
    expect(deleted.body).toEqual({ success: true, data: { id, deleted: true } });
    expect((await endpoints().get(id)).status).toBe(404);
  });

  it("answers 404 for another organization's endpoint or program", async () => {
    const { id } = (await endpoints().post({ url: URL })).body.data[0];
    for (const res of [
      await endpoints().get(id, undefined, other),
      await endpoints().put(id, { enabled: false }, other),
      await endpoints().del(id, other),
      await t.request.post(`/v1/webhook-endpoints/${id}/rotate-secret`).set(other.auth),
      await t.request.post(`/v1/webhook-endpoints/${id}/test`).set(other.auth),
      await t.request.get(`/v1/webhook-endpoints/${id}/deliveries`).set(other.auth),
    ]) {
      expectError(res, 404, 'not_found_error');
    }
    expectError(await endpoints().post({ url: URL, program_id: other.program_id }), 404, 'not_found_error', 'program_id');
    expect((await endpoints().get(id)).body.data.enabled).toBe(true);
  });
});

describe('/v1/webhook-endpoints with SVC_WEBHOOKS_ALLOW_PRIVATE=true (local development)', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1, env: { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' } });

  it('accepts plain http and loopback receivers, and still no credentials in the URL', async () => {
    const post = (url: string) => t.request.post('/v1/webhook-endpoints').set(org.auth).send({ url });
    expect((await post('http://localhost:4000/hooks')).status).toBe(201);
    expect((await post('http://127.0.0.1:4000/hooks')).status).toBe(201);
    expect((await post('http://me:secret@127.0.0.1:4000/hooks')).status).toBe(400);
  });
});
