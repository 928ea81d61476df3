import { describe, expect, it } from 'vitest';
import { createGroup, createPartner, createProgram, getPartner, partnerInput, type TestOrg, uniqueEmail } from '../support/factories.js';
import { PARTNER_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { ISO_MS } from '../support/time.js';

describe('POST /v1/partners', () => {
  const {
    t,
    orgs: [org, otherOrg],
  } = useTestApp({ orgs: 2 });

  const { post } = resource(t, '/v1/partners', org);

  /** Live partner rows of the organization, read straight from SQL. */
  const partnerCount = async (who: TestOrg = org) =>
    (await t.storage.db.selectFrom('partners').select('id').where('organization_id', '=', who.organization_id).execute()).length;

  describe('creating', () => {
    it('creates a partner from the required fields alone, with the documented defaults', async () => {
      const email = uniqueEmail();
      const res = await post({ first_name: 'Ada', last_name: 'Lovelace', email, program_id: org.program_id });

      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const partner = res.body.data[0];
      expect(Object.keys(partner).sort()).toEqual([...PARTNER_FIELDS].sort());
      expect(partner).toMatchObject({
        status: 'active',
        first_name: 'Ada',
        last_name: 'Lovelace',
        email,
        company_name: null,
        program_id: org.program_id,
        organization_id: org.organization_id,
        group_id: org.group_id,
        payout_method: 'none',
        payout_details: {},
        country_code: null,
        completed_onboarding: true,
        rejection_note: null,
        internal_note: null,
        suspension_reason: null,
        first_customer_email_active: true,
        new_customer_email_active: true,
        payout_paid_email_active: true,
      });
      expect(partner.payout_details).toEqual({});
      expect(partner.id).toMatch(/^part_[0-9A-Za-z]{24}$/);
      expect(partner.created_at).toMatch(ISO_MS);
      expect(partner.updated_at).toBe(partner.created_at);

      expect(await getPartner(t, org, partner.id)).toEqual(partner);
      const row = await t.storage.db.selectFrom('partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ organization_id: org.organization_id, program_id: org.program_id, email, deleted_at: null });
    });

    it('stores every field of the create body and answers with them', async () => {
      const group = await createGroup(t, org, { name: 'VIP' });
      const email = uniqueEmail('every');
      const body = {
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        program_id: org.program_id,
        group_id: group.id,
        company_name: 'Navy Labs',
        country_code: 'US',
        payout_method: 'paypal',
        payout_details: { email: 'payouts@example.com' },
        send_welcome_email: false,
      };
      const res = await post(body);

      expect(res.status).toBe(201);
      const partner = res.body.data[0];
      expect(Object.keys(partner).sort()).toEqual([...PARTNER_FIELDS].sort());
      expect(partner).toMatchObject({
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        program_id: org.program_id,
        group_id: group.id,
        company_name: 'Navy Labs',
        country_code: 'US',
        payout_method: 'paypal',
        payout_details: { email: 'payouts@example.com' },
        status: 'active',
      });
      expect(partner.payout_details).toEqual({ email: 'payouts@example.com' });
      expect(await getPartner(t, org, partner.id)).toEqual(partner);
    });

    it('also accepts the status, notes, onboarding and e-mail flags on create', async () => {
      const partner = await createPartner(t, org, {
        status: 'pending',
        completed_onboarding: false,
        rejection_note: 'r',
        internal_note: 'met at a conference',
        suspension_reason: 's',
        first_customer_email_active: false,
        new_customer_email_active: false,
        payout_paid_email_active: false,
      });
      expect(partner).toMatchObject({
        status: 'pending',
        completed_onboarding: false,
        rejection_note: 'r',
        internal_note: 'met at a conference',
        suspension_reason: 's',
        first_customer_email_active: false,
        new_customer_email_active: false,
        payout_paid_email_active: false,
      });
      expect(await getPartner(t, org, partner.id)).toEqual(partner);
    });

    it('upper-cases a lower-case country code', async () => {
      const partner = await createPartner(t, org, { country_code: 'de' });
      expect(partner.country_code).toBe('DE');
      expect((await getPartner(t, org, partner.id)).country_code).toBe('DE');
    });

    it.each([
      ['paypal', { email: 'pp@example.com' }],
      ['wise', { email: 'wise@example.com' }],
      ['crypto', { wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum', currency: 'USDC' }],
      [
        'bank_transfer',
        { account_holder_name: 'Pat Partner', iban: 'DE89370400440532013000', swift_bic: 'COBADEFFXXX', country_code: 'DE' },
      ],
      ['wire', { account_number: '123456789', routing_number: '021000021', bank_name: 'Chase', address: '1 Main St' }],
      ['paypal', {}],
    ])('accepts %s payout details that fit the method: %j', async (method, details) => {
      const partner = await createPartner(t, org, { payout_method: method, payout_details: details });
      expect(partner.payout_method).toBe(method);
      expect(partner.payout_details).toEqual(details);
      expect((await getPartner(t, org, partner.id)).payout_details).toEqual(details);
    });

    it('puts the partner in a group the caller names, when it belongs to the program', async () => {
      const program = await createProgram(t, org);
      const group = await createGroup(t, org, { program_id: program.id });
      const partner = await createPartner(t, org, { program_id: program.id, group_id: group.id });
      expect(partner.group_id).toBe(group.id);
      expect(partner.program_id).toBe(program.id);
    });

    it("puts the partner in the default group of the program it joins, not the organization's first program", async () => {
      const program = await createProgram(t, org);
      const partner = await createPartner(t, org, { program_id: program.id });
      expect(partner.group_id).toBe(program.default_group_id);
      expect(partner.group_id).not.toBe(org.group_id);
    });
  });

  describe('refusing', () => {
    it('answers 404 for a group of another program of the same organization, and creates nothing', async () => {
      const program = await createProgram(t, org);
      const before = await partnerCount();
      const res = await post(partnerInput(org, { group_id: program.default_group_id }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: { type: 'not_found_error', message: expect.stringContaining(program.default_group_id), param: 'group_id' },
      });
      expect(await partnerCount()).toBe(before);
    });

    it('answers 404 for a group of another organization', async () => {
      const before = await partnerCount();
      const res = await post(partnerInput(org, { group_id: otherOrg.group_id }));
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', param: 'group_id' });
      expect(await partnerCount()).toBe(before);
    });

    it('answers 404 for a program of another organization, and creates nothing in it', async () => {
      const beforeOther = await partnerCount(otherOrg);
      const res = await post(partnerInput(org, { program_id: otherOrg.program_id }));
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', param: 'program_id' });
      expect(await partnerCount(otherOrg)).toBe(beforeOther);
    });

    it('answers 404 for a program that does not exist', async () => {
      const res = await post(partnerInput(org, { program_id: 'prg_doesnotexist000000000000' }));
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', param: 'program_id' });
    });

    it.each(['first_name', 'last_name', 'email', 'program_id'])('answers 400 naming %s when it is missing', async (field) => {
      const before = await partnerCount();
      const body = partnerInput(org);
      delete body[field];
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { type: 'invalid_request_error', param: field, message: `Invalid ${field}: this parameter is required` },
      });
      expect(await partnerCount()).toBe(before);
    });

    it('answers 400 for an empty body', async () => {
      const res = await post({});
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(['first_name', 'last_name', 'email', 'program_id']).toContain(res.body.error.param);
    });

    it.each([
      ['email', 'not-an-email'],
      ['email', 'partner@'],
      ['email', `${'a'.repeat(250)}@example.com`],
      ['first_name', ''],
      ['first_name', '   '],
      ['last_name', 'x'.repeat(101)],
      ['first_name', 42],
      ['country_code', 'XX'],
      ['country_code', 'USA'],
      ['country_code', 'u'],
      ['payout_method', 'bitcoin'],
      ['payout_method', 'PAYPAL'],
      ['status', 'banned'],
      ['completed_onboarding', 'yes'],
      ['send_welcome_email', 'true'],
      ['payout_details', 'paypal@example.com'],
      ['payout_details', ['a']],
      ['group_id', ''],
    ])('answers 400 naming %s for the invalid value %j', async (field, value) => {
      const before = await partnerCount();
      const res = await post(partnerInput(org, { [field]: value }));
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: field });
      expect(await partnerCount()).toBe(before);
    });

    it.each([
      ['paypal', { email: 'not-an-email' }, 'payout_details.email'],
      ['paypal', { iban: 'DE89370400440532013000' }, 'payout_details.iban'],
      ['wise', { email: 'wise@example.com', note: 'hi' }, 'payout_details.note'],
      ['crypto', { wallet_address: 'short' }, 'payout_details.wallet_address'],
      ['bank_transfer', { iban: 'de89 3704 0044 0532 0130 00' }, 'payout_details.iban'],
      ['wire', { swift_bic: 'nope' }, 'payout_details.swift_bic'],
      ['none', { email: 'pp@example.com' }, 'payout_details.email'],
    ])('answers 400 for %s payout details that do not fit the method: %j', async (method, details, param) => {
      const before = await partnerCount();
      const res = await post(partnerInput(org, { payout_method: method, payout_details: details }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(await partnerCount()).toBe(before);
    });

    it('answers 400 for payout details without a payout method (the method is none)', async () => {
      const res = await post(partnerInput(org, { payout_details: { email: 'pp@example.com' } }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'payout_details.email' });
    });

    it('answers 400 naming an unknown body key', async () => {
      const before = await partnerCount();
      const res = await post(partnerInput(org, { nickname: 'Pat' }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { type: 'invalid_request_error', param: 'nickname', message: 'Unknown body parameter: nickname' },
      });
      expect(await partnerCount()).toBe(before);
    });

    it('refuses read-only fields such as id, organization_id and timestamps', async () => {
      for (const key of ['id', 'organization_id', 'created_at', 'deleted_at']) {
        const res = await post(partnerInput(org, { [key]: 'x' }));
        expect(res.status, key).toBe(400);
        expect(res.body.error.param, key).toBe(key);
      }
    });

    it('answers 400 for malformed JSON', async () => {
      const res = await t.request.post('/v1/partners').set(org.auth).set('Content-Type', 'application/json').send('{"first_name": ');
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.type).toBe('invalid_request_error');
    });

    it('answers 401 without a valid key, and creates nothing', async () => {
      const before = await partnerCount();
      const res = await t.request.post('/v1/partners').set({ Authorization: 'Bearer sk_invalid' }).send(partnerInput(org));
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_error');
      expect(await partnerCount()).toBe(before);
    });
  });

  describe('retries', () => {
    it('replays the first answer for a retried create with the same Idempotency-Key, creating one partner', async () => {
      const body = partnerInput(org);
      const key = `create-partner-${body.email}`;
      const first = await t.request.post('/v1/partners').set(org.auth).set('Idempotency-Key', key).send(body);
      expect(first.status).toBe(201);
      const again = await t.request.post('/v1/partners').set(org.auth).set('Idempotency-Key', key).send(body);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const rows = await t.storage.db
        .selectFrom('partners')
        .select('id')
        .where('email', '=', body.email as string)
        .execute();
      expect(rows.map((r) => r.id)).toEqual([first.body.data[0].id]);
    });
  });

  describe('duplicate e-mail', () => {
    it('answers 409 with the Partnership Program API’s body holding the existing partner', async () => {
      const existing = await createPartner(t, org, { company_name: 'First Co' });
      const res = await post(partnerInput(org, { email: existing.email, first_name: 'Second' }));

      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, error: 'Partner with this email already exists', data: existing });
      expect(Object.keys(res.body.data).sort()).toEqual([...PARTNER_FIELDS].sort());
      const rows = await t.storage.db.selectFrom('partners').select('id').where('email', '=', existing.email).execute();
      expect(rows.map((r) => r.id)).toEqual([existing.id]);
    });

    it('compares e-mails case-insensitively', async () => {
      const suffix = uniqueEmail('Mixed.Case').split('@')[0];
      const existing = await createPartner(t, org, { email: `${suffix}@Example.COM` });
      const res = await post(partnerInput(org, { email: `${suffix.toLowerCase()}@example.com` }));

      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, error: 'Partner with this email already exists', data: existing });
      expect(res.body.data.email).toBe(`${suffix}@Example.COM`);

      const upper = await post(partnerInput(org, { email: existing.email.toUpperCase() }));
      expect(upper.status).toBe(409);
      expect(upper.body.data.id).toBe(existing.id);
    });

    it('allows the same e-mail in another program of the organization', async () => {
      const existing = await createPartner(t, org);
      const program = await createProgram(t, org);
      const res = await post(partnerInput(org, { email: existing.email, program_id: program.id }));
      expect(res.status).toBe(201);
      expect(res.body.data[0]).toMatchObject({ email: existing.email, program_id: program.id });
      expect(res.body.data[0].id).not.toBe(existing.id);
    });

    it('allows the same e-mail in a program of another organization', async () => {
      const existing = await createPartner(t, org);
      const res = await post(partnerInput(otherOrg, { email: existing.email }), otherOrg);
      expect(res.status).toBe(201);
      expect(res.body.data[0]).toMatchObject({ email: existing.email, organization_id: otherOrg.organization_id });
    });

    it('lets exactly one of several simultaneous creates with one e-mail win; the others get 409 with the winner', async () => {
      const program = await createProgram(t, org);
      const email = uniqueEmail('race');
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          post(partnerInput(org, { program_id: program.id, email: i % 2 ? email.toUpperCase() : email, first_name: `Racer ${i}` })),
        ),
      );

      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409]);
      const winner = responses.find((r) => r.status === 201)!.body.data[0];
      for (const r of responses.filter((r) => r.status === 409)) {
        expect(r.body).toEqual({ success: false, error: 'Partner with this email already exists', data: winner });
      }
      const rows = await t.storage.db.selectFrom('partners').select('id').where('program_id', '=', program.id).execute();
      expect(rows.map((r) => r.id)).toEqual([winner.id]);
    });
  });
});
