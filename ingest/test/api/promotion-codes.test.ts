import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { type ApiObject, createGroup, createPartner, createProgram, type TestOrg, uniqueCode } from '../support/factories.js';
import { EXPANDED_PARTNER_FIELDS, EXPANDED_PROGRAM_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

/**
 * /v1/promotion-codes CRUD (each operation's reference: its description in the OpenAPI document at
 * /docs).
 */

const PROMOTION_CODE_FIELDS = [
  'id',
  'code',
  'type',
  'value',
  'entity_type',
  'partner_id',
  'group_id',
  'active',
  'program_id',
  'organization_id',
  'created_at',
  'updated_at',
].sort();

const pick = (o: ApiObject, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

describe('/v1/promotion-codes', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org);
  });

  const { post, get, put, del, list } = resource(t, '/v1/promotion-codes', org);

  async function createCode(overrides: Record<string, unknown> = {}, who: TestOrg = org): Promise<ApiObject> {
    const res = await post({ program_id: who.program_id, code: uniqueCode(), type: 'fixed', value: 500, ...overrides }, who);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0];
  }

  const rowOf = (id: string) => t.storage.db.selectFrom('promotion_codes').selectAll().where('id', '=', id).executeTakeFirst();
  /** Rows (live or deleted) of the organization holding exactly this code text, from SQL. */
  const codeRowsNamed = async (code: string) =>
    (
      await t.storage.db
        .selectFrom('promotion_codes')
        .select('id')
        .where('organization_id', '=', org.organization_id)
        .where('code', '=', code)
        .execute()
    ).length;

  describe('create', () => {
    it('creates a partner-owned code with the documented object shape', async () => {
      const code = uniqueCode('ALICE');
      const res = await post({ program_id: org.program_id, code, type: 'percentage', value: 20, partner_id: partner.id });

      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const pc = res.body.data[0];
      expect(Object.keys(pc).sort()).toEqual(PROMOTION_CODE_FIELDS);
      expect(pc).toMatchObject({
        code,
        type: 'percentage',
        value: 20,
        entity_type: 'partner',
        partner_id: partner.id,
        group_id: null,
        active: true,
        program_id: org.program_id,
        organization_id: org.organization_id,
      });
      expect(pc.id).toMatch(/^prc_[0-9A-Za-z]{24}$/);
      expect(pc.created_at).toMatch(ISO_MS);
      expect(pc.updated_at).toMatch(ISO_MS);

      const again = await get(pc.id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ success: true, data: pc });
      expect(await rowOf(pc.id)).toMatchObject({ code, partner_id: partner.id, group_id: null, deleted_at: null });
    });

    it('creates a group-owned code (entity_type group)', async () => {
      const group = await createGroup(t, org);
      const pc = await createCode({ group_id: group.id, type: 'fixed', value: 1500 });
      expect(pc).toMatchObject({ entity_type: 'group', group_id: group.id, partner_id: null, type: 'fixed', value: 1500 });
      expect((await get(pc.id)).body.data).toEqual(pc);
    });

    it('creates a program-wide code when neither partner_id nor group_id is given (entity_type program)', async () => {
      const pc = await createCode();
      expect(pc).toMatchObject({ entity_type: 'program', partner_id: null, group_id: null });
      const explicitNulls = await createCode({ partner_id: null, group_id: null });
      expect(explicitNulls).toMatchObject({ entity_type: 'program', partner_id: null, group_id: null });
    });

    it('stores active: false when asked', async () => {
      const pc = await createCode({ active: false });
      expect(pc.active).toBe(false);
      expect((await rowOf(pc.id))!.active).toBe(false);
    });

    it('accepts a fixed value above 100 (cents) and a percentage of exactly 0 and 100', async () => {
      expect((await createCode({ type: 'fixed', value: 25_000 })).value).toBe(25_000);
      expect((await createCode({ type: 'percentage', value: 100 })).value).toBe(100);
      expect((await createCode({ type: 'percentage', value: 0 })).value).toBe(0);
    });

    it('answers 400 for a percentage above 100, creating nothing', async () => {
      const code = uniqueCode();
      const res = await post({ program_id: org.program_id, code, type: 'percentage', value: 101 });
      expectError(res, 400, 'invalid_request_error', 'value');
      expect(await codeRowsNamed(code)).toBe(0);
    });

    it.each([
      ['a negative value', { value: -1 }, 'value'],
      ['a fractional value', { value: 1.5 }, 'value'],
      ['a value given as a string', { value: '10' }, 'value'],
      ['an unknown type', { type: 'bogo' }, 'type'],
      ['a code with spaces', { code: 'TWO WORDS' }, 'code'],
      ['an empty code', { code: '' }, 'code'],
      ['a code longer than 64 characters', { code: 'X'.repeat(65) }, 'code'],
      ['an unknown body key', { discount: 5 }, 'discount'],
      ['a missing program_id', { program_id: undefined }, 'program_id'],
      ['a missing code', { code: undefined }, 'code'],
      ['a missing type', { type: undefined }, 'type'],
      ['a missing value', { value: undefined }, 'value'],
    ])('answers 400 for %s', async (_name, overrides, param) => {
      const body: Record<string, unknown> = { program_id: org.program_id, code: uniqueCode(), type: 'fixed', value: 100, ...overrides };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      expectError(await post(body), 400, 'invalid_request_error', param);
    });

    it('answers 400 when both partner_id and group_id are given', async () => {
      const group = await createGroup(t, org);
      const code = uniqueCode();
      const res = await post({ program_id: org.program_id, code, type: 'fixed', value: 1, partner_id: partner.id, group_id: group.id });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(await codeRowsNamed(code)).toBe(0);
    });

    it('answers 400 for a partner of another program of the organization', async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const code = uniqueCode();
      const res = await post({ program_id: org.program_id, code, type: 'fixed', value: 1, partner_id: elsewhere.id });
      expectError(res, 400, 'invalid_request_error', 'partner_id');
      expect(await codeRowsNamed(code)).toBe(0);
    });

    it('answers 404 for a group of another program of the organization', async () => {
      const program = await createProgram(t, org);
      const code = uniqueCode();
      const res = await post({ program_id: org.program_id, code, type: 'fixed', value: 1, group_id: program.default_group_id });
      expectError(res, 404, 'not_found_error', 'group_id');
      expect(await codeRowsNamed(code)).toBe(0);
    });

    it('answers 404 for an unknown partner, group or program', async () => {
      expectError(
        await post({ program_id: org.program_id, code: uniqueCode(), type: 'fixed', value: 1, partner_id: 'part_nope' }),
        404,
        'not_found_error',
        'partner_id',
      );
      expectError(
        await post({ program_id: org.program_id, code: uniqueCode(), type: 'fixed', value: 1, group_id: 'grp_nope' }),
        404,
        'not_found_error',
        'group_id',
      );
      expectError(
        await post({ program_id: 'prg_nope', code: uniqueCode(), type: 'fixed', value: 1 }),
        404,
        'not_found_error',
        'program_id',
      );
    });

    it('answers 409 for a code already in the program, compared case-insensitively', async () => {
      const first = await createCode({ code: uniqueCode('Summer') });
      for (const code of [first.code, first.code.toLowerCase(), first.code.toUpperCase()]) {
        const res = await post({ program_id: org.program_id, code, type: 'percentage', value: 10 });
        expectError(res, 409, 'conflict_error');
      }
      const rows = await t.storage.db
        .selectFrom('promotion_codes')
        .select('id')
        .where('program_id', '=', org.program_id)
        .where((eb) => eb(eb.fn('lower', ['code']), '=', first.code.toLowerCase()))
        .execute();
      expect(rows.map((r) => r.id)).toEqual([first.id]);
    });

    it('allows the same code in another program and in another organization', async () => {
      const first = await createCode();
      const program = await createProgram(t, org);
      const res = await post({ program_id: program.id, code: first.code, type: 'fixed', value: 1 });
      expect(res.status).toBe(201);
      expect(res.body.data[0]).toMatchObject({ code: first.code, program_id: program.id });
      const other = await post({ program_id: otherOrg.program_id, code: first.code, type: 'fixed', value: 1 }, otherOrg);
      expect(other.status).toBe(201);
      expect(other.body.data[0].organization_id).toBe(otherOrg.organization_id);
    });
  });

  describe('retrieve', () => {
    it('answers the code as a data object, with partner and program expansions shaped as the Partnership Program API has them', async () => {
      const pc = await createCode({ partner_id: partner.id });
      const program = (await t.request.get(`/v1/programs/${org.program_id}`).set(org.auth)).body.data;

      const plain = await get(pc.id);
      expect(plain.status).toBe(200);
      expect(Array.isArray(plain.body.data)).toBe(false);
      expect(plain.body.data).toEqual(pc);

      const res = await get(pc.id, '?expand[]=partner&expand[]=program');
      expect(res.status).toBe(200);
      expect(res.body.data.partner).toEqual(pick(partner, EXPANDED_PARTNER_FIELDS));
      expect(res.body.data.program).toEqual(pick(program, EXPANDED_PROGRAM_FIELDS));
      expect(Object.keys(res.body.data).sort()).toEqual([...PROMOTION_CODE_FIELDS, 'partner', 'program'].sort());
    });

    it('leaves out the partner expansion of a code without a partner', async () => {
      const pc = await createCode();
      const res = await get(pc.id, '?expand=partner');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(pc);
      expect(res.body.data).not.toHaveProperty('partner');
    });

    it('answers 400 for an unknown expand value and 404 for an unknown id', async () => {
      const pc = await createCode();
      expectError(await get(pc.id, '?expand[]=group'), 400, 'invalid_request_error', 'expand');
      expectError(await get('prc_doesnotexist'), 404, 'not_found_error');
    });
  });

  describe('list', () => {
    let program: ApiObject;
    let alice: ApiObject;
    let bob: ApiObject;
    let codes: ApiObject[];

    beforeAll(async () => {
      program = await createProgram(t, org);
      alice = await createPartner(t, org, { program_id: program.id, first_name: 'Alice' });
      bob = await createPartner(t, org, { program_id: program.id, first_name: 'Bob' });
      codes = [];
      for (let i = 0; i < 13; i++) {
        const owner = i % 3 === 0 ? { partner_id: alice.id } : i % 3 === 1 ? { partner_id: bob.id } : {};
        codes.push(await createCode({ program_id: program.id, ...owner }));
      }
    });

    it('requires program_id', async () => {
      expectError(await list(''), 400, 'invalid_request_error', 'program_id');
    });

    it('answers 404 for a program of another organization', async () => {
      expectError(await list(`program_id=${program.id}`, otherOrg), 404, 'not_found_error', 'program_id');
    });

    it('lists only the program codes, newest first by default, with has_more and total_count', async () => {
      const res = await list(`program_id=${program.id}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.total_count).toBe(13);
      expect(res.body.has_more).toBe(true);
      expect(res.body.data).toHaveLength(10);
      expect(res.body.data.map((c: ApiObject) => c.id)).toEqual(
        [...codes]
          .reverse()
          .slice(0, 10)
          .map((c) => c.id),
      );
      expect(res.body.data[0]).toEqual(codes[12]);
    });

    it('walks the pages with starting_after and back with ending_before', async () => {
      const first = await list(`program_id=${program.id}&order=asc&limit=5`);
      const second = await list(`program_id=${program.id}&order=asc&limit=5&starting_after=${first.body.data[4].id}`);
      const third = await list(`program_id=${program.id}&order=asc&limit=5&starting_after=${second.body.data[4].id}`);
      expect(third.body.has_more).toBe(false);
      const walked = [...first.body.data, ...second.body.data, ...third.body.data].map((c: ApiObject) => c.id);
      expect(walked).toEqual(codes.map((c) => c.id));
      const back = await list(`program_id=${program.id}&order=asc&limit=5&ending_before=${second.body.data[0].id}`);
      expect(back.body.data.map((c: ApiObject) => c.id)).toEqual(first.body.data.map((c: ApiObject) => c.id));
    });

    it('filters by partner_id', async () => {
      const res = await list(`program_id=${program.id}&partner_id=${alice.id}&limit=100&order=asc`);
      expect(res.status).toBe(200);
      const expected = codes.filter((c) => c.partner_id === alice.id).map((c) => c.id);
      expect(expected).toHaveLength(5);
      expect(res.body.data.map((c: ApiObject) => c.id)).toEqual(expected);
      expect(res.body.total_count).toBe(5);
    });

    it('expands partner and program in the shapes of the Partnership Program API', async () => {
      const programObj = (await t.request.get(`/v1/programs/${program.id}`).set(org.auth)).body.data;
      const res = await list(`program_id=${program.id}&limit=100&expand[]=partner&expand[]=program`);
      expect(res.status).toBe(200);
      for (const c of res.body.data) {
        expect(c.program).toEqual(pick(programObj, EXPANDED_PROGRAM_FIELDS));
        if (c.partner_id === alice.id) expect(c.partner).toEqual(pick(alice, EXPANDED_PARTNER_FIELDS));
        else if (c.partner_id === bob.id) expect(c.partner).toEqual(pick(bob, EXPANDED_PARTNER_FIELDS));
        else expect(c).not.toHaveProperty('partner');
      }
      const plain = await list(`program_id=${program.id}&limit=1`);
      expect(plain.body.data[0]).not.toHaveProperty('partner');
      expect(plain.body.data[0]).not.toHaveProperty('program');
    });

    it('answers 400 for an unknown filter or expand value', async () => {
      expectError(await list(`program_id=${program.id}&code=x`), 400, 'invalid_request_error', 'code');
      expectError(await list(`program_id=${program.id}&expand=customer`), 400, 'invalid_request_error', 'expand');
    });
  });

  describe('update', () => {
    it('changes code, type, value and active and answers an array of one', async () => {
      const pc = await createCode({ partner_id: partner.id, type: 'fixed', value: 900 });
      const newCode = uniqueCode('RENAMED');
      const res = await put(pc.id, { code: newCode, type: 'percentage', value: 15, active: false });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(updated).toMatchObject({ ...pc, code: newCode, type: 'percentage', value: 15, active: false, updated_at: expect.any(String) });
      expect(updated.created_at).toBe(pc.created_at);
      expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(pc.updated_at));
      expect((await get(pc.id)).body.data).toEqual(updated);
    });

    it('answers 400 when a change of type to percentage meets a value above 100, leaving the code as it was', async () => {
      const pc = await createCode({ type: 'fixed', value: 5000 });
      expectError(await put(pc.id, { type: 'percentage' }), 400, 'invalid_request_error', 'value');
      expectError(await put(pc.id, { type: 'percentage', value: 101 }), 400, 'invalid_request_error', 'value');
      expect((await get(pc.id)).body.data).toEqual(pc);
      const ok = await put(pc.id, { type: 'percentage', value: 100 });
      expect(ok.status).toBe(200);
      expect(ok.body.data[0]).toMatchObject({ type: 'percentage', value: 100 });
    });

    it('answers 400 when a percentage code gets a value above 100', async () => {
      const pc = await createCode({ type: 'percentage', value: 10 });
      expectError(await put(pc.id, { value: 150 }), 400, 'invalid_request_error', 'value');
      expect((await get(pc.id)).body.data.value).toBe(10);
    });

    it('answers 400 for an owner change or another unknown key', async () => {
      const pc = await createCode();
      for (const key of ['partner_id', 'group_id', 'program_id']) {
        const res = await put(pc.id, { [key]: partner.id });
        expect(res.status, key).toBe(400);
        expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: key, message: `Unknown body parameter: ${key}` });
      }
      expect((await get(pc.id)).body.data).toEqual(pc);
    });

    it('answers 409 when the new code is taken in the program (any case), and allows a case change of its own code', async () => {
      const taken = await createCode();
      const pc = await createCode();
      expectError(await put(pc.id, { code: taken.code.toLowerCase() }), 409, 'conflict_error');
      expect((await get(pc.id)).body.data.code).toBe(pc.code);
      const recased = await put(pc.id, { code: pc.code.toLowerCase() });
      expect(recased.status).toBe(200);
      expect(recased.body.data[0].code).toBe(pc.code.toLowerCase());
    });

    it('answers 404 for an unknown id', async () => {
      expectError(await put('prc_doesnotexist', { active: false }), 404, 'not_found_error');
    });
  });

  describe('delete', () => {
    it('soft-deletes: 404 afterwards, the row kept with deleted_at, and the code reusable', async () => {
      const pc = await createCode({ partner_id: partner.id });
      const res = await del(pc.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: pc.id, deleted: true } });

      expectError(await get(pc.id), 404, 'not_found_error');
      expectError(await put(pc.id, { active: false }), 404, 'not_found_error');
      expectError(await del(pc.id), 404, 'not_found_error');
      const listed = await list(`program_id=${org.program_id}&limit=100&partner_id=${partner.id}`);
      expect(listed.body.data.map((c: ApiObject) => c.id)).not.toContain(pc.id);

      const row = await rowOf(pc.id);
      expect(row).toBeDefined();
      expect(row!.deleted_at).toBeInstanceOf(Date);

      const again = await post({ program_id: org.program_id, code: pc.code, type: 'fixed', value: 1 });
      expect(again.status).toBe(201);
      expect(again.body.data[0].id).not.toBe(pc.id);
    });
  });

  describe('tenant isolation', () => {
    it('answers 404 to another organization for the code, and leaves it unchanged', async () => {
      const pc = await createCode({ partner_id: partner.id });
      expectError(await get(pc.id, '', otherOrg), 404, 'not_found_error');
      expectError(await put(pc.id, { active: false }, otherOrg), 404, 'not_found_error');
      expectError(await del(pc.id, otherOrg), 404, 'not_found_error');
      expect((await get(pc.id)).body.data).toEqual(pc);
    });

    it("refuses another organization's program, partner and group as owners", async () => {
      const group = await createGroup(t, org);
      const countOther = async () =>
        (await t.storage.db.selectFrom('promotion_codes').select('id').where('organization_id', '=', otherOrg.organization_id).execute())
          .length;
      const before = await countOther();
      expectError(
        await post({ program_id: org.program_id, code: uniqueCode(), type: 'fixed', value: 1 }, otherOrg),
        404,
        'not_found_error',
        'program_id',
      );
      expectError(
        await post({ program_id: otherOrg.program_id, code: uniqueCode(), type: 'fixed', value: 1, partner_id: partner.id }, otherOrg),
        404,
        'not_found_error',
        'partner_id',
      );
      expectError(
        await post({ program_id: otherOrg.program_id, code: uniqueCode(), type: 'fixed', value: 1, group_id: group.id }, otherOrg),
        404,
        'not_found_error',
        'group_id',
      );
      expect(await countOther()).toBe(before);
    });
  });
});
