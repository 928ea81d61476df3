import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { createGroup, createPartner, type TestOrg, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { STORAGE } from '../support/harness.js';
import { EVENTUALLY } from '../support/time.js';

/**
 * `Idempotency-Key` on POST/PUT/DELETE (ingest/docs/api.md#idempotency): the same key and body
 * replay the first response with `Idempotent-Replayed: true`; another body → 400; while the first
 * request is still running → 409; keys belong to the organization.
 */

let keySeq = 0;
const newKey = () => `idem-${Date.now()}-${++keySeq}`;

describe('Idempotency-Key', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ org: 'Acme Inc', program: 'Acme Partners' }] });

  const programCount = async (o: TestOrg = org) => {
    const res = await t.request.get('/v1/programs').set(o.auth);
    expect(res.status).toBe(200);
    return res.body.total_count as number;
  };
  const groupCount = async (programId = org.program_id) => {
    const res = await t.request.get(`/v1/groups?program_id=${programId}`).set(org.auth);
    expect(res.status).toBe(200);
    return res.body.total_count as number;
  };
  const createProgram = (key: string, body: object, o: TestOrg = org) =>
    t.request.post('/v1/programs').set(o.auth).set('Idempotency-Key', key).send(body);

  it('the same key and body replay the first response and create nothing new', async () => {
    const before = await programCount();
    const key = newKey();
    const first = await createProgram(key, { name: 'Once only' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const second = await createProgram(key, { name: 'Once only' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);

    const third = await createProgram(key, { name: 'Once only' });
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body.data[0].id).toBe(first.body.data[0].id);

    expect(await programCount()).toBe(before + 1);
    const stored = await t.request.get(`/v1/programs/${first.body.data[0].id}`).set(org.auth);
    expect(stored.status).toBe(200);
    expect(stored.body.data.name).toBe('Once only');
  });

  it('the same parameters in another key order count as the same body and replay', async () => {
    const before = await programCount();
    const key = newKey();
    const first = await createProgram(key, { name: 'Ordered', cookie_duration: 45 });
    expect(first.status).toBe(201);
    const second = await createProgram(key, { cookie_duration: 45, name: 'Ordered' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data[0].id).toBe(first.body.data[0].id);
    expect(await programCount()).toBe(before + 1);
  });

  it('without a key, two identical requests create two records', async () => {
    const before = await programCount();
    const a = await t.request.post('/v1/programs').set(org.auth).send({ name: 'Twice' });
    const b = await t.request.post('/v1/programs').set(org.auth).send({ name: 'Twice' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data[0].id).not.toBe(b.body.data[0].id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await programCount()).toBe(before + 2);
  });

  it('the same key with a different body answers 400 and creates nothing', async () => {
    const key = newKey();
    expect((await createProgram(key, { name: 'First body' })).status).toBe(201);
    const before = await programCount();

    const other = await createProgram(key, { name: 'Second body' });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ success: false, error: { type: 'invalid_request_error', param: 'Idempotency-Key' } });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await programCount()).toBe(before);
    const names = (await t.request.get('/v1/programs?limit=100').set(org.auth)).body.data.map((p: { name: string }) => p.name);
    expect(names).not.toContain('Second body');

    // The original body still replays afterwards.
    const again = await createProgram(key, { name: 'First body' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('the same key on another endpoint answers 400', async () => {
    const key = newKey();
    expect((await createProgram(key, { name: 'Keyed' })).status).toBe(201);
    const before = await groupCount();
    const res = await t.request
      .post('/v1/groups')
      .set(org.auth)
      .set('Idempotency-Key', key)
      .send({ program_id: org.program_id, name: 'Keyed' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'Idempotency-Key' });
    expect(await groupCount()).toBe(before);
  });

  it('a replayed PUT does not run again: the later change stays', async () => {
    const group = await createGroup(t, org, { program_id: org.program_id, name: 'Original' });
    const key = newKey();
    const first = await t.request.put(`/v1/groups/${group.id}`).set(org.auth).set('Idempotency-Key', key).send({ name: 'Renamed once' });
    expect(first.status).toBe(200);
    expect((await t.request.put(`/v1/groups/${group.id}`).set(org.auth).send({ name: 'Renamed later' })).status).toBe(200);

    const replay = await t.request.put(`/v1/groups/${group.id}`).set(org.auth).set('Idempotency-Key', key).send({ name: 'Renamed once' });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);

    const now = await t.request.get(`/v1/groups/${group.id}`).set(org.auth);
    expect(now.body.data.name).toBe('Renamed later');
  });

  it('a replayed DELETE answers the first {id, deleted:true} instead of 404', async () => {
    const { id } = await createPartner(t, org, {
      program_id: org.program_id,
      first_name: 'Del',
      last_name: 'Eted',
      email: uniqueEmail('idem-del'),
    });
    const key = newKey();
    const first = await t.request.delete(`/v1/partners/${id}`).set(org.auth).set('Idempotency-Key', key);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, data: { id, deleted: true } });

    const replay = await t.request.delete(`/v1/partners/${id}`).set(org.auth).set('Idempotency-Key', key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);

    // Without the key the partner is simply gone.
    expect((await t.request.delete(`/v1/partners/${id}`).set(org.auth)).status).toBe(404);
    expect((await t.request.get(`/v1/partners/${id}`).set(org.auth)).status).toBe(404);
  });

  it('a client error is kept and replayed too', async () => {
    const key = newKey();
    const before = await programCount();
    const first = await createProgram(key, { name: 'x', type: 'secret' });
    expect(first.status).toBe(400);
    const replay = await createProgram(key, { name: 'x', type: 'secret' });
    expect(replay.status).toBe(400);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await programCount()).toBe(before);
  });

  // PGlite has one connection, so an embedded service runs a request with a key to its end
  // before the next one starts: a retry there waits and replays (the race test below).
  it.skipIf(STORAGE === 'embedded')('a request whose first attempt is still running answers 409 and creates nothing', async () => {
    const before = await programCount();
    const key = newKey();
    // Hold the first request inside its transaction: its insert waits for this lock.
    const blocker = await t.storage.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`lock table programs in exclusive mode`.execute(conn);
      const firstPromise = createProgram(key, { name: 'Slow program' }).then((r) => r);
      try {
        // The first request holds its key once its insert waits on the lock.
        await vi.waitFor(async () => {
          const { rows } = await sql<{
            n: number;
          }>`select count(*)::int as n from pg_locks where locktype = 'relation' and not granted and database = (select oid from pg_database where datname = current_database())`.execute(
            t.storage.db,
          );
          expect(rows[0].n).toBeGreaterThan(0);
        }, EVENTUALLY);
        const concurrent = await createProgram(key, { name: 'Slow program' });
        expect(concurrent.status).toBe(409);
        expect(concurrent.body).toMatchObject({ success: false, error: { type: 'conflict_error' } });
        expect(concurrent.headers['idempotent-replayed']).toBeUndefined();
      } finally {
        await sql`commit`.execute(conn);
      }
      return firstPromise;
    });
    const first = await blocker;
    expect(first.status).toBe(201);

    const afterwards = await createProgram(key, { name: 'Slow program' });
    expect(afterwards.status).toBe(201);
    expect(afterwards.headers['idempotent-replayed']).toBe('true');
    expect(afterwards.body.data[0].id).toBe(first.body.data[0].id);
    expect(await programCount()).toBe(before + 1);
  });

  it('racing the same key creates exactly one record; the others replay it or answer 409', async () => {
    const before = await programCount();
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 6 }, () => createProgram(key, { name: 'Raced' })));
    const ids = new Set<string>();
    for (const r of results) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 201) ids.add(r.body.data[0].id);
    }
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await programCount()).toBe(before + 1);
  });

  it('a key belongs to the organization: another organization with the same key and body gets its own record', async () => {
    const other = await t.newOrganization({ org: 'Other org', program: 'Other program' });
    const key = newKey();
    const mine = await createProgram(key, { name: 'Shared key' });
    expect(mine.status).toBe(201);
    const otherBefore = await programCount(other);

    const theirs = await createProgram(key, { name: 'Shared key' }, other);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data[0].id).not.toBe(mine.body.data[0].id);
    expect(theirs.body.data[0].organization_id).toBe(other.organization_id);
    expect(await programCount(other)).toBe(otherBefore + 1);

    // and the first organization's record was not handed out
    expect((await t.request.get(`/v1/programs/${mine.body.data[0].id}`).set(other.auth)).status).toBe(404);
  });

  it('a key is shared by all API keys of one organization', async () => {
    const created = await t.request.post('/v1/api-keys').set(org.auth).send({ name: 'second' });
    expect(created.status).toBe(201);
    const secondAuth = { Authorization: `Bearer ${created.body.data[0].secret}` };
    const key = newKey();
    const before = await programCount();
    const first = await createProgram(key, { name: 'Any key' });
    const replay = await t.request.post('/v1/programs').set(secondAuth).set('Idempotency-Key', key).send({ name: 'Any key' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data[0].id).toBe(first.body.data[0].id);
    expect(await programCount()).toBe(before + 1);
  });

  it('GET ignores the header', async () => {
    const key = newKey();
    const a = await t.request.get('/v1/programs?limit=1').set(org.auth).set('Idempotency-Key', key);
    const b = await t.request.get('/v1/programs?limit=2').set(org.auth).set('Idempotency-Key', key);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.data.length).toBeGreaterThanOrEqual(Math.min(2, b.body.total_count));
  });

  it('HEAD ignores the header too: the key stays free for the write it was made for', async () => {
    const key = newKey();
    const head = await t.request.head('/v1/programs').set(org.auth).set('Idempotency-Key', key);
    expect(head.status).toBe(200);
    const before = await programCount();
    const res = await createProgram(key, { name: 'After a HEAD' });
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await programCount()).toBe(before + 1);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
  ])('an %s key answers 400 and creates nothing', async (_label, key) => {
    const before = await programCount();
    const res = await createProgram(key, { name: 'Bad key' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'Idempotency-Key' });
    expect(await programCount()).toBe(before);
  });

  it('a 255-character key is accepted', async () => {
    const key = `${newKey()}-`.padEnd(255, 'x');
    const first = await createProgram(key, { name: 'Long key' });
    expect(first.status).toBe(201);
    expect((await createProgram(key, { name: 'Long key' })).headers['idempotent-replayed']).toBe('true');
  });
});

describe('Idempotency-Key and server errors', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ org: 'Acme Inc', program: 'Acme Partners' }] });

  it('a 500 is not kept: retrying with the same key runs the request again', async () => {
    const key = newKey();
    const body = { program_id: org.program_id, name: 'After outage' };
    await sql`alter table groups rename to groups_down`.execute(t.storage.db);
    let failed: { status: number; body: unknown };
    try {
      failed = await t.request.post('/v1/groups').set(org.auth).set('Idempotency-Key', key).send(body);
    } finally {
      await sql`alter table groups_down rename to groups`.execute(t.storage.db);
    }
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ success: false, error: { message: 'Internal server error', type: 'api_error' } });

    const retried = await t.request.post('/v1/groups').set(org.auth).set('Idempotency-Key', key).send(body);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const list = await t.request.get(`/v1/groups?program_id=${org.program_id}`).set(org.auth);
    expect(list.body.total_count).toBe(2);
    expect(list.body.data.map((g: { name: string }) => g.name)).toContain('After outage');
  });
});
