import { sql } from 'kysely';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import {
  type ApiObject,
  createLink,
  createPartner,
  createProgram,
  partnerStats,
  quietProgram,
  type TestOrg,
  uniqueEmail,
  uniqueSuffix,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import { setCookies } from '../support/set-cookies.js';

/**
 * POST /v1/track/signup, behind window.svc.signup(identifier): the visitor's click becomes a lead
 * of the click's partner (script/README.md#the-endpoints-it-calls); signup flows pay on it;
 * same-site mode rewrites the cookies with the customer and the click's remaining lifetime.
 */

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const RESULT_FIELDS = ['click_id', 'customer_id', 'customer_identifier', 'partner_id', 'program_id', 'message'];
const CONFLICT = { success: false, error: { message: 'Customer already exists', type: 'conflict_error' } };

describe('POST /v1/track/signup', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(t, org, { first_name: 'Signup' });
  });

  /** POSTs the body as the script does: JSON text as text/plain. */
  const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.request.post(path).set('Content-Type', 'text/plain').set('User-Agent', UA).set(headers).send(JSON.stringify(body));
  const signup = (body: Record<string, unknown>, headers: Record<string, string> = {}) => post('/v1/track/signup', body, headers);

  /** A click of the partner through the script's endpoint, on a fresh link; returns its svc_data. */
  async function scriptClick(p: ApiObject = partner, key: string = org.public_key, who: TestOrg = org): Promise<ApiObject> {
    const link = await createLink(t, who, p);
    const res = await post('/v1/track/click', { key, param: link.param, value: link.value });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  const customersWithIdentifier = (identifier: string) =>
    t.storage.db
      .selectFrom('customers')
      .selectAll()
      .where(sql`lower(identifier)`, '=', identifier.toLowerCase())
      .where('deleted_at', 'is', null)
      .execute();

  /** A 201 signup answer with exactly the documented fields. */
  function expectSignedUp(res: Response, click: ApiObject, identifier: string, maxAge = 30 * 86_400): ApiObject {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(Object.keys(res.body).sort()).toEqual(['cookie', 'data', 'max_age', 'success']);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual([...RESULT_FIELDS].sort());
    expect(res.body.data).toEqual({
      click_id: click.click_id,
      customer_id: expect.stringMatching(/^cust_[0-9A-Za-z]{24}$/),
      customer_identifier: identifier,
      partner_id: click.partner_id,
      program_id: click.program_id,
      message: 'Customer created',
    });
    expect(Number.isInteger(res.body.max_age)).toBe(true);
    expect(res.body.max_age).toBeLessThanOrEqual(maxAge);
    expect(res.body.max_age).toBeGreaterThanOrEqual(maxAge - 10);
    return res.body.data;
  }

  describe('a new lead', () => {
    it('answers 201 {click_id, customer_id, customer_identifier, partner_id, program_id, message}, max_age and cookie:false', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('signup');
      const res = await signup({ key: org.public_key, click_id: click.click_id, identifier: email });
      expectSignedUp(res, click, email);
      expect(res.body.cookie).toBe(false);
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it("creates a lead of the click's partner with click_id, and email set to an e-mail identifier", async () => {
      const p = await createPartner(t, org);
      const click = await scriptClick(p);
      const email = uniqueEmail('lead');
      const data = expectSignedUp(await signup({ key: org.public_key, click_id: click.click_id, identifier: email }), click, email);

      const res = await t.request.get(`/v1/customers/${data.customer_id}`).set(org.auth);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({
        id: data.customer_id,
        status: 'lead',
        email,
        partner_id: p.id,
        program_id: org.program_id,
        organization_id: org.organization_id,
        click_id: click.click_id,
        customer_id: null,
      });
      const [row] = await customersWithIdentifier(email);
      expect(row).toMatchObject({ id: data.customer_id, identifier: email, email, status: 'lead' });
      // A lead is not yet a customer in the partner's stats (total_customers counts non-leads).
      expect(await partnerStats(t, org, p.id)).toMatchObject({ total_clicks: 1, total_customers: 0 });
    });

    it('keeps a user-id identifier without setting email', async () => {
      const click = await scriptClick();
      const identifier = `user_${uniqueSuffix()}`;
      const data = expectSignedUp(await signup({ key: org.public_key, click_id: click.click_id, identifier }), click, identifier);
      const res = await t.request.get(`/v1/customers/${data.customer_id}`).set(org.auth);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: data.customer_id,
        email: null,
        status: 'lead',
        partner_id: partner.id,
        click_id: click.click_id,
      });
      expect((await customersWithIdentifier(identifier))[0]).toMatchObject({ identifier, email: null });
    });

    it('trims the identifier', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('trim');
      expectSignedUp(await signup({ key: org.public_key, click_id: click.click_id, identifier: `  ${email}\n` }), click, email);
    });

    it('accepts application/json too', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('json');
      const res = await t.request.post('/v1/track/signup').send({ key: org.public_key, click_id: click.click_id, identifier: email });
      expectSignedUp(res, click, email);
    });

    it("attributes to the click's partner in the key's other program", async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const click = await scriptClick(elsewhere, program.public_key);
      const email = uniqueEmail('other-program');
      const data = expectSignedUp(await signup({ key: program.public_key, click_id: click.click_id, identifier: email }), click, email);
      expect(data).toMatchObject({ partner_id: elsewhere.id, program_id: program.id });
    });
  });

  describe('refusals', () => {
    it('answers 409 with exactly {success:false, error:{message, type}} (no data) for a taken identifier in another case', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('twice');
      const first = expectSignedUp(await signup({ key: org.public_key, click_id: click.click_id, identifier: email }), click, email);
      for (const again of [email, email.toUpperCase()]) {
        const res = await signup({ key: org.public_key, click_id: click.click_id, identifier: again });
        expect(res.status, JSON.stringify(res.body)).toBe(409);
        expect(res.body).toEqual(CONFLICT);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      expect((await customersWithIdentifier(email)).map((c) => c.id)).toEqual([first.customer_id]);
    });

    it('answers 409 without data when a customer created through the API holds the identifier', async () => {
      const email = uniqueEmail('api-first');
      const created = await t.request.post('/v1/customers').set(org.auth).send({ email, partner_id: partner.id });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const click = await scriptClick();
      const res = await signup({ key: org.public_key, click_id: click.click_id, identifier: email.toUpperCase() });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(CONFLICT);
      expect(JSON.stringify(res.body)).not.toContain(created.body.data[0].id);
    });

    it('answers 404 for an unknown click, creating nothing', async () => {
      const email = uniqueEmail('unknown-click');
      const res = await signup({ key: org.public_key, click_id: 'clk_doesnotexist', identifier: email });
      expectError(res, 404, 'not_found_error', 'click_id');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(await customersWithIdentifier(email)).toHaveLength(0);
    });

    it("answers 404 for a click of another program of the organization, and of another organization's program", async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const otherProgramClick = await scriptClick(elsewhere, program.public_key);
      const foreignPartner = await createPartner(t, otherOrg);
      const foreignClick = await scriptClick(foreignPartner, otherOrg.public_key, otherOrg);
      const email = uniqueEmail('wrong-program');
      for (const click of [otherProgramClick, foreignClick]) {
        expectError(await signup({ key: org.public_key, click_id: click.click_id, identifier: email }), 404, 'not_found_error', 'click_id');
      }
      expect(await customersWithIdentifier(email)).toHaveLength(0);
    });

    it('answers 400 for an empty, blank or too long identifier, and a missing one', async () => {
      const click = await scriptClick();
      for (const identifier of ['', '   ', 'x'.repeat(256)]) {
        expectError(
          await signup({ key: org.public_key, click_id: click.click_id, identifier }),
          400,
          'invalid_request_error',
          'identifier',
        );
      }
      expectError(await signup({ key: org.public_key, click_id: click.click_id }), 400, 'invalid_request_error', 'identifier');
      const longest = `user_${'x'.repeat(250)}`;
      expect(longest).toHaveLength(255);
      expectSignedUp(await signup({ key: org.public_key, click_id: click.click_id, identifier: longest }), click, longest);
    });

    it('answers 400 for malformed JSON, unknown keys and a missing click_id', async () => {
      const click = await scriptClick();
      const malformed = await t.request.post('/v1/track/signup').set('Content-Type', 'text/plain').send('{"key":');
      expectError(malformed, 400, 'invalid_request_error');
      expect(malformed.body.error.message).toMatch(/malformed json/i);
      const unknown = await signup({ key: org.public_key, click_id: click.click_id, identifier: uniqueEmail(), partner_id: partner.id });
      expectError(unknown, 400, 'invalid_request_error', 'partner_id');
      expectError(await signup({ key: org.public_key, identifier: uniqueEmail() }), 400, 'invalid_request_error', 'click_id');
    });

    it('answers 401 authentication_error "Invalid public key provided" for an unknown key, and for the key of another program', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('bad-key');
      const res = await signup({ key: 'pk_doesNotExist123', click_id: click.click_id, identifier: email });
      expectError(res, 401, 'authentication_error');
      expect(res.body.error.message).toBe('Invalid public key provided');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      // another organization's (valid) key does not reach this click
      expectError(
        await signup({ key: otherOrg.public_key, click_id: click.click_id, identifier: email }),
        404,
        'not_found_error',
        'click_id',
      );
      expect(await customersWithIdentifier(email)).toHaveLength(0);
    });
  });

  describe('signup flows', () => {
    it('a signup flow with a fixed reward creates its commission on a track signup; payment flows do not', async () => {
      const program = await quietProgram(t, org);
      const flow = await t.request
        .post('/v1/flows')
        .set(org.auth)
        .send({
          program_id: program.id,
          name: 'Signup bonus',
          trigger: 'signup',
          reward: { type: 'fixed', value: 500 },
          approval: { type: 'immediate' },
        });
      expect(flow.status, JSON.stringify(flow.body)).toBe(201);
      const payFlow = await t.request
        .post('/v1/flows')
        .set(org.auth)
        .send({
          program_id: program.id,
          name: 'Payments',
          trigger: 'payment',
          reward: { type: 'percentage', value: 10 },
          approval: { type: 'immediate' },
        });
      expect(payFlow.status, JSON.stringify(payFlow.body)).toBe(201);

      const p = await createPartner(t, org, { program_id: program.id });
      const click = await scriptClick(p, program.public_key);
      const email = uniqueEmail('flow');
      const data = expectSignedUp(await signup({ key: program.public_key, click_id: click.click_id, identifier: email }), click, email);

      const list = await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, customer_id: data.customer_id });
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ amount: 500, customer_id: data.customer_id, transaction_id: null, program_id: program.id });
      const stats = await partnerStats(t, org, p.id);
      expect(stats).toMatchObject({ total_clicks: 1, total_customers: 0, total_revenue: 0, total_commission: 500 });

      // A refused (duplicate) signup pays nothing more.
      expect((await signup({ key: program.public_key, click_id: click.click_id, identifier: email.toUpperCase() })).status).toBe(409);
      const after = await t.request.get('/v1/commissions').set(org.auth).query({ program_id: program.id, partner_id: p.id });
      expect(after.body.data).toHaveLength(1);
    });
  });

  describe('same-site mode', () => {
    const sameOrigin = { 'Sec-Fetch-Site': 'same-origin', Origin: 'https://www.shop.test' };

    it("sets svc_data with the customer_id, and svc_ref, for the click's remaining max_age", async () => {
      const p = await createPartner(t, org);
      const click = await scriptClick(p);
      await sql`update clicks set created_at = now() - interval '5 days' where id = ${click.click_id}`.execute(t.storage.db);
      const email = uniqueEmail('same-site');
      const res = await signup(
        { key: org.public_key, click_id: click.click_id, identifier: email, cookie_domain: 'shop.test' },
        sameOrigin,
      );
      const data = expectSignedUp(res, click, email, 25 * 86_400);
      expect(res.body.cookie).toBe(true);

      const cookies = setCookies(res);
      expect(Object.keys(cookies).sort()).toEqual(['svc_data', 'svc_ref']);
      expect(JSON.parse(decodeURIComponent(cookies.svc_data.value))).toEqual({
        click_id: click.click_id,
        cookie_duration: 30,
        partner_id: p.id,
        program_id: org.program_id,
        customer_id: data.customer_id,
      });
      expect(decodeURIComponent(cookies.svc_ref.value)).toBe(click.click_id);
      for (const c of Object.values(cookies)) {
        expect(c.attrs).toMatchObject({
          domain: 'shop.test',
          path: '/',
          secure: true,
          samesite: 'Lax',
          'max-age': String(res.body.max_age),
        });
      }
    });

    it('sets no cookie without Sec-Fetch-Site: same-origin, nor on a 409', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('cross-site');
      const res = await signup(
        { key: org.public_key, click_id: click.click_id, identifier: email, cookie_domain: 'shop.test' },
        { Origin: 'https://www.shop.test', 'Sec-Fetch-Site': 'cross-site' },
      );
      expectSignedUp(res, click, email);
      expect(res.body.cookie).toBe(false);
      expect(res.headers['set-cookie']).toBeUndefined();

      const dup = await signup(
        { key: org.public_key, click_id: click.click_id, identifier: email, cookie_domain: 'shop.test' },
        sameOrigin,
      );
      expect(dup.status).toBe(409);
      expect(dup.headers['set-cookie']).toBeUndefined();
    });

    it('leaves out Domain when cookie_domain is not a parent of the Origin host', async () => {
      const click = await scriptClick();
      const email = uniqueEmail('evil');
      const res = await signup(
        { key: org.public_key, click_id: click.click_id, identifier: email, cookie_domain: 'evil.test' },
        sameOrigin,
      );
      expectSignedUp(res, click, email);
      expect(res.body.cookie).toBe(true);
      for (const c of Object.values(setCookies(res))) expect(c.attrs.domain).toBeUndefined();
    });
  });
});
