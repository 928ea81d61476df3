import { describe, expect, it } from 'vitest';
import { type ApiObject, createGroup, createPartner, createProgram, uniqueEmail } from '../support/factories.js';
import { EXPANDED_GROUP_FIELDS, EXPANDED_PROGRAM_FIELDS, PARTNER_FIELDS, PARTNER_LIST_PROGRAM_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { clockPast } from '../support/time.js';

const sorted = (a: readonly string[]) => [...a].sort();

describe('GET /v1/partners and GET /v1/partners/:id', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  const { list } = resource(t, '/v1/partners', org);
  const ids = (res: { body: { data: ApiObject[] } }) => res.body.data.map((p) => p.id);

  /** A fresh program with partners created one after another (oldest first). */
  async function programWithPartners(n: number, overrides: Record<string, unknown> = {}) {
    const program = await createProgram(t, org);
    const partners: ApiObject[] = [];
    for (let i = 0; i < n; i++) {
      // Timestamps have millisecond resolution: keep creation times distinct so the order is known.
      if (i > 0) await clockPast(partners[i - 1].created_at);
      partners.push(await createPartner(t, org, { program_id: program.id, ...overrides }));
    }
    return { program, partners };
  }

  describe('listing', () => {
    it('requires program_id', async () => {
      const res = await t.request.get('/v1/partners').set(org.auth);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { type: 'invalid_request_error', param: 'program_id', message: 'Invalid program_id: this parameter is required' },
      });
    });

    it('answers 404 for a program that does not exist', async () => {
      const res = await list('program_id=prg_doesnotexist000000000000');
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', param: 'program_id' });
    });

    it("lists the program's partners newest first, in the list envelope, with exactly the partner fields", async () => {
      const { program, partners } = await programWithPartners(3);
      await createPartner(t, org); // another program of the organization: not listed

      const res = await list(`program_id=${program.id}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'success', 'total_count']);
      expect(res.body).toMatchObject({ success: true, has_more: false, total_count: 3 });
      expect(ids(res)).toEqual(partners.map((p) => p.id).reverse());
      expect(res.body.data).toEqual([...partners].reverse());
      for (const p of res.body.data) expect(Object.keys(p).sort()).toEqual(sorted(PARTNER_FIELDS));
    });

    it('pages with limit, has_more and starting_after; order=asc reverses', async () => {
      const { program, partners } = await programWithPartners(3);
      const first = await list(`program_id=${program.id}&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ has_more: true, total_count: 3 });
      expect(ids(first)).toEqual([partners[2].id, partners[1].id]);

      const second = await list(`program_id=${program.id}&limit=2&starting_after=${partners[1].id}`);
      expect(second.body).toMatchObject({ has_more: false, total_count: 3 });
      expect(ids(second)).toEqual([partners[0].id]);

      const asc = await list(`program_id=${program.id}&order=asc`);
      expect(ids(asc)).toEqual(partners.map((p) => p.id));
    });

    it('filters by created_gte and created_lte, both inclusive', async () => {
      const { program, partners } = await programWithPartners(3);
      const gte = await list(`program_id=${program.id}&created_gte=${encodeURIComponent(partners[1].created_at)}`);
      expect(gte.status).toBe(200);
      expect(ids(gte)).toEqual([partners[2].id, partners[1].id]);
      expect(gte.body.total_count).toBe(2);
      const lte = await list(`program_id=${program.id}&created_lte=${encodeURIComponent(partners[1].created_at)}`);
      expect(ids(lte)).toEqual([partners[1].id, partners[0].id]);
    });

    it('answers 400 for a limit outside 1–100', async () => {
      for (const limit of ['0', '101', 'ten']) {
        const res = await list(`program_id=${org.program_id}&limit=${limit}`);
        expect(res.status, limit).toBe(400);
        expect(res.body.error, limit).toMatchObject({ type: 'invalid_request_error', param: 'limit' });
      }
    });

    it('answers 400 for a cursor that is a partner of another program', async () => {
      const { program } = await programWithPartners(1);
      const elsewhere = await createPartner(t, org);
      const res = await list(`program_id=${program.id}&starting_after=${elsewhere.id}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'starting_after' });
    });

    it('filters by group_id', async () => {
      const program = await createProgram(t, org);
      const group = await createGroup(t, org, { program_id: program.id });
      const inDefault = await createPartner(t, org, { program_id: program.id });
      const inGroup = await createPartner(t, org, { program_id: program.id, group_id: group.id });

      const res = await list(`program_id=${program.id}&group_id=${group.id}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([inGroup.id]);
      expect(res.body.total_count).toBe(1);

      const byDefault = await list(`program_id=${program.id}&group_id=${program.default_group_id}`);
      expect(ids(byDefault)).toEqual([inDefault.id]);
    });

    it('filters by status', async () => {
      const program = await createProgram(t, org);
      const active = await createPartner(t, org, { program_id: program.id });
      const pending = await createPartner(t, org, { program_id: program.id, status: 'pending' });
      const suspended = await createPartner(t, org, { program_id: program.id, status: 'suspended' });

      expect(ids(await list(`program_id=${program.id}&status=pending`))).toEqual([pending.id]);
      expect(ids(await list(`program_id=${program.id}&status=suspended`))).toEqual([suspended.id]);
      expect(ids(await list(`program_id=${program.id}&status=active`))).toEqual([active.id]);
      expect(ids(await list(`program_id=${program.id}&status=rejected`))).toEqual([]);

      const bad = await list(`program_id=${program.id}&status=banned`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'status' });
    });

    it('hides partners who have not completed onboarding from the default listing', async () => {
      const program = await createProgram(t, org);
      const onboarded = await createPartner(t, org, { program_id: program.id });
      await createPartner(t, org, { program_id: program.id, completed_onboarding: false });

      const res = await list(`program_id=${program.id}`);
      expect(ids(res)).toEqual([onboarded.id]);
      expect(res.body.total_count).toBe(1);
    });

    it('answers 400 for an unknown query parameter', async () => {
      const res = await list(`program_id=${org.program_id}&colour=red`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'colour' });
    });
  });

  describe('e-mail lookup', () => {
    it('finds the partner with exactly this address, compared case-insensitively', async () => {
      const program = await createProgram(t, org);
      const local = uniqueEmail('Look.Up').split('@')[0];
      const partner = await createPartner(t, org, { program_id: program.id, email: `${local}@Example.com` });
      await createPartner(t, org, { program_id: program.id });

      for (const email of [`${local}@Example.com`, `${local.toLowerCase()}@example.com`, `${local.toUpperCase()}@EXAMPLE.COM`]) {
        const res = await list(`program_id=${program.id}&email=${encodeURIComponent(email)}`);
        expect(res.status, email).toBe(200);
        expect(res.body.data, email).toEqual([partner]);
        expect(res.body.total_count, email).toBe(1);
      }
    });

    it('finds nothing for a partial address', async () => {
      const program = await createProgram(t, org);
      const partner = await createPartner(t, org, { program_id: program.id });
      const [local, domain] = partner.email.split('@');
      for (const partial of [local, `@${domain}`, partner.email.slice(0, -1), `x${partner.email}`, '%', `${local}%`]) {
        const res = await list(`program_id=${program.id}&email=${encodeURIComponent(partial)}`);
        expect(res.status, partial).toBe(200);
        expect(res.body.data, partial).toEqual([]);
        expect(res.body.total_count, partial).toBe(0);
      }
    });

    it('also returns a partner who has not completed onboarding', async () => {
      const program = await createProgram(t, org);
      const onboarding = await createPartner(t, org, { program_id: program.id, completed_onboarding: false });
      const res = await list(`program_id=${program.id}&email=${encodeURIComponent(onboarding.email)}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([onboarding]);
    });

    it('only looks within the program', async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org);
      const res = await list(`program_id=${program.id}&email=${encodeURIComponent(elsewhere.email)}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });
  });

  describe('expansions and includes', () => {
    it('expand[]=group adds the group with exactly the fields of the Partnership Program API', async () => {
      const program = await createProgram(t, org);
      const group = await createGroup(t, org, { program_id: program.id, name: 'Influencers', description: 'Big audiences' });
      const partner = await createPartner(t, org, { program_id: program.id, group_id: group.id });

      const res = await list(`program_id=${program.id}&expand[]=group`);
      expect(res.status).toBe(200);
      const [item] = res.body.data;
      expect(Object.keys(item).sort()).toEqual(sorted([...PARTNER_FIELDS, 'group']));
      expect(Object.keys(item.group).sort()).toEqual(sorted(EXPANDED_GROUP_FIELDS));
      expect(item.group).toEqual({
        id: group.id,
        name: 'Influencers',
        description: 'Big audiences',
        created_at: group.created_at,
        public_key: group.public_key,
        default: false,
      });
      const { group: _g, ...rest } = item;
      expect(rest).toEqual(partner);
    });

    it('expand[]=program on the list carries the program terms, with exactly the fields of the Partnership Program API', async () => {
      const program = await createProgram(t, org, {
        product_name: 'Widget Pro',
        currency_code: 'EUR',
        cookie_duration: 60,
        payout_term: '45',
        payout_methods: ['paypal', 'crypto'],
        url_params: ['ref', 'aff'],
      });
      await createPartner(t, org, { program_id: program.id });

      const res = await list(`program_id=${program.id}&expand[]=program`);
      expect(res.status).toBe(200);
      const [item] = res.body.data;
      expect(Object.keys(item).sort()).toEqual(sorted([...PARTNER_FIELDS, 'program']));
      expect(Object.keys(item.program).sort()).toEqual(sorted(PARTNER_LIST_PROGRAM_FIELDS));
      expect(item.program).toEqual({
        id: program.id,
        status: program.status,
        name: program.name,
        product_name: 'Widget Pro',
        subdomain: program.subdomain,
        type: program.type,
        currency_code: 'EUR',
        cookie_duration: 60,
        payout_methods: ['paypal', 'crypto'],
        payout_term: '45',
        url_params: ['ref', 'aff'],
        created_at: program.created_at,
      });
    });

    it('accepts both expansions at once, and the expand=a form', async () => {
      const { program } = await programWithPartners(2);
      const both = await list(`program_id=${program.id}&expand[]=group&expand[]=program`);
      expect(both.status).toBe(200);
      for (const item of both.body.data) {
        expect(item.group.id).toBe(program.default_group_id);
        expect(item.group.default).toBe(true);
        expect(item.program.id).toBe(program.id);
        expect(item.program.cookie_duration).toBe(program.cookie_duration);
      }
      const single = await list(`program_id=${program.id}&expand=group`);
      expect(single.status).toBe(200);
      expect(single.body.data[0].group.id).toBe(program.default_group_id);
      expect(single.body.data[0]).not.toHaveProperty('program');
    });

    it('adds no expansion unless asked', async () => {
      const { program } = await programWithPartners(1);
      const res = await list(`program_id=${program.id}`);
      expect(res.body.data[0]).not.toHaveProperty('group');
      expect(res.body.data[0]).not.toHaveProperty('program');
      expect(res.body.data[0]).not.toHaveProperty('stats');
    });

    it('answers 400 for an unknown expansion', async () => {
      const res = await list(`program_id=${org.program_id}&expand[]=partner`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'expand' });
    });

    it('answers 400 for unknown includes', async () => {
      for (const q of ['include[]=bogus', 'include=stat', 'include[]=stats&include[]=orders']) {
        const res = await list(`program_id=${org.program_id}&${q}`);
        expect(res.status, q).toBe(400);
        expect(res.body.error, q).toMatchObject({ type: 'invalid_request_error', param: 'include' });
      }
    });
  });

  describe('retrieve', () => {
    it('returns the partner as an object', async () => {
      const partner = await createPartner(t, org, { company_name: 'Retrieve Co', country_code: 'GB' });
      const res = await t.request.get(`/v1/partners/${partner.id}`).set(org.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: partner });
      expect(Array.isArray(res.body.data)).toBe(false);
    });

    it('expands the group and the program; the program carries no terms on retrieve', async () => {
      const program = await createProgram(t, org, { cookie_duration: 90 });
      const group = await createGroup(t, org, { program_id: program.id, name: 'Retrieve group' });
      const partner = await createPartner(t, org, { program_id: program.id, group_id: group.id });

      const res = await t.request.get(`/v1/partners/${partner.id}?expand[]=group&expand[]=program`).set(org.auth);
      expect(res.status).toBe(200);
      const item = res.body.data;
      expect(Object.keys(item).sort()).toEqual(sorted([...PARTNER_FIELDS, 'group', 'program']));
      expect(Object.keys(item.group).sort()).toEqual(sorted(EXPANDED_GROUP_FIELDS));
      expect(item.group).toMatchObject({ id: group.id, name: 'Retrieve group', default: false, public_key: group.public_key });
      expect(Object.keys(item.program).sort()).toEqual(sorted(EXPANDED_PROGRAM_FIELDS));
      expect(item.program).toEqual({
        id: program.id,
        status: program.status,
        name: program.name,
        product_name: program.product_name,
        subdomain: program.subdomain,
        type: program.type,
        currency_code: program.currency_code,
        created_at: program.created_at,
      });
    });

    it('answers 400 for an unknown include or expansion, and for list parameters', async () => {
      const partner = await createPartner(t, org);
      for (const q of ['include[]=orders', 'expand[]=stats', 'limit=5']) {
        const res = await t.request.get(`/v1/partners/${partner.id}?${q}`).set(org.auth);
        expect(res.status, q).toBe(400);
        expect(res.body.error.type, q).toBe('invalid_request_error');
      }
    });

    it('answers 404 for an id that does not exist', async () => {
      const res = await t.request.get('/v1/partners/part_doesnotexist0000000000').set(org.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: { type: 'not_found_error', message: "No such partner: 'part_doesnotexist0000000000'" },
      });
    });

    it('retrieves a partner who has not completed onboarding', async () => {
      const partner = await createPartner(t, org, { completed_onboarding: false });
      const res = await t.request.get(`/v1/partners/${partner.id}`).set(org.auth);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(partner);
    });
  });
});
