import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/ids.js';
import { expectError } from '../support/expect-error.js';
import type { TestOrg } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

describe('API keys API', () => {
  const {
    t,
    orgs: [a, b],
  } = useTestApp({
    orgs: [
      { org: 'Org A', program: 'Program A' },
      { org: 'Org B', program: 'Program B' },
    ],
  });

  const db = () => t.storage.db;
  const activeKeyIds = async (organizationId: string) =>
    (
      await db().selectFrom('api_keys').select('id').where('organization_id', '=', organizationId).where('revoked_at', 'is', null).execute()
    ).map((k) => k.id);

  async function createKey(org: TestOrg, body: Record<string, unknown> = {}) {
    const res = await t.request.post('/v1/api-keys').set(org.auth).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0] as {
      id: string;
      name: string | null;
      secret: string;
      redacted_key: string;
      organization_id: string;
      created_at: string;
    };
  }

  it('creates a key and shows its sk_ secret once, in the create response only', async () => {
    const res = await t.request.post('/v1/api-keys').set(a.auth).send({ name: 'CI deploy' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toHaveLength(1);
    const key = res.body.data[0];
    expect(key.id).toMatch(/^key_[0-9A-Za-z]{24}$/);
    expect(key.secret).toMatch(/^sk_[0-9A-Za-z]{32}$/);
    expect(key).toMatchObject({ name: 'CI deploy', organization_id: a.organization_id, redacted_key: `sk_…${key.secret.slice(-4)}` });

    const list = await t.request.get('/v1/api-keys').query({ limit: 100 }).set(a.auth);
    expect(list.status).toBe(200);
    const listed = list.body.data.find((k: { id: string }) => k.id === key.id);
    expect(listed).toEqual({
      id: key.id,
      name: 'CI deploy',
      redacted_key: key.redacted_key,
      organization_id: a.organization_id,
      created_at: key.created_at,
    });
    expect(JSON.stringify(list.body)).not.toContain(key.secret);
    for (const k of list.body.data) {
      expect(k.secret).toBeUndefined();
      expect(k.redacted_key).toMatch(/^sk_…[0-9A-Za-z]{4}$/);
    }
  });

  it('lists only the caller organization’s active keys', async () => {
    const list = await t.request.get('/v1/api-keys').query({ limit: 100 }).set(b.auth);
    expect(list.status).toBe(200);
    const ids = list.body.data.map((k: { id: string }) => k.id);
    expect(ids.sort()).toEqual((await activeKeyIds(b.organization_id)).sort());
    expect(list.body.total_count).toBe(ids.length);
    for (const k of list.body.data) expect(k.organization_id).toBe(b.organization_id);
  });

  it('creates a key without a name', async () => {
    const key = await createKey(a);
    expect(key.name).toBeNull();
  });

  it('rejects unknown body keys and an over-long name, creating nothing', async () => {
    const before = await activeKeyIds(a.organization_id);
    expectError(await t.request.post('/v1/api-keys').set(a.auth).send({ name: 'x', scope: 'all' }), 400, 'invalid_request_error', 'scope');
    expectError(
      await t.request
        .post('/v1/api-keys')
        .set(a.auth)
        .send({ name: 'n'.repeat(101) }),
      400,
      'invalid_request_error',
      'name',
    );
    expect(await activeKeyIds(a.organization_id)).toEqual(before);
  });

  it('a new key works for requests at once, for its own organization', async () => {
    const key = await createKey(a, { name: 'works' });
    const res = await t.request.get('/v1/programs').set(bearer(key.secret));
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toContain(a.program_id);
    expect(res.body.data.map((p: { id: string }) => p.id)).not.toContain(b.program_id);
    const prog = await t.request.get(`/v1/programs/${a.program_id}`).set(bearer(key.secret));
    expect(prog.status).toBe(200);
  });

  it('stores only the SHA-256 hash of the secret, never the secret', async () => {
    const key = await createKey(a, { name: 'hash check' });
    const row = await db().selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(sha256(key.secret));
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.last4).toBe(key.secret.slice(-4));
    expect(row.revoked_at).toBeNull();
    const serialized = JSON.stringify(row);
    expect(serialized).not.toContain(key.secret);
    expect(serialized).not.toContain(key.secret.slice(3)); // not even without the prefix
    // No column anywhere in the table holds the secret.
    const all = await db().selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(all)).not.toContain(key.secret.slice(3, 20));
  });

  it('revokes a key at once: 200, then that key gets 401 while others keep working', async () => {
    const doomed = await createKey(a, { name: 'doomed' });
    expect((await t.request.get('/v1/programs').set(bearer(doomed.secret))).status).toBe(200);

    const res = await t.request.delete(`/v1/api-keys/${doomed.id}`).set(a.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: doomed.id, deleted: true } });

    const after = await t.request.get('/v1/programs').set(bearer(doomed.secret));
    expectError(after, 401, 'authentication_error');
    expectError(await t.request.post('/v1/api-keys').set(bearer(doomed.secret)).send({}), 401, 'authentication_error');

    const list = await t.request.get('/v1/api-keys').query({ limit: 100 }).set(a.auth);
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(doomed.id);
    const row = await db().selectFrom('api_keys').select('revoked_at').where('id', '=', doomed.id).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();

    expect((await t.request.get('/v1/programs').set(a.auth)).status).toBe(200);
    // Revoking it again: it is no longer an active key.
    expectError(await t.request.delete(`/v1/api-keys/${doomed.id}`).set(a.auth), 404, 'not_found_error');
  });

  it('a key can revoke itself when another active key remains', async () => {
    const c = await t.newOrganization({ org: 'Org C', program: 'Program C' });
    const second = await createKey(c);
    const self = (
      await db().selectFrom('api_keys').select('id').where('organization_id', '=', c.organization_id).orderBy('created_at').execute()
    )[0].id;
    const res = await t.request.delete(`/v1/api-keys/${self}`).set(c.auth);
    expect(res.status).toBe(200);
    expectError(await t.request.get('/v1/programs').set(c.auth), 401, 'authentication_error');
    expect((await t.request.get('/v1/programs').set(bearer(second.secret))).status).toBe(200);
    expect(await activeKeyIds(c.organization_id)).toEqual([second.id]);
  });

  it('refuses to revoke the organization’s last active key (400) and the key keeps working', async () => {
    const d = await t.newOrganization({ org: 'Org D', program: 'Program D' });
    const [only] = await activeKeyIds(d.organization_id);
    const res = await t.request.delete(`/v1/api-keys/${only}`).set(d.auth);
    expectError(res, 400, 'invalid_request_error', 'id');
    expect(await activeKeyIds(d.organization_id)).toEqual([only]);
    expect((await t.request.get('/v1/programs').set(d.auth)).status).toBe(200);
  });

  it('two concurrent revocations of an organization’s only two keys leave one key active', async () => {
    const e = await t.newOrganization({ org: 'Org E', program: 'Program E' });
    const second = await createKey(e);
    const [first] = (await activeKeyIds(e.organization_id)).filter((id) => id !== second.id);
    const results = await Promise.all([
      t.request.delete(`/v1/api-keys/${first}`).set(bearer(second.secret)),
      t.request.delete(`/v1/api-keys/${second.id}`).set(e.auth),
    ]);
    const statuses = results.map((r) => r.status).sort();
    // One wins; the other is refused as the last key (or fails auth because its key was just revoked).
    expect(statuses[0]).toBe(200);
    expect([400, 401]).toContain(statuses[1]);
    expect(await activeKeyIds(e.organization_id)).toHaveLength(1);
  });

  it('answers 404 for another organization’s key and leaves it active', async () => {
    const foreign = await createKey(b, { name: 'b key' });
    const res = await t.request.delete(`/v1/api-keys/${foreign.id}`).set(a.auth);
    expectError(res, 404, 'not_found_error');
    expect(await activeKeyIds(b.organization_id)).toContain(foreign.id);
    expect((await t.request.get('/v1/programs').set(bearer(foreign.secret))).status).toBe(200);
  });

  it('answers 404 for a missing key', async () => {
    expectError(await t.request.delete('/v1/api-keys/key_missing').set(a.auth), 404, 'not_found_error');
  });

  it('requires a valid secret key; public keys and malformed headers are refused', async () => {
    expectError(await t.request.get('/v1/api-keys'), 401, 'authentication_error');
    expectError(await t.request.get('/v1/api-keys').set(bearer(a.public_key)), 401, 'authentication_error');
    expectError(await t.request.get('/v1/api-keys').set({ Authorization: a.api_key }), 401, 'authentication_error');
    expectError(await t.request.get('/v1/api-keys').set(bearer(`sk_${'x'.repeat(32)}`)), 401, 'authentication_error');
    const before = await activeKeyIds(a.organization_id);
    expectError(await t.request.post('/v1/api-keys').send({}), 401, 'authentication_error');
    expect(await activeKeyIds(a.organization_id)).toEqual(before);
  });
});
