import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { resource, useTestApp } from '../support/fixture.js';
import { clockPast, ISO_MS } from '../support/time.js';

describe('programs API', () => {
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
  const countPrograms = async (organizationId: string) =>
    (await db().selectFrom('programs').select('id').where('organization_id', '=', organizationId).execute()).length;
  const { post: create, get } = resource(t, '/v1/programs', a);

  describe('POST /v1/programs', () => {
    it('creates a program with the documented defaults and 201 with data as an array of one', async () => {
      const res = await create({ name: 'Acme Partners' });
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const p = res.body.data[0];
      expect(p).toMatchObject({
        name: 'Acme Partners',
        product_name: 'Acme Partners',
        subdomain: 'acme-partners',
        status: 'active',
        type: 'public',
        currency_code: 'USD',
        cookie_duration: 30,
        url_params: ['ref', 'via'],
        payout_term: '30',
        payout_methods: ['paypal', 'wise', 'bank_transfer'],
        attribution_model: 'last_click',
        auto_approve_partners: false,
        partner_terms: null,
        website_url: null,
        organization_id: a.organization_id,
      });
      expect(p.id).toMatch(/^prg_[0-9A-Za-z]{24}$/);
      expect(p.public_key).toMatch(/^pk_[0-9A-Za-z]{24}$/);
      expect(p.default_group_id).toMatch(/^grp_[0-9A-Za-z]{24}$/);
      expect(p.created_at).toMatch(ISO_MS);
      expect(p.updated_at).toBe(p.created_at);

      // Read back through the API.
      const back = await get(p.id);
      expect(back.status).toBe(200);
      expect(back.body).toEqual({ success: true, data: p });
    });

    it('creates exactly one default group for the program, reported as default_group_id', async () => {
      const res = await create({ name: 'Group check' });
      expect(res.status).toBe(201);
      const p = res.body.data[0];
      const groups = await db().selectFrom('groups').selectAll().where('program_id', '=', p.id).execute();
      expect(groups).toHaveLength(1);
      expect(groups[0]).toMatchObject({ id: p.default_group_id, is_default: true, organization_id: a.organization_id, deleted_at: null });

      const list = await t.request.get('/v1/groups').query({ program_id: p.id }).set(a.auth);
      expect(list.status).toBe(200);
      expect(list.body.data.map((g: { id: string; default: boolean }) => [g.id, g.default])).toEqual([[p.default_group_id, true]]);
    });

    it('creates exactly one default flow: 20 % of every payment, approved after 30 days', async () => {
      const res = await create({ name: 'Flow check' });
      expect(res.status).toBe(201);
      const p = res.body.data[0];
      const flows = await db().selectFrom('flows').selectAll().where('program_id', '=', p.id).execute();
      expect(flows).toHaveLength(1);
      const f = flows[0];
      expect(f.id).toMatch(/^flw_/);
      expect(f.organization_id).toBe(a.organization_id);
      expect(f.trigger).toBe('payment');
      expect(f.reward).toEqual({ type: 'percentage', value: 20 });
      expect(f.approval).toEqual({ type: 'scheduled', delay_days: 30 });
      expect(f.conditions).toEqual([]);
      expect(f.is_default).toBe(true);
      expect(f.active).toBe(true);
      expect(f.group_id).toBeNull();
      expect(f.deleted_at).toBeNull();
    });

    it('gives every program its own public key', async () => {
      const one = (await create({ name: 'Key one' })).body.data[0];
      const two = (await create({ name: 'Key two' })).body.data[0];
      expect(one.public_key).toMatch(/^pk_/);
      expect(two.public_key).toMatch(/^pk_/);
      expect(one.public_key).not.toBe(two.public_key);
      const row = await db().selectFrom('programs').select('public_key').where('id', '=', one.id).executeTakeFirstOrThrow();
      expect(row.public_key).toBe(one.public_key);
    });

    it('derives the subdomain from the name as a DNS label', async () => {
      const cases: Array<[string, string]> = [
        ['  Hello,   World!! ', 'hello-world'],
        ['Café Crème', 'cafe-creme'],
        ['!!!', 'program'],
        ['x'.repeat(70), 'x'.repeat(63)],
        [`${'a'.repeat(62)} b`, 'a'.repeat(62)],
      ];
      for (const [name, subdomain] of cases) {
        const res = await create({ name });
        expect(res.status, name).toBe(201);
        expect(res.body.data[0].subdomain, name).toBe(subdomain);
        expect(res.body.data[0].subdomain).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
      }
    });

    it('accepts every field and stores it (currency code upper-cased)', async () => {
      const body = {
        name: 'Full',
        product_name: 'Full Product',
        subdomain: 'full-sub',
        type: 'private',
        status: 'inactive',
        currency_code: 'eur',
        cookie_duration: 3650,
        url_params: ['aff', 'p_1', 'x-y'],
        payout_term: '45',
        payout_methods: ['crypto', 'none'],
        attribution_model: 'first_click',
      };
      const res = await create(body);
      expect(res.status).toBe(201);
      const expected = { ...body, currency_code: 'EUR' };
      expect(res.body.data[0]).toMatchObject(expected);
      const row = await db().selectFrom('programs').selectAll().where('id', '=', res.body.data[0].id).executeTakeFirstOrThrow();
      expect(row).toMatchObject(expected);
    });

    it('accepts cookie_duration at its lower bound of 1 day', async () => {
      const res = await create({ name: 'One day', cookie_duration: 1 });
      expect(res.status).toBe(201);
      expect((await get(res.body.data[0].id)).body.data.cookie_duration).toBe(1);
    });

    const invalidBodies: Array<[string, Record<string, unknown>, string]> = [
      ['name is missing', {}, 'name'],
      ['name is blank', { name: '   ' }, 'name'],
      ['name is too long', { name: 'n'.repeat(201) }, 'name'],
      ['cookie_duration is 0', { name: 'x', cookie_duration: 0 }, 'cookie_duration'],
      ['cookie_duration is over 3650', { name: 'x', cookie_duration: 3651 }, 'cookie_duration'],
      ['cookie_duration is not an integer', { name: 'x', cookie_duration: 1.5 }, 'cookie_duration'],
      ['cookie_duration is a string', { name: 'x', cookie_duration: '30' }, 'cookie_duration'],
      ['url_params is empty', { name: 'x', url_params: [] }, 'url_params'],
      ['url_params has upper case', { name: 'x', url_params: ['Ref'] }, 'url_params.0'],
      ['url_params has a space', { name: 'x', url_params: ['ref', 'a b'] }, 'url_params.1'],
      ['url_params has an empty string', { name: 'x', url_params: [''] }, 'url_params.0'],
      ['url_params has a 33-character value', { name: 'x', url_params: ['a'.repeat(33)] }, 'url_params.0'],
      ['url_params repeats a value', { name: 'x', url_params: ['ref', 'ref'] }, 'url_params'],
      ['url_params has more than 10 values', { name: 'x', url_params: Array.from({ length: 11 }, (_, i) => `p${i}`) }, 'url_params'],
      ['url_params is a string', { name: 'x', url_params: 'ref' }, 'url_params'],
      ['currency_code is not ISO 4217', { name: 'x', currency_code: 'ABC' }, 'currency_code'],
      ['currency_code has two letters', { name: 'x', currency_code: 'US' }, 'currency_code'],
      ['currency_code has four letters', { name: 'x', currency_code: 'USDT' }, 'currency_code'],
      ['payout_term is a word', { name: 'x', payout_term: 'thirty' }, 'payout_term'],
      ['payout_term has four digits', { name: 'x', payout_term: '1000' }, 'payout_term'],
      ['payout_term is a number', { name: 'x', payout_term: 30 }, 'payout_term'],
      ['payout_methods has an unknown method', { name: 'x', payout_methods: ['bitcoin'] }, 'payout_methods.0'],
      ['payout_methods repeats a method', { name: 'x', payout_methods: ['paypal', 'paypal'] }, 'payout_methods'],
      ['type is unknown', { name: 'x', type: 'secret' }, 'type'],
      ['status is unknown', { name: 'x', status: 'archived' }, 'status'],
      ['attribution_model is unknown', { name: 'x', attribution_model: 'linear' }, 'attribution_model'],
      ['subdomain is not a DNS label', { name: 'x', subdomain: 'Not_Valid' }, 'subdomain'],
      ['subdomain ends with a hyphen', { name: 'x', subdomain: 'abc-' }, 'subdomain'],
      ['the body has an unknown key', { name: 'x', colour: 'red' }, 'colour'],
      ['the body sets the read-only public_key', { name: 'x', public_key: 'pk_mine' }, 'public_key'],
      ['the body sets default_group_id', { name: 'x', default_group_id: 'grp_x' }, 'default_group_id'],
    ];

    it.each(invalidBodies)('rejects a program when %s (400, nothing created)', async (_what, body, param) => {
      const before = await countPrograms(a.organization_id);
      const res = await create(body);
      expectError(res, 400, 'invalid_request_error', param);
      expect(await countPrograms(a.organization_id)).toBe(before);
    });

    it('names the unknown key in the error message', async () => {
      const res = await create({ name: 'x', colour: 'red' });
      expectError(res, 400, 'invalid_request_error', 'colour');
      expect(res.body.error.message).toContain('colour');
    });

    it('requires a secret API key', async () => {
      const before = await countPrograms(a.organization_id);
      const res = await t.request.post('/v1/programs').send({ name: 'No auth' });
      expectError(res, 401, 'authentication_error');
      const bad = await t.request.post('/v1/programs').set({ Authorization: 'Bearer sk_doesnotexist' }).send({ name: 'Bad auth' });
      expectError(bad, 401, 'authentication_error');
      expect(await countPrograms(a.organization_id)).toBe(before);
    });
  });

  describe('GET /v1/programs', () => {
    it('lists only the caller organization’s programs, newest first, with total_count', async () => {
      const res = await t.request.get('/v1/programs').query({ limit: 100 }).set(a.auth);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const ids: string[] = res.body.data.map((p: { id: string }) => p.id);
      const rows = await db()
        .selectFrom('programs')
        .select('id')
        .where('organization_id', '=', a.organization_id)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      expect(ids).toEqual(rows.map((r) => r.id));
      expect(res.body.total_count).toBe(rows.length);
      expect(res.body.has_more).toBe(false);
      expect(ids).toContain(a.program_id);
      expect(ids).not.toContain(b.program_id);
      for (const p of res.body.data) expect(p.organization_id).toBe(a.organization_id);

      const other = await t.request.get('/v1/programs').set(b.auth);
      expect(other.status).toBe(200);
      expect(other.body.data.map((p: { id: string }) => p.id)).toEqual([b.program_id]);
      expect(other.body.total_count).toBe(1);
    });

    it('pages with limit and has_more', async () => {
      const total = await countPrograms(a.organization_id);
      expect(total).toBeGreaterThan(2);
      const first = await t.request.get('/v1/programs').query({ limit: 2 }).set(a.auth);
      expect(first.status).toBe(200);
      expect(first.body.data).toHaveLength(2);
      expect(first.body.has_more).toBe(true);
      expect(first.body.total_count).toBe(total);
      const next = await t.request.get('/v1/programs').query({ limit: 2, starting_after: first.body.data[1].id }).set(a.auth);
      expect(next.status).toBe(200);
      expect(next.body.data[0].id).not.toBe(first.body.data[1].id);
      expect(next.body.data.map((p: { id: string }) => p.id)).not.toContain(first.body.data[0].id);
    });

    it('rejects an unknown query parameter and a limit outside 1–100', async () => {
      expectError(await t.request.get('/v1/programs').query({ foo: 'x' }).set(a.auth), 400, 'invalid_request_error', 'foo');
      expectError(await t.request.get('/v1/programs').query({ limit: 0 }).set(a.auth), 400, 'invalid_request_error', 'limit');
      expectError(await t.request.get('/v1/programs').query({ limit: 101 }).set(a.auth), 400, 'invalid_request_error', 'limit');
    });
  });

  describe('GET /v1/programs/:id', () => {
    it('returns the program as an object', async () => {
      const res = await get(a.program_id);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: a.program_id, name: 'Program A', public_key: a.public_key, default_group_id: a.group_id });
    });

    it('answers 404 for a missing program and for another organization’s program alike', async () => {
      const missing = await get('prg_doesnotexist');
      expectError(missing, 404, 'not_found_error');
      const foreign = await get(b.program_id);
      expectError(foreign, 404, 'not_found_error');
      expect(foreign.body.error.message).toBe(`No such program: '${b.program_id}'`);
      expect(JSON.stringify(foreign.body)).not.toContain('Program B');
    });
  });

  describe('PUT /v1/programs/:id', () => {
    it('updates the given fields, leaves the others, and the change reads back', async () => {
      const created = (await create({ name: 'To update' })).body.data[0];
      await clockPast(created.updated_at);
      const res = await t.request
        .put(`/v1/programs/${created.id}`)
        .set(a.auth)
        .send({
          name: 'Updated',
          cookie_duration: 60,
          url_params: ['aff'],
          currency_code: 'gbp',
          payout_methods: ['wise'],
          attribution_model: 'first_click',
          status: 'inactive',
          payout_term: '0',
        });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(updated).toMatchObject({
        id: created.id,
        name: 'Updated',
        cookie_duration: 60,
        url_params: ['aff'],
        currency_code: 'GBP',
        payout_methods: ['wise'],
        attribution_model: 'first_click',
        status: 'inactive',
        payout_term: '0',
        // untouched
        product_name: 'To update',
        subdomain: created.subdomain,
        type: 'public',
        public_key: created.public_key,
        default_group_id: created.default_group_id,
        created_at: created.created_at,
      });
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

      const back = await get(created.id);
      expect(back.status).toBe(200);
      expect(back.body.data).toEqual(updated);
      const row = await db().selectFrom('programs').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      expect(row.url_params).toEqual(['aff']);
      expect(row.payout_methods).toEqual(['wise']);
    });

    it('does not create another default group or flow on update', async () => {
      const created = (await create({ name: 'Stable' })).body.data[0];
      const res = await t.request.put(`/v1/programs/${created.id}`).set(a.auth).send({ name: 'Stable 2' });
      expect(res.status).toBe(200);
      const groups = await db().selectFrom('groups').select('id').where('program_id', '=', created.id).execute();
      const flows = await db().selectFrom('flows').select('id').where('program_id', '=', created.id).execute();
      expect(groups).toHaveLength(1);
      expect(flows).toHaveLength(1);
    });

    const invalidUpdates: Array<[string, Record<string, unknown>, string]> = [
      ['cookie_duration is 0', { cookie_duration: 0 }, 'cookie_duration'],
      ['cookie_duration is 3651', { cookie_duration: 3651 }, 'cookie_duration'],
      ['url_params repeats a value', { url_params: ['via', 'via'] }, 'url_params'],
      ['url_params has an invalid value', { url_params: ['ok', 'not ok'] }, 'url_params.1'],
      ['currency_code is unknown', { currency_code: 'QQQ' }, 'currency_code'],
      ['payout_term is not digits', { payout_term: '30d' }, 'payout_term'],
      ['the body has an unknown key', { name: 'Sneaky', public_key: 'pk_x' }, 'public_key'],
      ['name is null', { name: null }, 'name'],
    ];

    it.each(invalidUpdates)('rejects an update when %s (400, program unchanged)', async (_what, body, param) => {
      const before = await get(a.program_id);
      const res = await t.request.put(`/v1/programs/${a.program_id}`).set(a.auth).send(body);
      expectError(res, 400, 'invalid_request_error', param);
      const after = await get(a.program_id);
      expect(after.body.data).toEqual(before.body.data);
    });

    it('answers 404 for another organization’s program and leaves it unchanged', async () => {
      const res = await t.request.put(`/v1/programs/${b.program_id}`).set(a.auth).send({ name: 'Hijacked' });
      expectError(res, 404, 'not_found_error');
      const row = await db().selectFrom('programs').select('name').where('id', '=', b.program_id).executeTakeFirstOrThrow();
      expect(row.name).toBe('Program B');
    });

    it('answers 404 for a missing program', async () => {
      expectError(await t.request.put('/v1/programs/prg_nope').set(a.auth).send({ name: 'x' }), 404, 'not_found_error');
    });
  });

  describe('subdomains and the partner portal settings (ingest/docs/partner-portal.md)', () => {
    it('keeps subdomains unique across organizations: a given one taken is 409, a derived one is numbered', async () => {
      const taken = `taken-${Date.now()}`;
      expect((await create({ name: 'First', subdomain: taken })).status).toBe(201);
      const before = await countPrograms(b.organization_id);
      expectError(
        await t.request.post('/v1/programs').set(b.auth).send({ name: 'Second', subdomain: taken }),
        409,
        'conflict_error',
        'subdomain',
      );
      expect(await countPrograms(b.organization_id)).toBe(before);

      const name = `Numbered ${Date.now()}`;
      const subdomains = [];
      for (const org of [a, b, a]) {
        const res = await t.request.post('/v1/programs').set(org.auth).send({ name });
        expect(res.status).toBe(201);
        subdomains.push(res.body.data[0].subdomain);
      }
      const base = name.toLowerCase().replace(' ', '-');
      expect(subdomains).toEqual([base, `${base}-2`, `${base}-3`]);
    });

    it('refuses to move a program onto a taken subdomain (409, unchanged)', async () => {
      const other = (await create({ name: 'Other', subdomain: `other-${Date.now()}` })).body.data[0];
      const before = await get(a.program_id);
      expectError(
        await t.request.put(`/v1/programs/${a.program_id}`).set(a.auth).send({ subdomain: other.subdomain }),
        409,
        'conflict_error',
        'subdomain',
      );
      expect((await get(a.program_id)).body.data).toEqual(before.body.data);
      // Its own subdomain again is no conflict.
      expect((await t.request.put(`/v1/programs/${a.program_id}`).set(a.auth).send({ subdomain: before.body.data.subdomain })).status).toBe(
        200,
      );
    });

    it('stores auto-approval, the terms and the site, and clears the last two with null', async () => {
      const body = { auto_approve_partners: true, partner_terms: '  No spam.\n\nNo coupon sites.  ', website_url: 'https://acme.example/' };
      const res = await t.request.put(`/v1/programs/${a.program_id}`).set(a.auth).send(body);
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ ...body, partner_terms: 'No spam.\n\nNo coupon sites.' });
      const cleared = await t.request.put(`/v1/programs/${a.program_id}`).set(a.auth).send({ partner_terms: null, website_url: null });
      expect(cleared.body.data[0]).toMatchObject({ auto_approve_partners: true, partner_terms: null, website_url: null });
      for (const [bad, param] of [
        [{ website_url: 'ftp://acme.example' }, 'website_url'],
        [{ website_url: 'acme.example' }, 'website_url'],
        [{ auto_approve_partners: 'yes' }, 'auto_approve_partners'],
        [{ partner_terms: 'x'.repeat(20_001) }, 'partner_terms'],
      ] as const) {
        expectError(await t.request.put(`/v1/programs/${a.program_id}`).set(a.auth).send(bad), 400, 'invalid_request_error', param);
      }
    });
  });
});
