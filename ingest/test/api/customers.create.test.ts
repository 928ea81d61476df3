import { sql } from 'kysely';
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
import { CUSTOMER_WRITE_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { warmPool } from '../support/harness.js';
import { ISO_MS } from '../support/time.js';

/**
 * POST /v1/customers: attribution, the promotion code rule, uniqueness and timestamps
 * (ingest/docs/commissions.md#who-a-customer-belongs-to).
 */

const WRITE_FIELDS = [...CUSTOMER_WRITE_FIELDS].sort();

describe('POST /v1/customers', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  /** Two partners of the default group and one of the group `vip`. */
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

  const { post, get: retrieve } = resource(t, '/v1/customers', org);

  async function createCustomer(body: Record<string, unknown>, who: TestOrg = org): Promise<ApiObject> {
    const res = await post({ email: uniqueEmail('cust'), ...body }, who);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data[0];
  }

  const customerRows = (where: { email?: string; programId?: string }) => {
    let q = t.storage.db.selectFrom('customers').selectAll();
    if (where.email) q = q.where(sql`lower(email)`, '=', where.email.toLowerCase());
    if (where.programId) q = q.where('program_id', '=', where.programId);
    return q.execute();
  };

  describe('creating', () => {
    it('creates a lead from partner_id and email, with identifier = email and the documented defaults', async () => {
      const email = uniqueEmail('lead');
      const before = Date.now();
      const res = await post({ email, partner_id: alice.id });
      const after = Date.now();

      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body).not.toHaveProperty('warnings');
      expect(res.body.data).toHaveLength(1);
      const c = res.body.data[0];
      expect(Object.keys(c).sort()).toEqual(WRITE_FIELDS);
      expect(c).toMatchObject({
        identifier: email,
        email,
        name: null,
        customer_id: null,
        subscription_id: null,
        status: 'lead',
        plan: null,
        active_at: null,
        click_id: null,
        partner_id: alice.id,
        program_id: org.program_id,
        organization_id: org.organization_id,
        promotion_code_id: null,
      });
      expect(c.id).toMatch(/^cust_[0-9A-Za-z]{24}$/);
      for (const k of ['created_at', 'updated_at', 'lead_at']) expect(c[k]).toMatch(ISO_MS);
      expect(Date.parse(c.created_at)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(c.created_at)).toBeLessThanOrEqual(after + 5);
      expect(c.lead_at).toBe(c.created_at);

      const got = await retrieve(c.id);
      expect(got.status).toBe(200);
      const { identifier, ...withoutIdentifier } = c;
      expect(identifier).toBe(email);
      expect(got.body.data).toEqual(withoutIdentifier);
      const [row] = await customerRows({ email });
      expect(row).toMatchObject({ id: c.id, identifier: email, deleted_at: null });
    });

    it('stores every field of the create body', async () => {
      const email = uniqueEmail('every');
      const body = {
        email,
        partner_id: alice.id,
        name: 'Casey Customer',
        subscription_id: 'sub_123',
        customer_id: `ext-${uniqueSuffix()}`,
        status: 'trialing',
        plan: 'pro',
        created_at: '2025-03-01T10:00:00.000Z',
        lead_at: '2025-03-02T10:00:00.000Z',
        active_at: '2025-03-05T10:00:00.000Z',
      };
      const c = await createCustomer(body);
      expect(c).toMatchObject({ ...body, identifier: email });
      const { identifier: _, ...read } = c;
      expect((await retrieve(c.id)).body.data).toEqual(read);
    });

    it('identifies a customer without e-mail by its customer_id', async () => {
      const ext = `ext-${uniqueSuffix()}`;
      const res = await post({ customer_id: ext, partner_id: alice.id });
      expect(res.status).toBe(201);
      expect(res.body.data[0]).toMatchObject({ identifier: ext, customer_id: ext, email: null });
    });

    it('answers 400 without email, customer_id or identifier', async () => {
      const res = await post({ partner_id: alice.id, name: 'Nobody' });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect((await customerRows({ programId: org.program_id })).some((r) => r.name === 'Nobody')).toBe(false);
    });

    it.each([
      ['an invalid e-mail', { email: 'not-an-email' }, 'email'],
      ['an unknown status', { status: 'churned' }, 'status'],
      ['a malformed timestamp', { lead_at: 'yesterday' }, 'lead_at'],
      ['an unknown key', { coupon: 'x' }, 'coupon'],
      ['a malformed promotion code', { promotion_code: 'has spaces' }, 'promotion_code'],
    ])('answers 400 for %s', async (_name, overrides, param) => {
      const email = uniqueEmail('bad');
      expectError(await post({ email, partner_id: alice.id, ...overrides }), 400, 'invalid_request_error', param);
      expect(await customerRows({ email })).toHaveLength(0);
    });

    it('answers 401 without a valid key', async () => {
      const email = uniqueEmail('noauth');
      const res = await t.request.post('/v1/customers').set({ Authorization: 'Bearer sk_invalid' }).send({ email, partner_id: alice.id });
      expectError(res, 401, 'authentication_error');
      expect(await customerRows({ email })).toHaveLength(0);
    });
  });

  describe('attribution', () => {
    it('attributes to the partner of click_id alone and records the click', async () => {
      const click = await newClick(bob);
      const c = await createCustomer({ click_id: click.id });
      expect(c).toMatchObject({ partner_id: bob.id, click_id: click.id, program_id: org.program_id });
      expect((await retrieve(c.id)).body.data).toMatchObject({ partner_id: bob.id, click_id: click.id });
    });

    it('accepts partner_id with a click of that partner', async () => {
      const click = await newClick(alice);
      const c = await createCustomer({ partner_id: alice.id, click_id: click.id });
      expect(c).toMatchObject({ partner_id: alice.id, click_id: click.id });
    });

    it('answers 400 for a click of another partner than partner_id, creating nothing', async () => {
      const click = await newClick(bob);
      const email = uniqueEmail('mismatch');
      expectError(await post({ email, partner_id: alice.id, click_id: click.id }), 400, 'invalid_request_error', 'click_id');
      expect(await customerRows({ email })).toHaveLength(0);
    });

    it('answers 400 with nothing to attribute the customer by', async () => {
      const email = uniqueEmail('orphan');
      expectError(await post({ email }), 400, 'invalid_request_error', 'partner_id');
      expect(await customerRows({ email })).toHaveLength(0);
    });

    it('answers 404 for an unknown partner_id or click_id', async () => {
      expectError(await post({ email: uniqueEmail(), partner_id: 'part_nope' }), 404, 'not_found_error', 'partner_id');
      expectError(await post({ email: uniqueEmail(), click_id: 'clk_nope' }), 404, 'not_found_error', 'click_id');
    });

    it("attributes by a partner's own active promotion code alone, applying it", async () => {
      const code = await createCode({ partner_id: bob.id });
      const res = await post({ email: uniqueEmail(), promotion_code: code.code });
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('warnings');
      expect(res.body.data[0]).toMatchObject({ partner_id: bob.id, promotion_code_id: code.id, click_id: null });
      expect((await retrieve(res.body.data[0].id)).body.data).toMatchObject({ partner_id: bob.id, promotion_code_id: code.id });
    });

    it('matches the attributing promotion code case-insensitively', async () => {
      const code = await createCode({ partner_id: bob.id, code: uniqueCode('Bob') });
      const c = await createCustomer({ promotion_code: code.code.toLowerCase() });
      expect(c).toMatchObject({ partner_id: bob.id, promotion_code_id: code.id });
    });

    it.each([
      ['a group code', async (mk: (o: Record<string, unknown>) => Promise<ApiObject>) => (await mk({ group_id: vip.id })).code],
      ['a program-wide code', async (mk: (o: Record<string, unknown>) => Promise<ApiObject>) => (await mk({})).code],
      [
        'an inactive partner code',
        async (mk: (o: Record<string, unknown>) => Promise<ApiObject>) => (await mk({ partner_id: bob.id, active: false })).code,
      ],
      ['an unknown code', async () => uniqueCode('NOPE')],
    ])('answers 400 when %s is the only attribution, creating nothing', async (_name, makeCode) => {
      const code = await makeCode((o) => createCode(o));
      const email = uniqueEmail('by-code');
      expectError(await post({ email, promotion_code: code }), 400, 'invalid_request_error', 'promotion_code');
      expect(await customerRows({ email })).toHaveLength(0);
    });

    it('answers 400 for a code of a deleted partner-owned promotion code used alone', async () => {
      const code = await createCode({ partner_id: bob.id });
      expect((await t.request.delete(`/v1/promotion-codes/${code.id}`).set(org.auth)).status).toBe(200);
      const email = uniqueEmail();
      expectError(await post({ email, promotion_code: code.code }), 400, 'invalid_request_error', 'promotion_code');
      expect(await customerRows({ email })).toHaveLength(0);
    });

    it('asks for program_id when the attributing code exists in two programs, and uses it when given', async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const here = await createCode({ partner_id: alice.id });
      const there = await createCode({ program_id: program.id, partner_id: elsewhere.id, code: here.code });

      expectError(await post({ email: uniqueEmail(), promotion_code: here.code }), 400, 'invalid_request_error', 'program_id');
      const c = await createCustomer({ promotion_code: here.code, program_id: program.id });
      expect(c).toMatchObject({ partner_id: elsewhere.id, program_id: program.id, promotion_code_id: there.id });
    });

    it('answers 400 when program_id is not the program of partner_id', async () => {
      const program = await createProgram(t, org);
      const email = uniqueEmail();
      expectError(await post({ email, partner_id: alice.id, program_id: program.id }), 400, 'invalid_request_error', 'program_id');
      expect(await customerRows({ email })).toHaveLength(0);
    });
  });

  describe('promotion code rule', () => {
    interface Case {
      name: string;
      owner: () => Record<string, unknown>;
      referrer: () => ApiObject;
      applied: boolean;
    }
    const cases: Case[] = [
      { name: "the partner's own code", owner: () => ({ partner_id: alice.id }), referrer: () => alice, applied: true },
      { name: "the partner's group's code", owner: () => ({ group_id: vip.id }), referrer: () => vipPartner, applied: true },
      { name: "the partner's (default) group's code", owner: () => ({ group_id: org.group_id }), referrer: () => alice, applied: true },
      { name: 'a program-wide code', owner: () => ({}), referrer: () => alice, applied: true },
      { name: "another partner's code", owner: () => ({ partner_id: bob.id }), referrer: () => alice, applied: false },
      { name: "another group's code", owner: () => ({ group_id: vip.id }), referrer: () => alice, applied: false },
      {
        name: "the partner's own inactive code",
        owner: () => ({ partner_id: alice.id, active: false }),
        referrer: () => alice,
        applied: false,
      },
      { name: 'an inactive program-wide code', owner: () => ({ active: false }), referrer: () => alice, applied: false },
    ];

    it.each(cases)('on create with partner_id, $name → applied: $applied', async ({ owner, referrer, applied }) => {
      const code = await createCode(owner());
      const partner = referrer();
      const res = await post({ email: uniqueEmail(), partner_id: partner.id, promotion_code: code.code });

      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const c = res.body.data[0];
      expect(c.partner_id).toBe(partner.id);
      if (applied) {
        expect(c.promotion_code_id).toBe(code.id);
        expect(res.body).not.toHaveProperty('warnings');
      } else {
        expect(c.promotion_code_id).toBeNull();
        expect(res.body.warnings).toEqual([{ code: 'promotion_code_not_applied', message: expect.any(String) }]);
        expect(res.body.warnings[0].message).toContain(code.code);
      }
      const read = (await retrieve(c.id)).body.data;
      expect(read).toMatchObject({ partner_id: partner.id, promotion_code_id: applied ? code.id : null });
    });

    it('warns for an unknown code and still creates the customer', async () => {
      const res = await post({ email: uniqueEmail(), partner_id: alice.id, promotion_code: uniqueCode('UNKNOWN') });
      expect(res.status).toBe(201);
      expect(res.body.warnings).toEqual([{ code: 'promotion_code_not_applied', message: expect.any(String) }]);
      expect(res.body.data[0].promotion_code_id).toBeNull();
      expect((await retrieve(res.body.data[0].id)).status).toBe(200);
    });

    it('warns for a program-wide code of another program of the organization', async () => {
      const program = await createProgram(t, org);
      const code = await createCode({ program_id: program.id });
      const res = await post({ email: uniqueEmail(), partner_id: alice.id, promotion_code: code.code });
      expect(res.status).toBe(201);
      expect(res.body.warnings?.[0]?.code).toBe('promotion_code_not_applied');
      expect(res.body.data[0].promotion_code_id).toBeNull();
    });

    it("applies the click partner's code and warns for another partner's code when attributing by click_id", async () => {
      const click = await newClick(bob);
      const own = await createCode({ partner_id: bob.id });
      const foreign = await createCode({ partner_id: alice.id });

      const ok = await post({ email: uniqueEmail(), click_id: click.id, promotion_code: own.code });
      expect(ok.status).toBe(201);
      expect(ok.body).not.toHaveProperty('warnings');
      expect(ok.body.data[0]).toMatchObject({ partner_id: bob.id, promotion_code_id: own.id });

      const warned = await post({ email: uniqueEmail(), click_id: click.id, promotion_code: foreign.code });
      expect(warned.status).toBe(201);
      expect(warned.body.warnings).toEqual([{ code: 'promotion_code_not_applied', message: expect.any(String) }]);
      expect(warned.body.data[0]).toMatchObject({ partner_id: bob.id, promotion_code_id: null });
    });

    it('matches the code case-insensitively', async () => {
      const code = await createCode({ partner_id: alice.id, code: uniqueCode('MiXeD') });
      const res = await post({ email: uniqueEmail(), partner_id: alice.id, promotion_code: code.code.toUpperCase() });
      expect(res.status).toBe(201);
      expect(res.body.data[0].promotion_code_id).toBe(code.id);
    });
  });

  describe('uniqueness', () => {
    it('answers 409 with the existing customer (incl. identifier) for a taken e-mail, in any case', async () => {
      const existing = await createCustomer({ email: `Mixed.${uniqueSuffix()}@Example.com`, partner_id: alice.id, name: 'First' });
      for (const email of [existing.email, existing.email.toLowerCase(), existing.email.toUpperCase()]) {
        const res = await post({ email, partner_id: bob.id, name: 'Second' });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ success: false, error: { message: 'Customer already exists', type: 'conflict_error' }, data: existing });
        expect(res.body.data.identifier).toBe(existing.email);
      }
      const rows = await customerRows({ email: existing.email });
      expect(rows.map((r) => r.id)).toEqual([existing.id]);
    });

    it('answers 409 for a taken integrator customer_id, even with another e-mail', async () => {
      const ext = `ext-${uniqueSuffix()}`;
      const existing = await createCustomer({ partner_id: alice.id, customer_id: ext });
      const email = uniqueEmail('other');
      const res = await post({ email, partner_id: alice.id, customer_id: ext });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, error: { message: 'Customer already exists', type: 'conflict_error' }, data: existing });
      expect(await customerRows({ email })).toHaveLength(0);
    });

    it('answers 409 for a taken explicit identifier', async () => {
      const identifier = `user-${uniqueSuffix()}`;
      const existing = await createCustomer({ partner_id: alice.id, identifier });
      expect(existing.identifier).toBe(identifier);
      const res = await post({ email: uniqueEmail(), partner_id: alice.id, identifier: identifier.toUpperCase() });
      expect(res.status).toBe(409);
      expect(res.body.data).toEqual(existing);
    });

    it('allows the same e-mail and customer_id in another program and in another organization', async () => {
      const existing = await createCustomer({ partner_id: alice.id, customer_id: `ext-${uniqueSuffix()}` });
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const res = await post({ email: existing.email, customer_id: existing.customer_id, partner_id: elsewhere.id });
      expect(res.status).toBe(201);
      expect(res.body.data[0]).toMatchObject({ email: existing.email, program_id: program.id });
      expect(res.body.data[0].id).not.toBe(existing.id);

      const foreignPartner = await createPartner(t, otherOrg);
      const foreign = await post({ email: existing.email, customer_id: existing.customer_id, partner_id: foreignPartner.id }, otherOrg);
      expect(foreign.status).toBe(201);
      expect(foreign.body.data[0].organization_id).toBe(otherOrg.organization_id);
      expect(await customerRows({ email: existing.email })).toHaveLength(3);
    });

    it('lets exactly one of five simultaneous creates with one e-mail win; the others get 409 with the winner', async () => {
      const program = await createProgram(t, org);
      const partner = await createPartner(t, org, { program_id: program.id });
      const email = uniqueEmail('race');
      await warmPool(t);
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          post({ email: i % 2 ? email.toUpperCase() : email, partner_id: partner.id, name: `Racer ${i}` }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      const winner = responses.find((r) => r.status === 201)!.body.data[0];
      for (const r of responses.filter((r) => r.status === 409)) {
        expect(r.body).toEqual({ success: false, error: { message: 'Customer already exists', type: 'conflict_error' }, data: winner });
      }
      const rows = await customerRows({ programId: program.id });
      expect(rows.map((r) => r.id)).toEqual([winner.id]);
    });

    it('lets exactly one of five simultaneous creates with one customer_id win', async () => {
      const program = await createProgram(t, org);
      const partner = await createPartner(t, org, { program_id: program.id });
      const ext = `ext-${uniqueSuffix()}`;
      await warmPool(t);
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => post({ email: uniqueEmail('race-ext'), customer_id: ext, partner_id: partner.id })),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      const rows = await customerRows({ programId: program.id });
      expect(rows).toHaveLength(1);
      expect(rows[0].customer_id).toBe(ext);
    });
  });

  describe('timestamps', () => {
    it('defaults lead_at to the given created_at', async () => {
      const c = await createCustomer({ partner_id: alice.id, created_at: '2024-06-01T08:30:00.000Z' });
      expect(c).toMatchObject({ created_at: '2024-06-01T08:30:00.000Z', lead_at: '2024-06-01T08:30:00.000Z', active_at: null });
    });

    it('sets active_at to the creation time when created active', async () => {
      const now = await createCustomer({ partner_id: alice.id, status: 'active' });
      expect(now.active_at).toBe(now.created_at);
      const past = await createCustomer({ partner_id: alice.id, status: 'active', created_at: '2024-01-02T03:04:05.678Z' });
      expect(past.active_at).toBe('2024-01-02T03:04:05.678Z');
      expect((await retrieve(past.id)).body.data.active_at).toBe('2024-01-02T03:04:05.678Z');
    });

    it('keeps a given active_at on an active create', async () => {
      const c = await createCustomer({ partner_id: alice.id, status: 'active', active_at: '2024-02-02T00:00:00.000Z' });
      expect(c.active_at).toBe('2024-02-02T00:00:00.000Z');
    });

    it('leaves active_at null for trialing and canceled customers', async () => {
      for (const status of ['trialing', 'canceled', 'lead']) {
        const c = await createCustomer({ partner_id: alice.id, status });
        expect(c.status).toBe(status);
        expect(c.active_at).toBeNull();
      }
    });

    it('accepts timestamps with an offset and answers them in UTC with milliseconds', async () => {
      const c = await createCustomer({ partner_id: alice.id, lead_at: '2024-05-05T12:00:00+02:00' });
      expect(c.lead_at).toBe('2024-05-05T10:00:00.000Z');
    });
  });

  describe('tenant isolation', () => {
    it("cannot use another organization's partner, click or promotion code", async () => {
      const click = await newClick(alice);
      const code = await createCode({ partner_id: alice.id });
      const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
      expectError(await post({ email: emails[0], partner_id: alice.id }, otherOrg), 404, 'not_found_error', 'partner_id');
      expectError(await post({ email: emails[1], click_id: click.id }, otherOrg), 404, 'not_found_error', 'click_id');
      expectError(await post({ email: emails[2], promotion_code: code.code }, otherOrg), 400, 'invalid_request_error', 'promotion_code');
      for (const email of emails) expect(await customerRows({ email })).toHaveLength(0);
    });

    it("does not apply another organization's code to its own partner's customer", async () => {
      const code = await createCode({});
      const foreignPartner = await createPartner(t, otherOrg);
      const res = await post({ email: uniqueEmail(), partner_id: foreignPartner.id, promotion_code: code.code }, otherOrg);
      expect(res.status).toBe(201);
      expect(res.body.data[0].promotion_code_id).toBeNull();
      expect(res.body.warnings?.[0]?.code).toBe('promotion_code_not_applied');
    });
  });
});
