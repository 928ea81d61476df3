import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  clickOf,
  createGroup,
  createPartner,
  createProgram,
  createPromotionCode,
  type TestOrg,
  uniqueCode,
  uniqueEmail,
  uniqueSuffix,
} from '../support/factories.js';
import { CUSTOMER_FIELDS, CUSTOMER_WRITE_FIELDS, EXPANDED_PARTNER_FIELDS, EXPANDED_PROGRAM_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { clockPast } from '../support/time.js';

/** GET /v1/customers, GET/PUT/DELETE /v1/customers/:id. */

const pick = (o: ApiObject, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const ids = (items: ApiObject[]) => items.map((i) => i.id);
const withoutIdentifier = ({ identifier: _, ...rest }: ApiObject) => rest;
const CONFLICT = { message: 'Customer already exists', type: 'conflict_error' };

describe('customers: list, retrieve, update, delete', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let alice: ApiObject;
  let bob: ApiObject;
  let vip: ApiObject;
  let vipPartner: ApiObject;

  beforeAll(async () => {
    alice = await createPartner(t, org, { first_name: 'Alice' });
    bob = await createPartner(t, org, { first_name: 'Bob' });
    vip = await createGroup(t, org, { name: 'VIP' });
    vipPartner = await createPartner(t, org, { first_name: 'Vera', group_id: vip.id });
  });

  const createCode = (overrides: Record<string, unknown> = {}, who: TestOrg = org) => createPromotionCode(t, who, overrides);
  const newClick = (partner: ApiObject, who: TestOrg = org) => clickOf(t, who, partner);

  const { get: retrieve, put, del, list } = resource(t, '/v1/customers', org);

  async function createCustomer(body: Record<string, unknown>, who: TestOrg = org): Promise<ApiObject> {
    const res = await t.request
      .post('/v1/customers')
      .set(who.auth)
      .send({ email: uniqueEmail('cust'), ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0];
  }

  const rowOf = (id: string) => t.storage.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  describe('GET /v1/customers', () => {
    const COUNT = 27;
    let program: ApiObject;
    let p1: ApiObject;
    let p2: ApiObject;
    /** All customers of `program` in ascending list order (created_at spread one minute apart). */
    let asc: ApiObject[];
    const base = (extra = '') => `program_id=${program.id}${extra ? `&${extra}` : ''}`;
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 12, i)).toISOString();

    beforeAll(async () => {
      program = await createProgram(t, org);
      p1 = await createPartner(t, org, { program_id: program.id, first_name: 'Lister' });
      p2 = await createPartner(t, org, { program_id: program.id, first_name: 'Other' });
      const statuses = ['lead', 'trialing', 'active', 'canceled'];
      const special = ['a_b-x@example.com', 'axb-x@example.com', 'Mixed.Case.Search@Example.com'];
      asc = [];
      for (let i = 0; i < COUNT; i++) {
        const email = special[i] ?? `list-${String(i).padStart(2, '0')}-${uniqueSuffix()}@example.com`;
        asc.push(
          await createCustomer({
            email,
            partner_id: i % 3 === 0 ? p2.id : p1.id,
            status: statuses[i % 4],
            created_at: at(i),
          }),
        );
      }
      // A customer of the organization's other program, which must never appear.
      await createCustomer({ partner_id: alice.id, email: `list-elsewhere-${uniqueSuffix()}@example.com` });
    });

    it('requires program_id', async () => {
      expectError(await list(''), 400, 'invalid_request_error', 'program_id');
    });

    it('answers 404 for an unknown program or one of another organization', async () => {
      expectError(await list('program_id=prg_nope'), 404, 'not_found_error', 'program_id');
      expectError(await list(base(), otherOrg), 404, 'not_found_error', 'program_id');
    });

    it('nests the customers in data.data, newest first, with has_more and total_count at the top, and no identifier', async () => {
      const res = await list(base());
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'success', 'total_count']);
      expect(res.body.success).toBe(true);
      expect(Object.keys(res.body.data)).toEqual(['data']);
      expect(res.body.has_more).toBe(true);
      expect(res.body.total_count).toBe(COUNT);
      const page = res.body.data.data;
      expect(ids(page)).toEqual(ids([...asc].reverse().slice(0, 10)));
      for (const c of page) expect(Object.keys(c).sort()).toEqual([...CUSTOMER_FIELDS].sort());
      expect(page[0]).toEqual(withoutIdentifier(asc[COUNT - 1]));
    });

    it('walks all customers forwards with starting_after and back with ending_before', async () => {
      const walked: ApiObject[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const res = await list(base(`order=asc&limit=10${cursor ? `&starting_after=${cursor}` : ''}`));
        expect(res.status).toBe(200);
        expect(res.body.total_count).toBe(COUNT);
        walked.push(...res.body.data.data);
        pages++;
        if (!res.body.has_more) break;
        cursor = res.body.data.data.at(-1).id;
      }
      expect(pages).toBe(3);
      expect(ids(walked)).toEqual(ids(asc));

      const back = await list(base(`order=asc&limit=10&ending_before=${asc[20].id}`));
      expect(ids(back.body.data.data)).toEqual(ids(asc.slice(10, 20)));
      expect(back.body.has_more).toBe(true);

      const desc = await list(base(`limit=5&starting_after=${asc[10].id}`));
      expect(ids(desc.body.data.data)).toEqual(ids(asc.slice(5, 10).reverse()));
    });

    it('answers 400 for a cursor outside the list and for both cursors at once', async () => {
      const foreign = await createCustomer({ partner_id: alice.id });
      expectError(await list(base(`starting_after=${foreign.id}`)), 400, 'invalid_request_error', 'starting_after');
      expectError(
        await list(base(`starting_after=${asc[1].id}&ending_before=${asc[2].id}`)),
        400,
        'invalid_request_error',
        'ending_before',
      );
    });

    it('filters by created_gte and created_lte (inclusive)', async () => {
      const res = await list(base(`order=asc&created_gte=${at(5)}&created_lte=${at(9)}`));
      expect(res.status).toBe(200);
      expect(ids(res.body.data.data)).toEqual(ids(asc.slice(5, 10)));
      expect(res.body.total_count).toBe(5);
    });

    it('filters by partner_id', async () => {
      const res = await list(base(`partner_id=${p2.id}&limit=100&order=asc`));
      expect(ids(res.body.data.data)).toEqual(ids(asc.filter((c) => c.partner_id === p2.id)));
      expect(res.body.total_count).toBe(9);
    });

    it('filters by status', async () => {
      for (const status of ['lead', 'trialing', 'active', 'canceled']) {
        const res = await list(base(`status=${status}&limit=100&order=asc`));
        expect(res.status).toBe(200);
        expect(ids(res.body.data.data)).toEqual(ids(asc.filter((c) => c.status === status)));
      }
      expectError(await list(base('status=gone')), 400, 'invalid_request_error', 'status');
    });

    it('searches the e-mail by partial match, case-insensitively', async () => {
      const res = await list(base('search=CASE.SEARCH@example'));
      expect(ids(res.body.data.data)).toEqual([asc[2].id]);
      const partial = await list(base('search=list-0&limit=100'));
      expect(partial.body.total_count).toBe(7); // list-03 … list-09
    });

    it('treats % and _ in the search literally', async () => {
      const percent = await list(base(`search=${encodeURIComponent('%')}`));
      expect(percent.status).toBe(200);
      expect(percent.body.total_count).toBe(0);
      expect(percent.body.data.data).toEqual([]);

      const underscore = await list(base('search=a_b'));
      expect(ids(underscore.body.data.data)).toEqual([asc[0].id]);

      const lone = await list(base('search=_'));
      expect(ids(lone.body.data.data)).toEqual([asc[0].id]);

      const backslash = await list(base(`search=${encodeURIComponent('\\')}`));
      expect(backslash.status).toBe(200);
      expect(backslash.body.total_count).toBe(0);
    });

    it('combines search, status and partner_id', async () => {
      const res = await list(base(`search=list-&status=trialing&partner_id=${p1.id}&limit=100&order=asc`));
      const expected = asc.filter((c) => c.email.startsWith('list-') && c.status === 'trialing' && c.partner_id === p1.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(res.body.data.data)).toEqual(ids(expected));
    });

    it('expands partner and program in the shapes of the Partnership Program API', async () => {
      const programObj = (await t.request.get(`/v1/programs/${program.id}`).set(org.auth)).body.data;
      const res = await list(base('limit=100&expand[]=partner&expand[]=program'));
      expect(res.status).toBe(200);
      for (const c of res.body.data.data) {
        expect(c.partner).toEqual(pick(c.partner_id === p1.id ? p1 : p2, EXPANDED_PARTNER_FIELDS));
        expect(c.program).toEqual(pick(programObj, EXPANDED_PROGRAM_FIELDS));
      }
      const one = await list(base('expand=partner&limit=1'));
      expect(one.body.data.data[0]).toHaveProperty('partner');
      expect(one.body.data.data[0]).not.toHaveProperty('program');
    });

    it('answers 400 for a bad limit, unknown expand value or unknown query key', async () => {
      expectError(await list(base('limit=101')), 400, 'invalid_request_error', 'limit');
      expectError(await list(base('expand=customer')), 400, 'invalid_request_error', 'expand');
      expectError(await list(base('email=x@example.com')), 400, 'invalid_request_error', 'email');
    });
  });

  describe('GET /v1/customers/:id', () => {
    it('answers a data object without identifier; expands partner and program', async () => {
      const c = await createCustomer({ partner_id: alice.id, name: 'Retrieved' });
      const plain = await retrieve(c.id);
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual({ success: true, data: withoutIdentifier(c) });

      const programObj = (await t.request.get(`/v1/programs/${org.program_id}`).set(org.auth)).body.data;
      const res = await retrieve(c.id, '?expand[]=partner&expand[]=program');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        ...withoutIdentifier(c),
        partner: pick(alice, EXPANDED_PARTNER_FIELDS),
        program: pick(programObj, EXPANDED_PROGRAM_FIELDS),
      });
    });

    it('answers 400 for an unknown include or expand', async () => {
      const c = await createCustomer({ partner_id: alice.id });
      expectError(await retrieve(c.id, '?include[]=orders'), 400, 'invalid_request_error', 'include');
      expectError(await retrieve(c.id, '?expand[]=click'), 400, 'invalid_request_error', 'expand');
    });

    it('answers 404 for an unknown id', async () => {
      expectError(await retrieve('cust_doesnotexist'), 404, 'not_found_error');
    });
  });

  describe('PUT /v1/customers/:id', () => {
    it('updates the plain fields and answers an array of one with identifier', async () => {
      const c = await createCustomer({ partner_id: alice.id });
      const changes = {
        name: 'Renamed',
        subscription_id: 'sub_999',
        customer_id: `ext-${uniqueSuffix()}`,
        status: 'trialing',
        plan: 'enterprise',
        lead_at: '2025-02-02T02:02:02.000Z',
      };
      const res = await put(c.id, changes);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body).not.toHaveProperty('warnings');
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(Object.keys(updated).sort()).toEqual([...CUSTOMER_WRITE_FIELDS].sort());
      expect(updated).toMatchObject({ ...changes, id: c.id, identifier: c.identifier, partner_id: alice.id, created_at: c.created_at });
      expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
      expect((await retrieve(c.id)).body.data).toEqual(withoutIdentifier(updated));
    });

    it('can clear nullable fields with null', async () => {
      const c = await createCustomer({ partner_id: alice.id, name: 'N', plan: 'p', subscription_id: 's' });
      const res = await put(c.id, { name: null, plan: null, subscription_id: null });
      expect(res.status).toBe(200);
      expect((await retrieve(c.id)).body.data).toMatchObject({ name: null, plan: null, subscription_id: null });
    });

    it.each([
      ['partner_id', () => bob.id],
      ['identifier', () => 'new-identifier'],
      ['program_id', () => org.program_id],
      ['created_at', () => '2025-01-01T00:00:00.000Z'],
      ['organization_id', () => org.organization_id],
    ])('answers 400 naming the unknown key %s, leaving the customer unchanged', async (key, value) => {
      const c = await createCustomer({ partner_id: alice.id });
      const res = await put(c.id, { [key]: value(), name: 'changed' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { type: 'invalid_request_error', param: key, message: `Unknown body parameter: ${key}` },
      });
      expect((await retrieve(c.id)).body.data).toEqual(withoutIdentifier(c));
    });

    it('answers 400 for an invalid status or e-mail', async () => {
      const c = await createCustomer({ partner_id: alice.id });
      expectError(await put(c.id, { status: 'deleted' }), 400, 'invalid_request_error', 'status');
      expectError(await put(c.id, { email: 'nope' }), 400, 'invalid_request_error', 'email');
      expect((await retrieve(c.id)).body.data).toEqual(withoutIdentifier(c));
    });

    it('answers 409 with the other customer when the new customer_id is taken in the program', async () => {
      const holder = await createCustomer({ partner_id: alice.id, customer_id: `ext-${uniqueSuffix()}` });
      const c = await createCustomer({ partner_id: alice.id });
      const res = await put(c.id, { customer_id: holder.customer_id, name: 'would-be' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, error: CONFLICT, data: holder });
      expect((await retrieve(c.id)).body.data).toEqual(withoutIdentifier(c));
    });

    it('accepts re-sending its own customer_id', async () => {
      const c = await createCustomer({ partner_id: alice.id, customer_id: `ext-${uniqueSuffix()}` });
      const res = await put(c.id, { customer_id: c.customer_id, name: 'same id' });
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ customer_id: c.customer_id, name: 'same id' });
    });

    it('sets click_id to a click of the same partner and refuses a click of another partner', async () => {
      const c = await createCustomer({ partner_id: alice.id });
      const own = await newClick(alice);
      const foreign = await newClick(bob);
      expectError(await put(c.id, { click_id: foreign.id }), 400, 'invalid_request_error', 'click_id');
      expect((await retrieve(c.id)).body.data.click_id).toBeNull();
      const res = await put(c.id, { click_id: own.id });
      expect(res.status).toBe(200);
      expect((await retrieve(c.id)).body.data).toMatchObject({ click_id: own.id, partner_id: alice.id });
    });

    it('answers 404 for an unknown id and for an unknown click_id', async () => {
      expectError(await put('cust_doesnotexist', { name: 'x' }), 404, 'not_found_error');
      const c = await createCustomer({ partner_id: alice.id });
      expectError(await put(c.id, { click_id: 'clk_nope' }), 404, 'not_found_error', 'click_id');
    });

    describe('active_at', () => {
      it('is set when the status first becomes active, and not moved by a second activation', async () => {
        const c = await createCustomer({ partner_id: alice.id });
        expect(c.active_at).toBeNull();

        const before = Date.now();
        const first = await put(c.id, { status: 'active' });
        const after = Date.now();
        expect(first.status).toBe(200);
        const activeAt = first.body.data[0].active_at;
        expect(activeAt).not.toBeNull();
        expect(Date.parse(activeAt)).toBeGreaterThanOrEqual(before - 5);
        expect(Date.parse(activeAt)).toBeLessThanOrEqual(after + 5);
        expect((await rowOf(c.id)).active_at?.toISOString()).toBe(activeAt);

        expect((await put(c.id, { status: 'canceled' })).body.data[0]).toMatchObject({ status: 'canceled', active_at: activeAt });
        // A second activation now would stamp a later time: it must keep the first.
        await clockPast(activeAt);
        const again = await put(c.id, { status: 'active' });
        expect(again.body.data[0]).toMatchObject({ status: 'active', active_at: activeAt });
        expect((await retrieve(c.id)).body.data.active_at).toBe(activeAt);
      });

      it('uses a given active_at instead of now', async () => {
        const c = await createCustomer({ partner_id: alice.id, status: 'trialing' });
        const res = await put(c.id, { status: 'active', active_at: '2025-04-04T04:04:04.000Z' });
        expect(res.body.data[0].active_at).toBe('2025-04-04T04:04:04.000Z');
        expect((await retrieve(c.id)).body.data.active_at).toBe('2025-04-04T04:04:04.000Z');
      });

      it('is not set by a status other than active', async () => {
        const c = await createCustomer({ partner_id: alice.id });
        for (const status of ['trialing', 'canceled', 'lead']) {
          expect((await put(c.id, { status })).body.data[0].active_at).toBeNull();
        }
      });

      it('stays as created for a customer created active', async () => {
        const c = await createCustomer({ partner_id: alice.id, status: 'active', created_at: '2024-01-01T00:00:00.000Z' });
        const res = await put(c.id, { status: 'active' });
        expect(res.body.data[0].active_at).toBe('2024-01-01T00:00:00.000Z');
      });
    });

    describe('promotion code rule on update', () => {
      interface Case {
        name: string;
        owner: () => Record<string, unknown>;
        referrer: () => ApiObject;
        applied: boolean;
      }
      const cases: Case[] = [
        { name: "the partner's own code", owner: () => ({ partner_id: alice.id }), referrer: () => alice, applied: true },
        { name: "the partner's group's code", owner: () => ({ group_id: vip.id }), referrer: () => vipPartner, applied: true },
        { name: 'a program-wide code', owner: () => ({}), referrer: () => alice, applied: true },
        { name: "another partner's code", owner: () => ({ partner_id: bob.id }), referrer: () => alice, applied: false },
        { name: "another group's code", owner: () => ({ group_id: vip.id }), referrer: () => alice, applied: false },
        {
          name: "the partner's own inactive code",
          owner: () => ({ partner_id: alice.id, active: false }),
          referrer: () => alice,
          applied: false,
        },
      ];

      it.each(cases)('$name → applied: $applied (attribution otherwise unchanged)', async ({ owner, referrer, applied }) => {
        const partner = referrer();
        const earlier = await createCode({ partner_id: partner.id });
        const c = await createCustomer({ partner_id: partner.id, promotion_code: earlier.code });
        expect(c.promotion_code_id).toBe(earlier.id);
        const code = await createCode(owner());

        const res = await put(c.id, { promotion_code: code.code, name: 'after code' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const updated = res.body.data[0];
        expect(updated.partner_id).toBe(partner.id);
        expect(updated.name).toBe('after code');
        if (applied) {
          expect(updated.promotion_code_id).toBe(code.id);
          expect(res.body).not.toHaveProperty('warnings');
        } else {
          expect(updated.promotion_code_id).toBe(earlier.id);
          expect(res.body.warnings).toEqual([{ code: 'promotion_code_not_applied', message: expect.any(String) }]);
        }
        const row = await rowOf(c.id);
        expect(row).toMatchObject({ partner_id: partner.id, promotion_code_id: applied ? code.id : earlier.id, name: 'after code' });
      });

      it('warns for an unknown code and leaves promotion_code_id null', async () => {
        const c = await createCustomer({ partner_id: alice.id });
        const res = await put(c.id, { promotion_code: uniqueCode('UNKNOWN') });
        expect(res.status).toBe(200);
        expect(res.body.warnings).toEqual([{ code: 'promotion_code_not_applied', message: expect.any(String) }]);
        expect(res.body.data[0]).toMatchObject({ partner_id: alice.id, promotion_code_id: null });
        expect((await rowOf(c.id)).promotion_code_id).toBeNull();
      });

      it('warns for a code that was deleted', async () => {
        const code = await createCode({ partner_id: alice.id });
        expect((await t.request.delete(`/v1/promotion-codes/${code.id}`).set(org.auth)).status).toBe(200);
        const c = await createCustomer({ partner_id: alice.id });
        const res = await put(c.id, { promotion_code: code.code });
        expect(res.body.warnings?.[0]?.code).toBe('promotion_code_not_applied');
        expect((await rowOf(c.id)).promotion_code_id).toBeNull();
      });

      it("never moves the customer to the code's partner", async () => {
        const c = await createCustomer({ partner_id: alice.id });
        const bobs = await createCode({ partner_id: bob.id });
        await put(c.id, { promotion_code: bobs.code });
        expect((await retrieve(c.id)).body.data).toMatchObject({ partner_id: alice.id, promotion_code_id: null });
      });
    });
  });

  describe('DELETE /v1/customers/:id', () => {
    it('soft-deletes: 404 afterwards, hidden from the list, row kept with deleted_at, identifier and customer_id reusable', async () => {
      const c = await createCustomer({ partner_id: alice.id, customer_id: `ext-${uniqueSuffix()}` });
      const res = await del(c.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: c.id, deleted: true } });

      expectError(await retrieve(c.id), 404, 'not_found_error');
      expectError(await put(c.id, { name: 'x' }), 404, 'not_found_error');
      expectError(await del(c.id), 404, 'not_found_error');
      const listed = await list(`program_id=${org.program_id}&partner_id=${alice.id}&limit=100`);
      expect(ids(listed.body.data.data)).not.toContain(c.id);

      const row = await rowOf(c.id);
      expect(row.deleted_at).toBeInstanceOf(Date);
      expect(row.identifier).toBe(c.identifier);

      const again = await t.request
        .post('/v1/customers')
        .set(org.auth)
        .send({ email: c.email.toUpperCase(), customer_id: c.customer_id, partner_id: bob.id });
      expect(again.status).toBe(201);
      expect(again.body.data[0].id).not.toBe(c.id);
      expect(again.body.data[0].partner_id).toBe(bob.id);
    });

    it('answers 404 for an unknown id', async () => {
      expectError(await del('cust_doesnotexist'), 404, 'not_found_error');
    });
  });

  describe('tenant isolation', () => {
    it('answers 404 to another organization for retrieve, update and delete, leaving the customer as it was', async () => {
      const c = await createCustomer({ partner_id: alice.id, name: 'Mine' });
      expectError(await retrieve(c.id, '', otherOrg), 404, 'not_found_error');
      expectError(await put(c.id, { name: 'Theirs' }, otherOrg), 404, 'not_found_error');
      expectError(await del(c.id, otherOrg), 404, 'not_found_error');
      expect((await retrieve(c.id)).body.data).toEqual(withoutIdentifier(c));
      expect((await rowOf(c.id)).deleted_at).toBeNull();
    });

    it("does not list another organization's customers and cannot use its click on update", async () => {
      const mine = await createCustomer({ partner_id: alice.id });
      const foreignPartner = await createPartner(t, otherOrg);
      const theirs = await createCustomer({ partner_id: foreignPartner.id }, otherOrg);
      const res = await list(`program_id=${otherOrg.program_id}&limit=100`, otherOrg);
      expect(ids(res.body.data.data)).toEqual([theirs.id]);
      expect(ids(res.body.data.data)).not.toContain(mine.id);

      const click = await newClick(alice);
      expectError(await put(theirs.id, { click_id: click.id }, otherOrg), 404, 'not_found_error', 'click_id');
    });

    it("does not apply another organization's promotion code on update", async () => {
      const code = await createCode({});
      const foreignPartner = await createPartner(t, otherOrg);
      const theirs = await createCustomer({ partner_id: foreignPartner.id }, otherOrg);
      const res = await put(theirs.id, { promotion_code: code.code }, otherOrg);
      expect(res.status).toBe(200);
      expect(res.body.warnings?.[0]?.code).toBe('promotion_code_not_applied');
      expect((await rowOf(theirs.id)).promotion_code_id).toBeNull();
    });
  });
});
