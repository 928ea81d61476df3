import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectLinkNotFound } from '../support/expect-error.js';
import {
  type ApiObject,
  createClick,
  createLink,
  createPartner,
  createProgram,
  postClick,
  type TestOrg,
  uniqueLinkValue,
} from '../support/factories.js';
import { EXPANDED_PARTNER_FIELDS, EXPANDED_PROGRAM_FIELDS, LINK_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

const sorted = (keys: readonly string[]) => [...keys].sort();

/** The Partnership Program API's own body for a click whose param/value matches no link. */

describe('links API', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org);
  });

  const { post: postLink, get: getLink, put: putLink, del: deleteLink } = resource(t, '/v1/links', org);

  /** The link row straight from SQL (deleted or not). */
  const linkRow = (id: string) => t.storage.db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
  /** Live link rows of a program with this value, compared case-insensitively, straight from SQL. */
  const liveRowsWithValue = async (programId: string, value: string) =>
    (
      await t.storage.db.selectFrom('links').selectAll().where('program_id', '=', programId).where('deleted_at', 'is', null).execute()
    ).filter((r) => r.value.toLowerCase() === value.toLowerCase());

  describe('POST /v1/links', () => {
    it('creates a link with exactly the fields of the Partnership Program API, in the partner’s program, and stores it', async () => {
      const value = uniqueLinkValue('alice');
      const res = await postLink({ param: 'ref', value, partner_id: partner.id });

      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const link = res.body.data[0];
      expect(sorted(Object.keys(link))).toEqual(sorted(LINK_FIELDS));
      expect(link).toMatchObject({
        param: 'ref',
        value,
        partner_id: partner.id,
        program_id: org.program_id,
        organization_id: org.organization_id,
      });
      expect(link.id).toMatch(/^lnk_[0-9A-Za-z]{24}$/);
      expect(link.created_at).toMatch(ISO_MS);
      expect(link.updated_at).toBe(link.created_at);

      const read = await getLink(link.id);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual([link]);
      expect(await linkRow(link.id)).toMatchObject({
        organization_id: org.organization_id,
        program_id: org.program_id,
        partner_id: partner.id,
        param: 'ref',
        value,
        deleted_at: null,
      });
    });

    it('keeps the value’s case as given', async () => {
      const value = `MiXeD-${uniqueLinkValue()}`;
      const link = await createLink(t, org, partner, { value });
      expect(link.value).toBe(value);
      expect((await linkRow(link.id))?.value).toBe(value);
    });

    it('accepts every URL-safe character and values of 1 and 64 characters', async () => {
      // Only this test uses these values in the organization.
      for (const value of ['A-z_0.9~', 'x', 'b'.repeat(64)]) {
        const res = await postLink({ param: 'via', value, partner_id: partner.id });
        expect(res.status, `${value}: ${JSON.stringify(res.body)}`).toBe(201);
        expect(res.body.data[0].value).toBe(value);
        expect((await linkRow(res.body.data[0].id))?.value).toBe(value);
      }
    });

    it.each([
      ['empty', ''],
      ['a space', 'has space'],
      ['a slash', 'a/b'],
      ['a question mark', 'a?b'],
      ['a hash', 'a#b'],
      ['a percent escape', 'a%20b'],
      ['a plus', 'a+b'],
      ['an ampersand', 'a&b'],
      ['unicode letters', 'müller'],
      ['an emoji', 'go🚀'],
      ['65 characters', 'a'.repeat(65)],
      ['a trailing newline', 'abc\n'],
    ])('rejects a value with %s (400 param value) and stores nothing', async (_label, value) => {
      const before = (await t.storage.db.selectFrom('links').select('id').execute()).length;
      const res = await postLink({ param: 'ref', value, partner_id: partner.id });
      expectError(res, 400, 'invalid_request_error', 'value');
      expect((await t.storage.db.selectFrom('links').select('id').execute()).length).toBe(before);
    });

    it.each([
      ['a number value', { value: 42 }, 'value'],
      ['a number param', { param: 7 }, 'param'],
      ['a missing param', { param: undefined }, 'param'],
      ['a missing value', { value: undefined }, 'value'],
      ['a missing partner_id', { partner_id: undefined }, 'partner_id'],
      ['a null partner_id', { partner_id: null }, 'partner_id'],
    ])('rejects %s with 400 naming the parameter', async (_label, override, param) => {
      const res = await postLink({ param: 'ref', value: uniqueLinkValue(), partner_id: partner.id, ...override });
      expectError(res, 400, 'invalid_request_error', param);
    });

    it('rejects a param that is not one of the program’s url_params', async () => {
      const value = uniqueLinkValue();
      const res = await postLink({ param: 'aff', value, partner_id: partner.id });
      expectError(res, 400, 'invalid_request_error', 'param');
      expect(res.body.error.message).toMatch(/ref, via/);
      expect(await liveRowsWithValue(org.program_id, value)).toHaveLength(0);
    });

    it('follows the program’s url_params after they are changed through PUT /v1/programs/:id', async () => {
      const program = await createProgram(t, org);
      const p = await createPartner(t, org, { program_id: program.id });
      const refLink = await createLink(t, org, p, { param: 'ref' });

      const put = await t.request
        .put(`/v1/programs/${program.id}`)
        .set(org.auth)
        .send({ url_params: ['via', 'aff'] });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.data[0].url_params).toEqual(['via', 'aff']);

      expectError(await postLink({ param: 'ref', value: uniqueLinkValue(), partner_id: p.id }), 400, 'invalid_request_error', 'param');
      const aff = await postLink({ param: 'aff', value: uniqueLinkValue(), partner_id: p.id });
      expect(aff.status, JSON.stringify(aff.body)).toBe(201);
      expect(aff.body.data[0]).toMatchObject({ param: 'aff', program_id: program.id });

      // An update moving a link onto a removed param is refused too; the link keeps its param.
      expectError(await putLink(aff.body.data[0].id, { param: 'ref' }), 400, 'invalid_request_error', 'param');
      expect((await linkRow(aff.body.data[0].id))?.param).toBe('aff');
      // Other programs keep their own url_params.
      await createLink(t, org, partner, { param: 'ref' });
      // A link made before the change is still there and still resolves.
      const click = await createClick(t, org, { param: 'ref', value: refLink.value, program_id: program.id });
      expect(click.link_id).toBe(refLink.id);
    });

    it('refuses a duplicate (param, value) in the program with 409, comparing the value case-insensitively', async () => {
      const value = uniqueLinkValue('Dup');
      const first = await createLink(t, org, partner, { param: 'ref', value });
      const otherPartner = await createPartner(t, org);

      for (const dup of [value, value.toLowerCase(), value.toUpperCase()]) {
        const res = await postLink({ param: 'ref', value: dup, partner_id: otherPartner.id });
        expectError(res, 409, 'conflict_error');
      }
      const rows = await liveRowsWithValue(org.program_id, value);
      expect(rows.map((r) => r.id)).toEqual([first.id]);
    });

    it('lets only one of two simultaneous creates of the same (param, value) succeed', async () => {
      const value = uniqueLinkValue('race');
      const other = await createPartner(t, org);
      const results = await Promise.all([
        postLink({ param: 'ref', value, partner_id: partner.id }),
        postLink({ param: 'ref', value: value.toUpperCase(), partner_id: other.id }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expectError(results.find((r) => r.status === 409)!, 409, 'conflict_error');
      const winner = results.find((r) => r.status === 201)!.body.data[0];
      expect((await liveRowsWithValue(org.program_id, value)).map((r) => r.id)).toEqual([winner.id]);
      expect((await createClick(t, org, { param: 'ref', value })).link_id).toBe(winner.id);
    });

    it('allows the same value with another param, in another program, and in another organization', async () => {
      const value = uniqueLinkValue('shared');
      const ref = await createLink(t, org, partner, { param: 'ref', value });
      const via = await createLink(t, org, partner, { param: 'via', value: value.toUpperCase() });

      const program = await createProgram(t, org);
      const elsewhere = await createLink(t, org, await createPartner(t, org, { program_id: program.id }), { param: 'ref', value });
      const foreign = await createLink(t, otherOrg, await createPartner(t, otherOrg), { param: 'ref', value });

      expect(new Set([ref.id, via.id, elsewhere.id, foreign.id]).size).toBe(4);
      expect(elsewhere.program_id).toBe(program.id);
      expect(foreign.organization_id).toBe(otherOrg.organization_id);
      expect(await liveRowsWithValue(org.program_id, value)).toHaveLength(2);
    });

    it('answers 404 for a partner of another organization, an unknown partner and a deleted partner', async () => {
      const foreignPartner = await createPartner(t, otherOrg);
      expectError(
        await postLink({ param: 'ref', value: uniqueLinkValue(), partner_id: foreignPartner.id }),
        404,
        'not_found_error',
        'partner_id',
      );
      expectError(
        await postLink({ param: 'ref', value: uniqueLinkValue(), partner_id: 'part_doesnotexist000000000' }),
        404,
        'not_found_error',
        'partner_id',
      );

      const gone = await createPartner(t, org);
      expect((await t.request.delete(`/v1/partners/${gone.id}`).set(org.auth)).status).toBe(200);
      expectError(await postLink({ param: 'ref', value: uniqueLinkValue(), partner_id: gone.id }), 404, 'not_found_error', 'partner_id');

      const rows = await t.storage.db.selectFrom('links').select('id').where('partner_id', 'in', [foreignPartner.id, gone.id]).execute();
      expect(rows).toHaveLength(0);
    });

    it.each([['program_id'], ['organization_id'], ['id'], ['url']])('rejects the unknown body key %s with 400 naming it', async (key) => {
      const value = uniqueLinkValue();
      const res = await postLink({ param: 'ref', value, partner_id: partner.id, [key]: 'x' });
      expectError(res, 400, 'invalid_request_error', key);
      expect(res.body.error.message).toContain(key);
      expect(await liveRowsWithValue(org.program_id, value)).toHaveLength(0);
    });

    it('requires a valid API key', async () => {
      const res = await t.request.post('/v1/links').send({ param: 'ref', value: uniqueLinkValue(), partner_id: partner.id });
      expectError(res, 401, 'authentication_error');
    });
  });

  describe('GET /v1/links', () => {
    const COUNT = 27;
    let program: ApiObject;
    let partnerA: ApiObject;
    let partnerB: ApiObject;
    /** The seeded links in ascending list order (created_at set one minute apart). */
    let seeded: ApiObject[];
    const base = new Date('2025-03-01T10:00:00.000Z');
    const minute = (i: number) => new Date(base.getTime() + i * 60_000);

    const list = (query = '', who: TestOrg = org) =>
      t.request.get(`/v1/links?program_id=${program.id}${query ? `&${query}` : ''}`).set(who.auth);
    const ids = (items: ApiObject[]) => items.map((l) => l.id);

    beforeAll(async () => {
      program = await createProgram(t, org);
      partnerA = await createPartner(t, org, { program_id: program.id, company_name: 'A Corp' });
      partnerB = await createPartner(t, org, { program_id: program.id });
      const created: ApiObject[] = [];
      for (let i = 0; i < COUNT; i++) {
        const owner = i % 2 === 0 ? partnerA : partnerB;
        const param = i % 3 === 0 ? 'via' : 'ref';
        const value = i === 4 ? `Walk-MiXeD-${i}` : `walk-${i}-${uniqueLinkValue('')}`;
        created.push(await createLink(t, org, owner, { param, value }));
      }
      // Distinct, known creation times make the order and the date filters exact.
      for (const [i, l] of created.entries()) {
        await t.storage.db
          .updateTable('links')
          .set({ created_at: minute(i) })
          .where('id', '=', l.id)
          .execute();
      }
      seeded = created.map((l, i) => ({ ...l, created_at: minute(i).toISOString() }));
      // Noise that must never show up: a link of another program and a deleted link of this one.
      await createLink(t, org, partner);
      const deleted = await createLink(t, org, partnerA, { param: 'ref' });
      expect((await deleteLink(deleted.id)).status).toBe(200);
    });

    it('lists the program’s live links newest first by default, with total_count and has_more', async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(sorted(Object.keys(res.body))).toEqual(['data', 'has_more', 'success', 'total_count']);
      expect(res.body).toMatchObject({ success: true, has_more: true, total_count: COUNT });
      expect(res.body.data).toHaveLength(10);
      expect(ids(res.body.data)).toEqual(ids(seeded.slice(-10).reverse()));
      for (const item of res.body.data) expect(sorted(Object.keys(item))).toEqual(sorted(LINK_FIELDS));
      expect(res.body.data[0]).toEqual(seeded[COUNT - 1]);
    });

    it.each([['asc'], ['desc']] as const)(
      'walks every link once in %s order with starting_after, and back with ending_before',
      async (order) => {
        const expected = order === 'asc' ? ids(seeded) : ids(seeded).reverse();
        const pages: string[][] = [];
        let cursor: string | undefined;
        for (;;) {
          const res = await list(`order=${order}&limit=10${cursor ? `&starting_after=${cursor}` : ''}`);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.total_count).toBe(COUNT);
          pages.push(ids(res.body.data));
          expect(res.body.has_more).toBe(pages.flat().length < COUNT);
          if (!res.body.has_more) break;
          cursor = res.body.data.at(-1).id;
          expect(pages.length).toBeLessThan(5);
        }
        expect(pages.map((p) => p.length)).toEqual([10, 10, 7]);
        expect(pages.flat()).toEqual(expected);

        // Backwards from the last page: the page before it, still in list order.
        const back = await list(`order=${order}&limit=10&ending_before=${pages[2][0]}`);
        expect(back.status).toBe(200);
        expect(ids(back.body.data)).toEqual(pages[1]);
        expect(back.body.has_more).toBe(true);
        const first = await list(`order=${order}&limit=10&ending_before=${pages[1][0]}`);
        expect(ids(first.body.data)).toEqual(pages[0]);
        expect(first.body.has_more).toBe(false);
      },
    );

    it('filters by partner_id', async () => {
      const res = await list(`partner_id=${partnerB.id}&order=asc&limit=100`);
      expect(res.status).toBe(200);
      const expected = seeded.filter((l) => l.partner_id === partnerB.id);
      expect(expected).toHaveLength(13);
      expect(ids(res.body.data)).toEqual(ids(expected));
      expect(res.body).toMatchObject({ total_count: 13, has_more: false });
    });

    it('filters by param, and by param and partner together', async () => {
      const via = await list('param=via&order=asc&limit=100');
      expect(ids(via.body.data)).toEqual(ids(seeded.filter((l) => l.param === 'via')));
      expect(via.body.total_count).toBe(9);

      const both = await list(`param=ref&partner_id=${partnerA.id}&order=asc&limit=100`);
      const expected = seeded.filter((l) => l.param === 'ref' && l.partner_id === partnerA.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(both.body.data)).toEqual(ids(expected));
      expect(both.body.total_count).toBe(expected.length);

      const none = await list('param=aff');
      expect(none.status).toBe(200);
      expect(none.body).toMatchObject({ data: [], total_count: 0, has_more: false });
    });

    it('filters by value as an exact, case-insensitive match', async () => {
      for (const value of ['Walk-MiXeD-4', 'walk-mixed-4', 'WALK-MIXED-4']) {
        const res = await list(`value=${value}`);
        expect(res.status).toBe(200);
        expect(ids(res.body.data)).toEqual([seeded[4].id]);
        expect(res.body.total_count).toBe(1);
      }
      // Neither a prefix nor SQL wildcards match.
      for (const partial of ['walk-mixed', 'alk-mixed-4', 'walk-mixed-4x', 'walk-mixed-%25', 'walk_mixed-4', '%25']) {
        const res = await list(`value=${partial}`);
        expect(res.body).toMatchObject({ data: [], total_count: 0 });
      }
    });

    it('filters by created_gte and created_lte, both inclusive', async () => {
      const res = await list(`created_gte=${minute(5).toISOString()}&created_lte=${minute(9).toISOString()}&order=asc`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ids(res.body.data)).toEqual(ids(seeded.slice(5, 10)));
      expect(res.body.total_count).toBe(5);

      const after = await list(`created_gte=${minute(20).toISOString()}&order=asc&limit=100`);
      expect(ids(after.body.data)).toEqual(ids(seeded.slice(20)));
      const before = await list(`created_lte=${minute(2).toISOString()}&order=asc`);
      expect(ids(before.body.data)).toEqual(ids(seeded.slice(0, 3)));
    });

    it('expands the partner and the program with exactly the Partnership Program API’s fields', async () => {
      const res = await list('expand[]=partner&expand[]=program&order=asc&limit=3');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const programRead = (await t.request.get(`/v1/programs/${program.id}`).set(org.auth)).body.data;
      for (const [i, item] of res.body.data.entries()) {
        expect(sorted(Object.keys(item))).toEqual(sorted([...LINK_FIELDS, 'partner', 'program']));
        expect(item.id).toBe(seeded[i].id);
        const owner = item.partner_id === partnerA.id ? partnerA : partnerB;
        expect(sorted(Object.keys(item.partner))).toEqual(sorted(EXPANDED_PARTNER_FIELDS));
        expect(item.partner).toEqual(Object.fromEntries(EXPANDED_PARTNER_FIELDS.map((k) => [k, owner[k]])));
        expect(sorted(Object.keys(item.program))).toEqual(sorted(EXPANDED_PROGRAM_FIELDS));
        expect(item.program).toEqual(Object.fromEntries(EXPANDED_PROGRAM_FIELDS.map((k) => [k, programRead[k]])));
      }
      expect(res.body.data[0].partner.company_name).toBe('A Corp');
    });

    it('accepts expand=partner as a single value and expands only that', async () => {
      const res = await list('expand=partner&limit=2');
      expect(res.status).toBe(200);
      for (const item of res.body.data) {
        expect(item.partner.id).toBe(item.partner_id);
        expect(item).not.toHaveProperty('program');
      }
    });

    it('rejects an unknown expand value, an unknown query key and a bad limit with 400', async () => {
      expectError(await list('expand[]=customer'), 400, 'invalid_request_error', 'expand');
      expectError(await list('foo=1'), 400, 'invalid_request_error', 'foo');
      expectError(await list('limit=0'), 400, 'invalid_request_error', 'limit');
      expectError(await list('limit=101'), 400, 'invalid_request_error', 'limit');
      expectError(await list('created_gte=yesterday'), 400, 'invalid_request_error', 'created_gte');
    });

    it('refuses a cursor that is not a link of the listed scope', async () => {
      const foreignProgramLink = await createLink(t, org, partner);
      expectError(await list(`starting_after=${foreignProgramLink.id}`), 400, 'invalid_request_error', 'starting_after');
      expectError(await list(`ending_before=lnk_nosuchlink0000000000000`), 400, 'invalid_request_error', 'ending_before');
    });

    it('requires program_id, and answers 404 for another organization’s or an unknown program', async () => {
      expectError(await t.request.get('/v1/links').set(org.auth), 400, 'invalid_request_error', 'program_id');
      expectError(await list('', otherOrg), 404, 'not_found_error', 'program_id');
      expectError(
        await t.request.get('/v1/links?program_id=prg_nosuchprogram00000000000').set(org.auth),
        404,
        'not_found_error',
        'program_id',
      );
    });

    it('never lists another organization’s links, even when filtering by its partner', async () => {
      const foreignPartner = await createPartner(t, otherOrg);
      await createLink(t, otherOrg, foreignPartner);
      const res = await list(`partner_id=${foreignPartner.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ data: [], total_count: 0, has_more: false });
      const own = await t.request.get(`/v1/links?program_id=${otherOrg.program_id}`).set(otherOrg.auth);
      expect(own.body.data.every((l: ApiObject) => l.organization_id === otherOrg.organization_id)).toBe(true);
      expect(own.body.total_count).toBeGreaterThan(0);
    });
  });

  describe('GET /v1/links/:id', () => {
    it('answers data as an array of one link', async () => {
      const link = await createLink(t, org, partner);
      const res = await getLink(link.id);
      expect(res.status).toBe(200);
      expect(sorted(Object.keys(res.body))).toEqual(['data', 'success']);
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(res.body.data).toEqual([link]);
    });

    it('expands the partner and the program', async () => {
      const link = await createLink(t, org, partner);
      const res = await getLink(link.id, '?expand[]=partner&expand[]=program');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [item] = res.body.data;
      expect(sorted(Object.keys(item.partner))).toEqual(sorted(EXPANDED_PARTNER_FIELDS));
      expect(item.partner).toMatchObject({ id: partner.id, email: partner.email, first_name: partner.first_name, status: 'active' });
      expect(sorted(Object.keys(item.program))).toEqual(sorted(EXPANDED_PROGRAM_FIELDS));
      expect(item.program.id).toBe(org.program_id);

      const one = await getLink(link.id, '?expand=program');
      expect(one.body.data[0]).not.toHaveProperty('partner');
      expect(one.body.data[0].program.id).toBe(org.program_id);
      expectError(await getLink(link.id, '?expand[]=nope'), 400, 'invalid_request_error', 'expand');
      expectError(await getLink(link.id, '?limit=1'), 400, 'invalid_request_error', 'limit');
    });

    it('answers 404 for an unknown id and for another organization’s link', async () => {
      expectError(await getLink('lnk_nosuchlink0000000000000'), 404, 'not_found_error');
      const link = await createLink(t, org, partner);
      const foreign = await getLink(link.id, undefined, otherOrg);
      expectError(foreign, 404, 'not_found_error');
      const unknown = await getLink('lnk_nosuchlink0000000000001', undefined, otherOrg);
      expect(foreign.body.error.message.replace(link.id, 'X')).toBe(unknown.body.error.message.replace('lnk_nosuchlink0000000000001', 'X'));
    });
  });

  describe('PUT /v1/links/:id', () => {
    it('changes the value: the old value stops resolving and the new one resolves', async () => {
      const link = await createLink(t, org, partner);
      // Warm the lookup of the old value.
      expect((await createClick(t, org, { param: 'ref', value: link.value })).link_id).toBe(link.id);

      const value = uniqueLinkValue('renamed');
      const res = await putLink(link.id, { value });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(sorted(Object.keys(updated))).toEqual(sorted(LINK_FIELDS));
      expect(updated).toMatchObject({ id: link.id, param: 'ref', value, partner_id: partner.id, created_at: link.created_at });
      expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(link.updated_at));
      expect((await getLink(link.id)).body.data).toEqual([updated]);
      expect((await linkRow(link.id))?.value).toBe(value);

      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: link.value }));
      const click = await createClick(t, org, { param: 'ref', value: value.toUpperCase() });
      expect(click).toMatchObject({ link_id: link.id, partner_id: partner.id });
    });

    it('changes the param: the value answers under the new param only', async () => {
      const link = await createLink(t, org, partner, { param: 'ref' });
      expect((await createClick(t, org, { param: 'ref', value: link.value })).link_id).toBe(link.id);

      const res = await putLink(link.id, { param: 'via' });
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ param: 'via', value: link.value });
      expect((await linkRow(link.id))?.param).toBe('via');
      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: link.value }));
      expect((await createClick(t, org, { param: 'via', value: link.value })).link_id).toBe(link.id);
    });

    it('may change only the case of its own value', async () => {
      const link = await createLink(t, org, partner, { value: uniqueLinkValue('case') });
      const res = await putLink(link.id, { value: link.value.toUpperCase() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await linkRow(link.id))?.value).toBe(link.value.toUpperCase());
    });

    it('refuses a value already used with that param in the program (409), leaving the link as it was', async () => {
      const taken = await createLink(t, org, partner, { param: 'ref' });
      const link = await createLink(t, org, partner, { param: 'ref' });
      expectError(await putLink(link.id, { value: taken.value.toUpperCase() }), 409, 'conflict_error');

      const viaLink = await createLink(t, org, partner, { param: 'via', value: taken.value });
      expectError(await putLink(viaLink.id, { param: 'ref' }), 409, 'conflict_error');

      expect(await linkRow(link.id)).toMatchObject({ param: 'ref', value: link.value });
      expect(await linkRow(viaLink.id)).toMatchObject({ param: 'via', value: taken.value });
      expect((await createClick(t, org, { param: 'ref', value: taken.value })).link_id).toBe(taken.id);
      expect((await createClick(t, org, { param: 'ref', value: link.value })).link_id).toBe(link.id);
    });

    it('validates like create: url_params, value characters, unknown keys', async () => {
      const link = await createLink(t, org, partner);
      expectError(await putLink(link.id, { param: 'aff' }), 400, 'invalid_request_error', 'param');
      expectError(await putLink(link.id, { value: 'a b' }), 400, 'invalid_request_error', 'value');
      expectError(await putLink(link.id, { value: 'x'.repeat(65) }), 400, 'invalid_request_error', 'value');
      expectError(await putLink(link.id, { value: 'a/b' }), 400, 'invalid_request_error', 'value');
      expectError(await putLink(link.id, { partner_id: partner.id }), 400, 'invalid_request_error', 'partner_id');
      expectError(await putLink(link.id, { program_id: org.program_id }), 400, 'invalid_request_error', 'program_id');
      const row = await linkRow(link.id);
      expect(row).toMatchObject({ param: link.param, value: link.value, partner_id: partner.id });
      expect(row?.updated_at.toISOString()).toBe(link.updated_at);
    });

    it('answers 404 for another organization’s link and an unknown id, changing nothing', async () => {
      const link = await createLink(t, org, partner);
      expectError(await putLink(link.id, { value: uniqueLinkValue() }, otherOrg), 404, 'not_found_error');
      expectError(await putLink('lnk_nosuchlink0000000000000', { value: uniqueLinkValue() }), 404, 'not_found_error');
      expect((await linkRow(link.id))?.value).toBe(link.value);
    });
  });

  describe('DELETE /v1/links/:id', () => {
    it('deletes the link: {id, deleted:true}, then 404, no longer listed or resolving, its clicks kept', async () => {
      const link = await createLink(t, org, partner);
      const click = await createClick(t, org, { param: 'ref', value: link.value });
      expect(click.link_id).toBe(link.id);

      const res = await deleteLink(link.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: link.id, deleted: true } });

      expectError(await getLink(link.id), 404, 'not_found_error');
      expectError(await deleteLink(link.id), 404, 'not_found_error');
      expectError(await putLink(link.id, { value: uniqueLinkValue() }), 404, 'not_found_error');
      const listed = await t.request.get(`/v1/links?program_id=${org.program_id}&value=${link.value}`).set(org.auth);
      expect(listed.body).toMatchObject({ data: [], total_count: 0 });
      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: link.value }));
      expectError(await postClick(t, org, { partner_id: partner.id, link_id: link.id }), 404, 'not_found_error', 'link_id');

      expect((await linkRow(link.id))?.deleted_at).toBeInstanceOf(Date);
      const clickRow = await t.storage.db.selectFrom('clicks').selectAll().where('id', '=', click.id).executeTakeFirstOrThrow();
      expect(clickRow.link_id).toBe(link.id);
    });

    it('frees the value: a new link may take it and resolves at once', async () => {
      const link = await createLink(t, org, partner);
      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: `${link.value}-none` }));
      expect((await createClick(t, org, { param: 'ref', value: link.value })).link_id).toBe(link.id);
      expect((await deleteLink(link.id)).status).toBe(200);

      const other = await createPartner(t, org);
      const again = await createLink(t, org, other, { param: 'ref', value: link.value.toUpperCase() });
      expect(again.id).not.toBe(link.id);
      const click = await createClick(t, org, { param: 'ref', value: link.value });
      expect(click).toMatchObject({ link_id: again.id, partner_id: other.id });
    });

    it('answers 404 to another organization and leaves the link in place', async () => {
      const link = await createLink(t, org, partner);
      expectError(await deleteLink(link.id, otherOrg), 404, 'not_found_error');
      expect((await getLink(link.id)).status).toBe(200);
      expect((await linkRow(link.id))?.deleted_at).toBeNull();
    });
  });

  describe('deleting a partner', () => {
    it('deletes its links: they stop resolving, are hidden, and their values are free again', async () => {
      const doomed = await createPartner(t, org);
      const ref = await createLink(t, org, doomed, { param: 'ref' });
      const via = await createLink(t, org, doomed, { param: 'via' });
      const keep = await createLink(t, org, partner);
      // Warm both lookups first.
      expect((await createClick(t, org, { param: 'ref', value: ref.value })).link_id).toBe(ref.id);
      expect((await createClick(t, org, { param: 'via', value: via.value, program_id: org.program_id })).link_id).toBe(via.id);

      expect((await t.request.delete(`/v1/partners/${doomed.id}`).set(org.auth)).status).toBe(200);

      expectLinkNotFound(await postClick(t, org, { param: 'ref', value: ref.value }));
      expectLinkNotFound(await postClick(t, org, { param: 'via', value: via.value, program_id: org.program_id }));
      expectError(await getLink(ref.id), 404, 'not_found_error');
      expectError(await getLink(via.id), 404, 'not_found_error');
      const listed = await t.request.get(`/v1/links?program_id=${org.program_id}&limit=100`).set(org.auth);
      expect(ids(listed.body.data)).not.toContain(ref.id);
      const rows = await t.storage.db.selectFrom('links').selectAll().where('partner_id', '=', doomed.id).execute();
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(r.deleted_at).toBeInstanceOf(Date);
      expectError(await postClick(t, org, { partner_id: doomed.id }), 404, 'not_found_error', 'partner_id');

      // Another partner's link is untouched; the freed value can be taken.
      expect((await createClick(t, org, { param: 'ref', value: keep.value })).link_id).toBe(keep.id);
      const reused = await createLink(t, org, partner, { param: 'ref', value: ref.value });
      expect((await createClick(t, org, { param: 'ref', value: ref.value })).link_id).toBe(reused.id);
    });
  });
});

const ids = (items: ApiObject[]) => items.map((l) => l.id);
