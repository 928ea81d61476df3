import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { expectError, expectNoLeak } from '../support/expect-error.js';
import type { TestOrg } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

/**
 * The shared HTTP conventions (ingest/docs/api.md): success envelopes, authentication,
 * request validation, body handling and error bodies.
 */

const INVALID_KEY_BODY = { success: false, error: { message: 'Invalid API key provided', type: 'authentication_error' } };
const id = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`);

/** What an error body must never carry: stack frames, source paths or SQL. */

describe('API conventions', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ org: 'Acme Inc', program: 'Acme Partners' }] });

  const get = (path: string, o: TestOrg = org) => t.request.get(path).set(o.auth);
  const post = (path: string, body: unknown, o: TestOrg = org) =>
    t.request
      .post(path)
      .set(o.auth)
      .send(body as object);
  const put = (path: string, body: unknown, o: TestOrg = org) =>
    t.request
      .put(path)
      .set(o.auth)
      .send(body as object);
  const del = (path: string, o: TestOrg = org) => t.request.delete(path).set(o.auth);

  async function count(path: string, o: TestOrg = org): Promise<number> {
    const res = await get(path, o);
    expect(res.status).toBe(200);
    return res.body.total_count;
  }

  let partnerSeq = 0;
  const partnerBody = (extra: Record<string, unknown> = {}) => ({
    program_id: org.program_id,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: `conv-${++partnerSeq}-${Date.now()}@example.com`,
    ...extra,
  });

  describe('success envelopes', () => {
    it('create answers 201 with data holding exactly one program, retrieve answers the bare object', async () => {
      const created = await post('/v1/programs', { name: 'Envelope program' });
      expect(created.status).toBe(201);
      expect(created.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(created.body).sort()).toEqual(['data', 'success']);
      expect(created.body.success).toBe(true);
      expect(Array.isArray(created.body.data)).toBe(true);
      expect(created.body.data).toHaveLength(1);
      const program = created.body.data[0];
      expect(program.id).toMatch(id('prg'));
      expect(program.name).toBe('Envelope program');
      expect(program.organization_id).toBe(org.organization_id);
      expect(program.created_at).toMatch(ISO_MS);
      expect(program.updated_at).toMatch(ISO_MS);

      const retrieved = await get(`/v1/programs/${program.id}`);
      expect(retrieved.status).toBe(200);
      expect(Object.keys(retrieved.body).sort()).toEqual(['data', 'success']);
      expect(Array.isArray(retrieved.body.data)).toBe(false);
      expect(retrieved.body).toEqual({ success: true, data: program });
    });

    it('list answers {success, data, has_more, total_count} and nothing else', async () => {
      const res = await get('/v1/programs');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'success', 'total_count']);
      expect(res.body.success).toBe(true);
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(typeof res.body.has_more).toBe('boolean');
      expect(Number.isInteger(res.body.total_count)).toBe(true);
      expect(res.body.total_count).toBeGreaterThanOrEqual(1);
      expect(res.body.data.map((p: { id: string }) => p.id)).toContain(org.program_id);
    });

    it('a group goes through create 201 [obj], retrieve obj, update [obj], list, delete {id, deleted:true}', async () => {
      const listPath = `/v1/groups?program_id=${org.program_id}`;
      const before = await count(listPath);

      const created = await post('/v1/groups', { program_id: org.program_id, name: 'Gold', description: 'Top partners' });
      expect(created.status).toBe(201);
      expect(created.body.data).toHaveLength(1);
      const group = created.body.data[0];
      expect(group).toMatchObject({ name: 'Gold', description: 'Top partners', default: false, program_id: org.program_id });
      expect(group.id).toMatch(id('grp'));
      expect(await count(listPath)).toBe(before + 1);

      const retrieved = await get(`/v1/groups/${group.id}`);
      expect(retrieved.status).toBe(200);
      expect(retrieved.body).toEqual({ success: true, data: group });

      const updated = await put(`/v1/groups/${group.id}`, { name: 'Platinum' });
      expect(updated.status).toBe(200);
      expect(Object.keys(updated.body).sort()).toEqual(['data', 'success']);
      expect(updated.body.data).toHaveLength(1);
      expect(updated.body.data[0]).toMatchObject({ id: group.id, name: 'Platinum', description: 'Top partners' });
      expect((await get(`/v1/groups/${group.id}`)).body.data.name).toBe('Platinum');

      const deleted = await del(`/v1/groups/${group.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true, data: { id: group.id, deleted: true } });

      expectError(await get(`/v1/groups/${group.id}`), 404, 'not_found_error');
      expect(await count(listPath)).toBe(before);
      const list = await get(`${listPath}&limit=100`);
      expect(list.body.data.map((g: { id: string }) => g.id)).not.toContain(group.id);
    });

    it('a partner goes through create 201 [obj], retrieve obj, update [obj], delete {id, deleted:true}', async () => {
      const listPath = `/v1/partners?program_id=${org.program_id}`;
      const before = await count(listPath);

      const created = await post('/v1/partners', partnerBody({ company_name: 'Analytical Engines' }));
      expect(created.status).toBe(201);
      expect(created.body.data).toHaveLength(1);
      const partner = created.body.data[0];
      expect(partner.id).toMatch(id('part'));
      expect(partner).toMatchObject({ program_id: org.program_id, organization_id: org.organization_id, group_id: org.group_id });
      expect(await count(listPath)).toBe(before + 1);

      const retrieved = await get(`/v1/partners/${partner.id}`);
      expect(retrieved.status).toBe(200);
      expect(retrieved.body).toEqual({ success: true, data: partner });

      const updated = await put(`/v1/partners/${partner.id}`, { company_name: 'Difference Engines' });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toHaveLength(1);
      expect(updated.body.data[0]).toMatchObject({ id: partner.id, company_name: 'Difference Engines' });

      const deleted = await del(`/v1/partners/${partner.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true, data: { id: partner.id, deleted: true } });
      expectError(await get(`/v1/partners/${partner.id}`), 404, 'not_found_error');
      expect(await count(listPath)).toBe(before);
    });

    it('an API key is created 201 with its secret once, listed without it, and revoked with {id, deleted:true}', async () => {
      const before = await count('/v1/api-keys');
      const created = await post('/v1/api-keys', { name: 'CI' });
      expect(created.status).toBe(201);
      expect(created.body.data).toHaveLength(1);
      const key = created.body.data[0];
      expect(key.id).toMatch(id('key'));
      expect(key.secret).toMatch(/^sk_[0-9A-Za-z]+$/);
      expect(key.redacted_key).toBe(`sk_…${key.secret.slice(-4)}`);
      expect(await count('/v1/api-keys')).toBe(before + 1);

      const list = await get('/v1/api-keys?limit=100');
      const listed = list.body.data.find((k: { id: string }) => k.id === key.id);
      expect(listed).toBeDefined();
      expect(listed).not.toHaveProperty('secret');
      expect(JSON.stringify(list.body)).not.toContain(key.secret);

      const asNewKey = await t.request.get('/v1/programs').set({ Authorization: `Bearer ${key.secret}` });
      expect(asNewKey.status).toBe(200);

      const revoked = await del(`/v1/api-keys/${key.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ success: true, data: { id: key.id, deleted: true } });
      expect(await count('/v1/api-keys')).toBe(before);
    });
  });

  describe('authentication', () => {
    it.each([
      ['no Authorization header', undefined],
      ['an empty header', ''],
      ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
      ['Bearer without a key', 'Bearer '],
      ['an unknown secret key', 'Bearer sk_doesNotExist1234567890abcdef'],
      ['a key with characters outside base62', 'Bearer sk_abc$def'],
      ['a key without the sk_ prefix', 'Bearer abcdefghijklmnopqrstuvwxyz'],
    ])('%s answers 401 with the authentication_error body', async (_label, header) => {
      const req = t.request.get('/v1/programs');
      const res = await (header === undefined ? req : req.set('Authorization', header));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID_KEY_BODY);
    });

    it('a public key (pk_) is not accepted as a secret key', async () => {
      const res = await t.request.get('/v1/programs').set('Authorization', `Bearer ${org.public_key}`);
      expect(org.public_key).toMatch(/^pk_/);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID_KEY_BODY);
    });

    it('the Bearer scheme name is case-insensitive, the key is not', async () => {
      const lower = await t.request.get('/v1/programs').set('Authorization', `bearer ${org.api_key}`);
      expect(lower.status).toBe(200);
      const secret = org.api_key.slice(3);
      const swapped = secret.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
      const wrongCase = await t.request.get('/v1/programs').set('Authorization', `Bearer sk_${swapped}`);
      expect(wrongCase.status).toBe(401);
      expect(wrongCase.body).toEqual(INVALID_KEY_BODY);
    });

    it('a revoked key answers 401 at once while the other keys keep working', async () => {
      const created = await post('/v1/api-keys', { name: 'to revoke' });
      expect(created.status).toBe(201);
      const { id: keyId, secret } = created.body.data[0];
      const auth = { Authorization: `Bearer ${secret}` };
      expect((await t.request.get('/v1/programs').set(auth)).status).toBe(200);

      expect((await del(`/v1/api-keys/${keyId}`)).status).toBe(200);

      for (const res of [
        await t.request.get('/v1/programs').set(auth),
        await t.request.post('/v1/programs').set(auth).send({ name: 'after revoke' }),
        await t.request.delete(`/v1/groups/${org.group_id}`).set(auth),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual(INVALID_KEY_BODY);
      }
      expect((await get('/v1/programs')).status).toBe(200);
      const names = (await get('/v1/programs?limit=100')).body.data.map((p: { name: string }) => p.name);
      expect(names).not.toContain('after revoke');
    });

    it('authentication comes before validation and nothing is written without a key', async () => {
      const before = await count('/v1/programs');
      const invalid = await t.request.post('/v1/programs').send({ bogus: true });
      expect(invalid.status).toBe(401);
      expect(invalid.body).toEqual(INVALID_KEY_BODY);
      const valid = await t.request.post('/v1/programs').set('Authorization', 'Bearer sk_nope').send({ name: 'Sneaky' });
      expect(valid.status).toBe(401);
      expect(await count('/v1/programs')).toBe(before);
    });
  });

  describe('request validation', () => {
    it('an unknown body key answers 400 naming the key, and nothing is created', async () => {
      const before = await count('/v1/programs');
      const res = await post('/v1/programs', { name: 'Typo program', nmae: 'x' });
      expectError(res, 400, 'invalid_request_error', 'nmae');
      expect(res.body.error.message).toContain('nmae');
      expect(await count('/v1/programs')).toBe(before);
    });

    it('an unknown key inside payout_details answers 400 naming the nested key', async () => {
      const listPath = `/v1/partners?program_id=${org.program_id}`;
      const before = await count(listPath);
      const res = await post(
        '/v1/partners',
        partnerBody({ payout_method: 'paypal', payout_details: { email: 'a@example.com', iban: 'x' } }),
      );
      expectError(res, 400, 'invalid_request_error', 'payout_details.iban');
      expect(await count(listPath)).toBe(before);
    });

    it('an unknown query parameter answers 400 naming it', async () => {
      const res = await get(`/v1/groups?program_id=${org.program_id}&sort=name`);
      expectError(res, 400, 'invalid_request_error', 'sort');
      expectError(await get(`/v1/programs/${org.program_id}?expand=group`), 400, 'invalid_request_error', 'expand');
    });

    it('a missing required field answers 400 saying it is required', async () => {
      const res = await post('/v1/groups', { name: 'No program' });
      expectError(res, 400, 'invalid_request_error', 'program_id');
      expect(res.body.error.message).toMatch(/required/);
    });

    it.each([
      ['/v1/programs', { name: 123 }, 'name'],
      ['/v1/programs', { name: 'x', cookie_duration: '30' }, 'cookie_duration'],
      ['/v1/programs', { name: 'x', cookie_duration: 1.5 }, 'cookie_duration'],
      ['/v1/programs', { name: 'x', url_params: 'ref' }, 'url_params'],
      ['/v1/groups', { program_id: 'PROGRAM', name: 'x', default: 'yes' }, 'default'],
      ['/v1/groups', { program_id: ['PROGRAM'], name: 'x' }, 'program_id'],
      [
        '/v1/partners',
        { first_name: 'a', last_name: 'b', email: 'wt@example.com', program_id: 'PROGRAM', completed_onboarding: 1 },
        'completed_onboarding',
      ],
      [
        '/v1/partners',
        { first_name: 'a', last_name: 'b', email: 'wt@example.com', program_id: 'PROGRAM', payout_details: 'paypal' },
        'payout_details',
      ],
    ])('POST %s with a wrong type (%j) answers 400 naming the field and saying what was expected', async (path, rawBody, param) => {
      const body = JSON.parse(JSON.stringify(rawBody).replaceAll('PROGRAM', org.program_id));
      const res = await post(path, body);
      expectError(res, 400, 'invalid_request_error', param);
      expect(res.body.error.message).toMatch(/expected/);
      expect(res.body.error.message).not.toMatch(/required/);
    });

    it.each([
      ['program name', '/v1/programs', (s: string) => ({ name: s }), 200, 'name'],
      ['group name', '/v1/groups', (s: string) => ({ program_id: 'PROGRAM', name: s }), 200, 'name'],
      ['group description', '/v1/groups', (s: string) => ({ program_id: 'PROGRAM', name: 'g', description: s }), 2000, 'description'],
      [
        'partner first_name',
        '/v1/partners',
        (s: string) => ({ program_id: 'PROGRAM', first_name: s, last_name: 'b', email: `len-${s.length}-${Date.now()}@example.com` }),
        100,
        'first_name',
      ],
    ])('a %s one character over its maximum answers 400, at the maximum it is accepted', async (_label, path, make, max, param) => {
      const build = (s: string) => JSON.parse(JSON.stringify(make(s)).replaceAll('PROGRAM', org.program_id));
      const tooLong = await post(path, build('x'.repeat(max + 1)));
      expectError(tooLong, 400, 'invalid_request_error', param);
      const atMax = await post(path, build('y'.repeat(max)));
      expect(atMax.status, JSON.stringify(atMax.body)).toBe(201);
      const created = atMax.body.data[0];
      const readBack = await get(`${path}/${created.id}`);
      expect(readBack.status).toBe(200);
      expect(readBack.body.data[param]).toHaveLength(max);
    });

    it('an over-long e-mail is refused', async () => {
      const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`;
      expect(email.length).toBeGreaterThan(254);
      expectError(await post('/v1/partners', partnerBody({ email })), 400, 'invalid_request_error', 'email');
    });

    it.each([
      ['/v1/programs', { name: 'x', type: 'secret' }, 'type'],
      ['/v1/programs', { name: 'x', status: 'paused' }, 'status'],
      ['/v1/programs', { name: 'x', payout_methods: ['paypal', 'cheque'] }, 'payout_methods.1'],
      ['/v1/programs', { name: 'x', attribution_model: 'linear' }, 'attribution_model'],
      ['/v1/partners', { payout_method: 'cash' }, 'payout_method'],
      ['/v1/partners', { status: 'ACTIVE' }, 'status'],
    ])('POST %s with a value outside its enum (%j) answers 400', async (path, extra, param) => {
      const body = path === '/v1/partners' ? partnerBody(extra) : extra;
      const res = await post(path, body);
      expectError(res, 400, 'invalid_request_error', param);
    });

    it.each([
      [{ email: 'not-an-email' }, 'email'],
      [{ country_code: 'XX' }, 'country_code'],
      [{ country_code: 'USA' }, 'country_code'],
      [{ program_id: '' }, 'program_id'],
    ])('a partner with a malformed field %j answers 400', async (extra, param) => {
      const listPath = `/v1/partners?program_id=${org.program_id}`;
      const before = await count(listPath);
      expectError(await post('/v1/partners', partnerBody(extra)), 400, 'invalid_request_error', param);
      expect(await count(listPath)).toBe(before);
    });

    it('a program with an unknown currency or a subdomain that is no DNS label answers 400', async () => {
      expectError(await post('/v1/programs', { name: 'x', currency_code: 'QQQ' }), 400, 'invalid_request_error', 'currency_code');
      expectError(await post('/v1/programs', { name: 'x', subdomain: 'Not A Label' }), 400, 'invalid_request_error', 'subdomain');
    });

    it('a body that is a JSON array instead of an object answers 400', async () => {
      const res = await t.request.post('/v1/programs').set(org.auth).set('Content-Type', 'application/json').send('[{"name":"x"}]');
      expectError(res, 400, 'invalid_request_error');
    });

    it('a NUL character in a body string answers 400 naming the field instead of failing in SQL', async () => {
      const before = await count('/v1/programs');
      const res = await t.request
        .post('/v1/programs')
        .set(org.auth)
        .set('Content-Type', 'application/json')
        .send('{"name":"nul\\u0000name"}');
      expectError(res, 400, 'invalid_request_error', 'name');
      expect(await count('/v1/programs')).toBe(before);
    });

    it('a NUL character in a query value or a path id answers 400 instead of 500', async () => {
      expectError(await get('/v1/groups?program_id=prg_%00'), 400, 'invalid_request_error', 'program_id');
      expectError(await get('/v1/programs/prg_%00'), 400, 'invalid_request_error', 'id');
      expectError(await del('/v1/groups/grp_%00'), 400, 'invalid_request_error', 'id');
    });

    it('a path with malformed percent-encoding answers 400 instead of 500', async () => {
      expectError(await get('/v1/programs/%zz'), 400, 'invalid_request_error');
      expectError(await get('/v1/partners/%E0%A4%A'), 400, 'invalid_request_error');
    });
  });

  describe('request bodies', () => {
    it('malformed JSON answers 400 invalid_request_error and creates nothing', async () => {
      const before = await count('/v1/programs');
      for (const raw of ['{"name": "x",}', '{name: "x"}', '{"name": "x"', 'null', '"just a string"']) {
        const res = await t.request.post('/v1/programs').set(org.auth).set('Content-Type', 'application/json').send(raw);
        expectError(res, 400, 'invalid_request_error');
        expect(res.body.error.message).toMatch(/JSON/);
      }
      expect(await count('/v1/programs')).toBe(before);
    });

    it('a body over 100 KB answers 413, before validation, and creates nothing', async () => {
      const listPath = `/v1/groups?program_id=${org.program_id}`;
      const before = await count(listPath);
      const res = await post('/v1/groups', { program_id: org.program_id, name: 'Huge', description: 'x'.repeat(101 * 1024) });
      expectError(res, 413, 'payload_too_large');
      expect(await count(listPath)).toBe(before);
    });

    it('a body just under 100 KB is read and then validated (400 for the long field, not 413)', async () => {
      const res = await post('/v1/groups', { program_id: org.program_id, name: 'Big', description: 'x'.repeat(99 * 1024) });
      expectError(res, 400, 'invalid_request_error', 'description');
    });

    it.each([
      ['text/plain', 'name=Plain'],
      ['application/x-www-form-urlencoded', 'name=Form'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nMultipart\r\n--xyz--\r\n'],
      ['application/xml', '<name>Xml</name>'],
    ])('a body sent as %s answers 400 and creates nothing', async (contentType, raw) => {
      const before = await count('/v1/programs');
      const res = await t.request.post('/v1/programs').set(org.auth).set('Content-Type', contentType).send(raw);
      expectError(res, 400, 'invalid_request_error');
      expect(res.body.error.message).toMatch(/application\/json/);
      expect(await count('/v1/programs')).toBe(before);
    });

    it('a JSON body in a charset other than UTF-8 answers 400', async () => {
      const res = await t.request
        .post('/v1/programs')
        .set(org.auth)
        .set('Content-Type', 'application/json; charset=latin1')
        .send('{"name":"x"}');
      expectError(res, 400, 'invalid_request_error');
    });

    it('application/json; charset=utf-8 is accepted', async () => {
      const res = await t.request
        .post('/v1/programs')
        .set(org.auth)
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify({ name: 'Charset program' }));
      expect(res.status).toBe(201);
      expect((await get(`/v1/programs/${res.body.data[0].id}`)).body.data.name).toBe('Charset program');
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/v1/nothing-here'],
      ['GET', '/v2/programs'],
      ['POST', '/v1/programs/prg_x/archive'],
      ['DELETE', '/v1/programs/ID'],
      ['PATCH', '/v1/groups/ID'],
      ['GET', '/'],
    ])('%s %s answers 404 not_found_error in the error envelope', async (method, rawPath) => {
      const path = rawPath.replace('ID', org.program_id);
      const res = await t.request[method.toLowerCase() as 'get'](path).set(org.auth);
      expectError(res, 404, 'not_found_error');
    });

    it('DELETE on a program (no such operation) leaves the program in place', async () => {
      expect((await del(`/v1/programs/${org.program_id}`)).status).toBe(404);
      expect((await get(`/v1/programs/${org.program_id}`)).status).toBe(200);
    });
  });
});

describe('server errors', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ org: 'Acme Inc', program: 'Acme Partners' }] });

  it('a failing SQL statement answers 500 api_error with a generic message, no stack and no SQL', async () => {
    await sql`alter table groups rename to groups_unavailable`.execute(t.storage.db);
    try {
      const res = await t.request.get(`/v1/groups?program_id=${org.program_id}`).set(org.auth);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, error: { message: 'Internal server error', type: 'api_error' } });
      expectNoLeak(res);
    } finally {
      await sql`alter table groups_unavailable rename to groups`.execute(t.storage.db);
    }
    const recovered = await t.request.get(`/v1/groups?program_id=${org.program_id}`).set(org.auth);
    expect(recovered.status).toBe(200);
    expect(recovered.body.total_count).toBe(1);
  });
});
