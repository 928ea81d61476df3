import { sql } from 'kysely';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createPartner, createProgram } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * List conventions (ingest/docs/api.md#lists): order by (created_at, id), asc|desc, starting_after
 * / ending_before cursors, has_more, total_count, limit bounds, created_gte/lte, expand.
 */

type Item = { id: string; created_at: string; [k: string]: unknown };

const GROUPS_CREATED = 27; // plus the program's default group
const PARTNERS_CREATED = 26;
const TIED = 6;

function expectBadRequest(res: Response, param: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
}

const ids = (items: Item[]) => items.map((i) => i.id);

describe('list pagination', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: [{ org: 'Acme Inc', program: 'Acme Partners' }] });
  let other: { program_id: string; group_ids: string[] };
  /** Every group of org.program_id, in ascending list order as the API reports it. */
  let groupsAsc: Item[];
  let partnersAsc: Item[];
  const groupList = (query: string) => t.request.get(`/v1/groups?program_id=${org.program_id}${query ? `&${query}` : ''}`).set(org.auth);
  const partnerList = (query: string) =>
    t.request.get(`/v1/partners?program_id=${org.program_id}${query ? `&${query}` : ''}`).set(org.auth);

  beforeAll(async () => {
    const groupIds: string[] = [];
    for (let i = 0; i < GROUPS_CREATED; i++) {
      groupIds.push((await createGroup(t, org, { program_id: org.program_id, name: `Group ${i}` })).id);
    }
    // Ties on created_at are ordered by id: give six consecutive groups the very same instant.
    const tied = groupIds.slice(10, 10 + TIED);
    await sql`update groups set created_at = (select created_at from groups where id = ${tied[0]}) where id in (${sql.join(tied)})`.execute(
      t.storage.db,
    );
    for (let i = 0; i < PARTNERS_CREATED; i++) {
      await createPartner(t, org, {
        program_id: org.program_id,
        first_name: `P${i}`,
        last_name: 'Walker',
        email: `walker-${i}@example.com`,
      });
    }

    const otherProgram = await createProgram(t, org, { name: 'Other program' });
    const extra = await createGroup(t, org, { program_id: otherProgram.id, name: 'Elsewhere' });
    other = { program_id: otherProgram.id, group_ids: [otherProgram.default_group_id, extra.id] };

    const allGroups = await groupList('order=asc&limit=100');
    expect(allGroups.status).toBe(200);
    groupsAsc = allGroups.body.data;
    const allPartners = await partnerList('order=asc&limit=100');
    expect(allPartners.status).toBe(200);
    partnersAsc = allPartners.body.data;
  });

  describe('the reference listing', () => {
    it('holds every group of the program once, ordered by created_at, with an exact total_count', async () => {
      const res = await groupList('order=asc&limit=100');
      expect(res.body.total_count).toBe(GROUPS_CREATED + 1);
      expect(res.body.has_more).toBe(false);
      expect(groupsAsc).toHaveLength(GROUPS_CREATED + 1);
      expect(new Set(ids(groupsAsc)).size).toBe(groupsAsc.length);
      expect(ids(groupsAsc)).toContain(org.group_id);
      expect(ids(groupsAsc)).not.toContain(other.group_ids[1]);
      const times = groupsAsc.map((g) => Date.parse(g.created_at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(groupsAsc.every((g) => g.program_id === org.program_id)).toBe(true);
      // The tied groups sit together, ordered by id.
      const tiedAt = groupsAsc.filter((g) => g.created_at === groupsAsc.find((x) => x.name === 'Group 10')!.created_at);
      expect(tiedAt.length).toBeGreaterThanOrEqual(TIED);
    });

    it('desc (the default order) is exactly the reverse of asc', async () => {
      const desc = await groupList('order=desc&limit=100');
      expect(ids(desc.body.data)).toEqual(ids(groupsAsc).reverse());
      const dflt = await groupList('limit=100');
      expect(ids(dflt.body.data)).toEqual(ids(groupsAsc).reverse());
    });

    it('partners: every created partner once, with an exact total_count', () => {
      expect(partnersAsc).toHaveLength(PARTNERS_CREATED);
      expect(new Set(ids(partnersAsc)).size).toBe(PARTNERS_CREATED);
      expect(partnersAsc.map((p) => p.email).sort()).toEqual(
        Array.from({ length: PARTNERS_CREATED }, (_, i) => `walker-${i}@example.com`).sort(),
      );
    });
  });

  /**
   * Walks a list to its end. Forward: first page, then starting_after=<last id>. Backward:
   * starts with ending_before=<the last item of the list>, then ending_before=<first id>.
   * Returns the pages in travel order.
   */
  async function walk(
    list: (q: string) => Promise<Response>,
    opts: { order: 'asc' | 'desc'; direction: 'forward' | 'backward'; limit?: number; start?: string; extra?: string },
  ): Promise<Response[]> {
    const pages: Response[] = [];
    const base = [`order=${opts.order}`, opts.limit ? `limit=${opts.limit}` : '', opts.extra ?? ''].filter(Boolean).join('&');
    let cursor = opts.start;
    for (let i = 0; i < 200; i++) {
      const cursorParam = cursor ? `&${opts.direction === 'forward' ? 'starting_after' : 'ending_before'}=${cursor}` : '';
      const res = await list(`${base}${cursorParam}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res);
      if (!res.body.has_more) return pages;
      const data: Item[] = res.body.data;
      cursor = opts.direction === 'forward' ? data[data.length - 1].id : data[0].id;
    }
    throw new Error('pagination did not end');
  }

  function checkWalk(pages: Response[], expected: Item[], opts: { limit: number; direction: 'forward' | 'backward'; total: number }): void {
    pages.forEach((page, i) => {
      const last = i === pages.length - 1;
      expect(page.body.total_count).toBe(opts.total);
      expect(page.body.has_more).toBe(!last);
      if (!last) expect(page.body.data).toHaveLength(opts.limit);
      else expect(page.body.data.length).toBeLessThanOrEqual(opts.limit);
    });
    // Pages are in list order; walking backwards they arrive last page first.
    const ordered = opts.direction === 'forward' ? pages : [...pages].reverse();
    const union = ordered.flatMap((p) => ids(p.body.data));
    expect(new Set(union).size).toBe(union.length);
    expect(union).toEqual(ids(expected));
  }

  describe.each(['asc', 'desc'] as const)('order=%s', (order) => {
    const expectedGroups = () => (order === 'asc' ? groupsAsc : [...groupsAsc].reverse());
    const expectedPartners = () => (order === 'asc' ? partnersAsc : [...partnersAsc].reverse());

    it.each([1, 4, 10, 27, 28])('walking groups forward with starting_after and limit=%i visits every group once', async (limit) => {
      const pages = await walk(groupList, { order, direction: 'forward', limit });
      expect(pages).toHaveLength(Math.max(1, Math.ceil((GROUPS_CREATED + 1) / limit)));
      checkWalk(pages, expectedGroups(), { limit, direction: 'forward', total: GROUPS_CREATED + 1 });
    });

    it.each([1, 4, 10, 27])('walking groups backward with ending_before and limit=%i visits every group once', async (limit) => {
      const expected = expectedGroups();
      const lastItem = expected[expected.length - 1];
      const pages = await walk(groupList, { order, direction: 'backward', limit, start: lastItem.id });
      checkWalk(pages, expected.slice(0, -1), { limit, direction: 'backward', total: GROUPS_CREATED + 1 });
    });

    it('walking partners forward with the default limit (10) visits every partner once', async () => {
      const pages = await walk(partnerList, { order, direction: 'forward' });
      expect(pages.map((p) => p.body.data.length)).toEqual([10, 10, 6]);
      checkWalk(pages, expectedPartners(), { limit: 10, direction: 'forward', total: PARTNERS_CREATED });
    });

    it('walking partners backward with limit=7 visits every partner once', async () => {
      const expected = expectedPartners();
      const pages = await walk(partnerList, { order, direction: 'backward', limit: 7, start: expected[expected.length - 1].id });
      checkWalk(pages, expected.slice(0, -1), { limit: 7, direction: 'backward', total: PARTNERS_CREATED });
    });

    it('ending_before returns the items just before the cursor, still in list order', async () => {
      const expected = expectedGroups();
      const res = await groupList(`order=${order}&limit=3&ending_before=${expected[10].id}`);
      expect(ids(res.body.data)).toEqual(ids(expected.slice(7, 10)));
      expect(res.body.has_more).toBe(true);
      const after = await groupList(`order=${order}&limit=3&starting_after=${expected[10].id}`);
      expect(ids(after.body.data)).toEqual(ids(expected.slice(11, 14)));
      expect(after.body.has_more).toBe(true);
    });

    it('has_more is false at both ends of the list', async () => {
      const expected = expectedGroups();
      const n = expected.length;
      const pastEnd = await groupList(`order=${order}&starting_after=${expected[n - 1].id}`);
      expect(pastEnd.body).toMatchObject({ data: [], has_more: false, total_count: n });
      const beforeStart = await groupList(`order=${order}&ending_before=${expected[0].id}`);
      expect(beforeStart.body).toMatchObject({ data: [], has_more: false, total_count: n });
      const lastOne = await groupList(`order=${order}&limit=1&starting_after=${expected[n - 2].id}`);
      expect(ids(lastOne.body.data)).toEqual([expected[n - 1].id]);
      expect(lastOne.body.has_more).toBe(false);
      const firstOne = await groupList(`order=${order}&limit=1&ending_before=${expected[1].id}`);
      expect(ids(firstOne.body.data)).toEqual([expected[0].id]);
      expect(firstOne.body.has_more).toBe(false);
    });
  });

  describe('has_more and total_count', () => {
    it('has_more is false when the page holds exactly the remaining items and true one item short', async () => {
      const n = groupsAsc.length;
      const exact = await groupList(`limit=${n}`);
      expect(exact.body.data).toHaveLength(n);
      expect(exact.body.has_more).toBe(false);
      const short = await groupList(`limit=${n - 1}`);
      expect(short.body.data).toHaveLength(n - 1);
      expect(short.body.has_more).toBe(true);
    });

    it('total_count ignores cursors and limit but follows the filters', async () => {
      const n = groupsAsc.length;
      for (const q of ['limit=1', 'limit=100', `starting_after=${groupsAsc[5].id}`, `ending_before=${groupsAsc[5].id}&order=asc`]) {
        const res = await groupList(q);
        expect(res.status).toBe(200);
        expect(res.body.total_count).toBe(n);
      }
      const pivot = groupsAsc[20].created_at;
      const filtered = await groupList(`created_gte=${pivot}&limit=1`);
      const expected = groupsAsc.filter((g) => g.created_at >= pivot).length;
      expect(filtered.body.total_count).toBe(expected);
      expect(expected).toBeLessThan(n);
    });

    it('the counts of another program in the same organization are separate', async () => {
      const res = await t.request.get(`/v1/groups?program_id=${other.program_id}`).set(org.auth);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(2);
      expect(ids(res.body.data).sort()).toEqual([...other.group_ids].sort());
    });

    it('a deleted record leaves the list and its count', async () => {
      const gid = (await createGroup(t, org, { program_id: other.program_id, name: 'Short-lived' })).id;
      expect((await t.request.get(`/v1/groups?program_id=${other.program_id}`).set(org.auth)).body.total_count).toBe(3);
      expect((await t.request.delete(`/v1/groups/${gid}`).set(org.auth)).status).toBe(200);
      const after = await t.request.get(`/v1/groups?program_id=${other.program_id}&limit=100`).set(org.auth);
      expect(after.body.total_count).toBe(2);
      expect(ids(after.body.data)).not.toContain(gid);
      // and is no longer a valid cursor
      expectBadRequest(
        await t.request.get(`/v1/groups?program_id=${other.program_id}&starting_after=${gid}`).set(org.auth),
        'starting_after',
      );
    });
  });

  describe('limit', () => {
    /** A program holding 102 groups (its default and 101 more). */
    async function programWith101Groups(): Promise<string> {
      const programId: string = (await createProgram(t, org, { name: 'Crowded program' })).id;
      for (let i = 0; i < 101; i++) await createGroup(t, org, { program_id: programId, name: `Crowd ${i}` });
      return programId;
    }

    it('defaults to 10', async () => {
      const res = await groupList('');
      expect(res.body.data).toHaveLength(10);
      expect(res.body.has_more).toBe(true);
      expect(ids(res.body.data)).toEqual(ids(groupsAsc).reverse().slice(0, 10));
    });

    it.each(['0', '101', 'abc', '-1', '1.5', '', '1e1', '10%20'])('limit=%s answers 400 naming limit', async (limit) => {
      expectBadRequest(await groupList(`limit=${limit}`), 'limit');
    });

    it('limit=1 and limit=100 are accepted; 100 is the largest page', async () => {
      const one = await groupList('limit=1');
      expect(one.body.data).toHaveLength(1);
      const big = await programWith101Groups();
      const hundred = await t.request.get(`/v1/groups?program_id=${big}&limit=100`).set(org.auth);
      expect(hundred.status).toBe(200);
      expect(hundred.body.data).toHaveLength(100);
      expect(hundred.body.has_more).toBe(true);
      expect(hundred.body.total_count).toBe(102);
      const rest = await t.request.get(`/v1/groups?program_id=${big}&limit=100&starting_after=${hundred.body.data[99].id}`).set(org.auth);
      expect(rest.body.data).toHaveLength(2);
      expect(rest.body.has_more).toBe(false);
    });
  });

  describe('cursors', () => {
    it('both starting_after and ending_before at once answer 400', async () => {
      const res = await groupList(`starting_after=${groupsAsc[3].id}&ending_before=${groupsAsc[8].id}`);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/starting_after/);
      expect(res.body.error.message).toMatch(/ending_before/);
    });

    it('a cursor from another program of the same organization answers 400', async () => {
      expectBadRequest(await groupList(`starting_after=${other.group_ids[1]}`), 'starting_after');
      expectBadRequest(await groupList(`ending_before=${other.group_ids[0]}`), 'ending_before');
    });

    it('an unknown cursor id, or an id of another kind, answers 400', async () => {
      expectBadRequest(await groupList('starting_after=grp_000000000000000000000000'), 'starting_after');
      expectBadRequest(await groupList(`ending_before=${partnersAsc[0].id}`), 'ending_before');
      expectBadRequest(await partnerList(`starting_after=${groupsAsc[0].id}`), 'starting_after');
    });

    it('a cursor of another organization answers 400 and reveals nothing', async () => {
      const stranger = await t.newOrganization({ org: 'Stranger', program: 'Stranger program' });
      const res = await t.request.get(`/v1/groups?program_id=${stranger.program_id}&starting_after=${groupsAsc[0].id}`).set(stranger.auth);
      expectBadRequest(res, 'starting_after');
      expect(JSON.stringify(res.body)).not.toContain(org.program_id);
    });

    it('the same cursor repeated answers 400 (scalar parameters take one value)', async () => {
      expectBadRequest(await groupList(`starting_after=${groupsAsc[1].id}&starting_after=${groupsAsc[2].id}`), 'starting_after');
    });
  });

  describe('created_gte / created_lte', () => {
    it('are inclusive on both ends', async () => {
      const lo = groupsAsc[5].created_at;
      const hi = groupsAsc[20].created_at;
      const expected = groupsAsc.filter((g) => g.created_at >= lo && g.created_at <= hi);
      const res = await groupList(`order=asc&limit=100&created_gte=${lo}&created_lte=${hi}`);
      expect(res.status).toBe(200);
      expect(ids(res.body.data)).toEqual(ids(expected));
      expect(res.body.total_count).toBe(expected.length);
      expect(ids(res.body.data)).toContain(groupsAsc[5].id);
      expect(ids(res.body.data)).toContain(groupsAsc[20].id);
    });

    it('the same instant as both bounds returns exactly the records created at that instant', async () => {
      const at = groupsAsc.find((g) => g.name === 'Group 10')!.created_at;
      const res = await groupList(`order=asc&limit=100&created_gte=${at}&created_lte=${at}`);
      expect(ids(res.body.data)).toEqual(ids(groupsAsc.filter((g) => g.created_at === at)));
      expect(res.body.data.length).toBeGreaterThanOrEqual(TIED);
    });

    it('one millisecond past a record excludes it', async () => {
      const at = groupsAsc[12].created_at;
      const after = new Date(Date.parse(at) + 1).toISOString();
      const before = new Date(Date.parse(at) - 1).toISOString();
      const gte = await groupList(`limit=100&created_gte=${after}`);
      expect(ids(gte.body.data)).not.toContain(groupsAsc[12].id);
      expect(gte.body.total_count).toBe(groupsAsc.filter((g) => g.created_at > at).length);
      const lte = await groupList(`limit=100&created_lte=${before}`);
      expect(ids(lte.body.data)).not.toContain(groupsAsc[12].id);
      expect(lte.body.total_count).toBe(groupsAsc.filter((g) => g.created_at < at).length);
    });

    it('accept an offset instead of Z', async () => {
      const at = new Date(groupsAsc[12].created_at);
      const shifted = new Date(at.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const res = await groupList(`limit=100&created_gte=${encodeURIComponent(shifted)}`);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(groupsAsc.filter((g) => g.created_at >= groupsAsc[12].created_at).length);
    });

    it('combine with cursor walks: the union of pages equals the filtered set', async () => {
      const lo = groupsAsc[3].created_at;
      const expected = groupsAsc.filter((g) => g.created_at >= lo);
      const pages = await walk(groupList, { order: 'asc', direction: 'forward', limit: 4, extra: `created_gte=${lo}` });
      checkWalk(pages, expected, { limit: 4, direction: 'forward', total: expected.length });
    });

    it('far-future and far-past bounds give empty and full lists', async () => {
      const none = await groupList('created_gte=2999-01-01T00:00:00.000Z');
      expect(none.body).toMatchObject({ data: [], has_more: false, total_count: 0 });
      const all = await groupList('created_gte=2000-01-01T00:00:00Z');
      expect(all.body.total_count).toBe(groupsAsc.length);
    });

    it.each(['yesterday', '2024-13-01T00:00:00Z', '1700000000', '2024-01-01'])(
      'created_gte=%s (not an ISO timestamp) answers 400',
      async (v) => {
        expectBadRequest(await groupList(`created_gte=${v}`), 'created_gte');
        expectBadRequest(await groupList(`created_lte=${v}`), 'created_lte');
      },
    );
  });

  describe('order and repeated parameters', () => {
    it.each(['up', 'ASC', ''])('order=%s answers 400', async (v) => {
      expectBadRequest(await groupList(`order=${v}`), 'order');
    });

    it.each([
      ['limit=1&limit=2', 'limit'],
      ['order=asc&order=desc', 'order'],
      ['limit[]=5', 'limit'],
    ])('%s (a scalar given several times or as an array) answers 400', async (q, param) => {
      expectBadRequest(await groupList(q), param);
    });

    it('program_id given twice answers 400', async () => {
      const res = await t.request.get(`/v1/groups?program_id=${org.program_id}&program_id=${other.program_id}`).set(org.auth);
      expectBadRequest(res, 'program_id');
    });

    it('a list without its required program_id answers 400', async () => {
      expectBadRequest(await t.request.get('/v1/groups').set(org.auth), 'program_id');
      expectBadRequest(await t.request.get('/v1/partners').set(org.auth), 'program_id');
    });
  });

  describe('expand', () => {
    const partnerId = () => partnersAsc[0].id;

    it('expand[]=group&expand[]=program expands both on every listed partner', async () => {
      const res = await partnerList('expand[]=group&expand[]=program&limit=5');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(5);
      for (const p of res.body.data) {
        expect(p.group).toMatchObject({ id: p.group_id });
        expect(p.program).toMatchObject({ id: p.program_id });
        // the partner list's program expansion carries the program's terms
        expect(p.program).toHaveProperty('cookie_duration');
      }
    });

    it('expand=group (no brackets) is accepted as one value', async () => {
      const res = await partnerList('expand=group&limit=3');
      expect(res.status).toBe(200);
      for (const p of res.body.data) {
        expect(p.group).toMatchObject({ id: p.group_id, default: true });
        expect(p).not.toHaveProperty('program');
      }
    });

    it('expand=group&expand=program (repeated without brackets) expands both', async () => {
      const res = await partnerList('expand=group&expand=program&limit=2');
      expect(res.status).toBe(200);
      for (const p of res.body.data) {
        expect(p).toHaveProperty('group');
        expect(p).toHaveProperty('program');
      }
    });

    it('without expand nothing is expanded', async () => {
      const res = await partnerList('limit=3');
      for (const p of res.body.data) {
        expect(p).not.toHaveProperty('group');
        expect(p).not.toHaveProperty('program');
      }
    });

    it('expand works on retrieve as well', async () => {
      const res = await t.request.get(`/v1/partners/${partnerId()}?expand[]=group`).set(org.auth);
      expect(res.status).toBe(200);
      expect(res.body.data.group).toMatchObject({ id: org.group_id });
      expect(Object.keys(res.body.data.group).sort()).toEqual(['created_at', 'default', 'description', 'id', 'name', 'public_key']);
    });

    it.each(['expand=bogus', 'expand[]=group&expand[]=bogus', 'expand[]=', 'expand[]=customer'])(
      '%s answers 400 naming expand',
      async (q) => {
        const res = await partnerList(q);
        expectBadRequest(res, 'expand');
        expect(res.body.error.message).toBe('Invalid expand: must be one or more of: group, program');
        expectBadRequest(await t.request.get(`/v1/partners/${partnerId()}?${q}`).set(org.auth), 'expand');
      },
    );

    it('an unknown include value answers 400 naming include', async () => {
      expectBadRequest(await partnerList('include[]=everything'), 'include');
    });
  });
});
