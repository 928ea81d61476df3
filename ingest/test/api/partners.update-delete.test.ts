import { describe, expect, it } from 'vitest';
import { createGroup, createPartner, createProgram, getPartner, partnerInput, uniqueEmail } from '../support/factories.js';
import { PARTNER_FIELDS } from '../support/fields.js';
import { resource, useTestApp } from '../support/fixture.js';
import { clockPast } from '../support/time.js';

/** The payout part of a partner, to compare exactly (toMatchObject would accept extra details). */
const payoutOf = (p: Record<string, unknown>) => ({ payout_method: p.payout_method, payout_details: p.payout_details });

describe('PUT and DELETE /v1/partners/:id', () => {
  const {
    t,
    orgs: [org],
  } = useTestApp({ orgs: 1 });

  const { put, del } = resource(t, '/v1/partners', org);

  describe('update', () => {
    it.each([
      ['first_name', 'Renamed', 'Renamed'],
      ['first_name', '  Padded  ', 'Padded'],
      ['last_name', 'Newlast', 'Newlast'],
      ['company_name', 'New Co', 'New Co'],
      ['company_name', null, null],
      ['country_code', 'FR', 'FR'],
      ['country_code', 'nl', 'NL'],
      ['country_code', null, null],
      ['status', 'pending', 'pending'],
      ['status', 'suspended', 'suspended'],
      ['status', 'rejected', 'rejected'],
      ['status', 'active', 'active'],
      ['rejection_note', 'Not a fit', 'Not a fit'],
      ['rejection_note', null, null],
      ['internal_note', 'Top performer', 'Top performer'],
      ['internal_note', null, null],
      ['suspension_reason', 'Spam', 'Spam'],
      ['suspension_reason', null, null],
      ['first_customer_email_active', false, false],
      ['new_customer_email_active', false, false],
      ['payout_paid_email_active', false, false],
      ['completed_onboarding', false, false],
    ])('changes %s to %j', async (field, value, expected) => {
      const partner = await createPartner(t, org, {
        company_name: 'Old Co',
        country_code: 'US',
        rejection_note: 'old',
        internal_note: 'old',
        suspension_reason: 'old',
        status: field === 'status' && value === 'active' ? 'pending' : 'active',
      });
      await clockPast(partner.updated_at);
      const res = await put(partner.id, { [field]: value });

      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toHaveLength(1);
      const updated = res.body.data[0];
      expect(Object.keys(updated).sort()).toEqual([...PARTNER_FIELDS].sort());
      expect(updated[field]).toEqual(expected);
      // Nothing else moves but updated_at.
      const { [field]: _a, updated_at: newUpdatedAt, ...restAfter } = updated;
      const { [field]: _b, updated_at: oldUpdatedAt, ...restBefore } = partner;
      expect(restAfter).toEqual(restBefore);
      expect(new Date(newUpdatedAt).getTime()).toBeGreaterThan(new Date(oldUpdatedAt).getTime());

      expect(await getPartner(t, org, partner.id)).toEqual(updated);
    });

    it('turns the e-mail flags back on', async () => {
      const partner = await createPartner(t, org, {
        first_customer_email_active: false,
        new_customer_email_active: false,
        payout_paid_email_active: false,
      });
      const res = await put(partner.id, {
        first_customer_email_active: true,
        new_customer_email_active: true,
        payout_paid_email_active: true,
      });
      expect(res.status).toBe(200);
      expect(await getPartner(t, org, partner.id)).toMatchObject({
        first_customer_email_active: true,
        new_customer_email_active: true,
        payout_paid_email_active: true,
      });
    });

    it('changes the e-mail, keeping the spelling given', async () => {
      const partner = await createPartner(t, org);
      const email = uniqueEmail('New.Address').replace('example.com', 'Example.org');
      const res = await put(partner.id, { email });
      expect(res.status).toBe(200);
      expect(res.body.data[0].email).toBe(email);
      expect((await getPartner(t, org, partner.id)).email).toBe(email);
    });

    it("accepts the partner's own e-mail in another case", async () => {
      const partner = await createPartner(t, org);
      const res = await put(partner.id, { email: partner.email.toUpperCase() });
      expect(res.status).toBe(200);
      expect((await getPartner(t, org, partner.id)).email).toBe(partner.email.toUpperCase());
    });

    it("answers 409 with the Partnership Program API's body when the e-mail is another partner's, and changes nothing", async () => {
      const other = await createPartner(t, org);
      const partner = await createPartner(t, org);
      const res = await put(partner.id, { email: other.email.toUpperCase(), first_name: 'Changed' });

      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, error: 'Partner with this email already exists', data: other });
      expect(await getPartner(t, org, partner.id)).toEqual(partner);
    });

    it('allows an e-mail used in another program', async () => {
      const program = await createProgram(t, org);
      const elsewhere = await createPartner(t, org, { program_id: program.id });
      const partner = await createPartner(t, org);
      const res = await put(partner.id, { email: elsewhere.email });
      expect(res.status).toBe(200);
      expect((await getPartner(t, org, partner.id)).email).toBe(elsewhere.email);
    });

    it('moves the partner to another group of its program', async () => {
      const group = await createGroup(t, org);
      const partner = await createPartner(t, org);
      const res = await put(partner.id, { group_id: group.id });
      expect(res.status).toBe(200);
      expect(res.body.data[0].group_id).toBe(group.id);
      expect((await getPartner(t, org, partner.id)).group_id).toBe(group.id);
    });

    it('answers 404 for a group of another program, and keeps the group', async () => {
      const program = await createProgram(t, org);
      const partner = await createPartner(t, org);
      const res = await put(partner.id, { group_id: program.default_group_id });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', param: 'group_id' });
      expect((await getPartner(t, org, partner.id)).group_id).toBe(org.group_id);
    });

    it('sets the payout method with its details', async () => {
      const partner = await createPartner(t, org);
      const res = await put(partner.id, { payout_method: 'wise', payout_details: { email: 'wise@example.com' } });
      expect(res.status).toBe(200);
      expect(payoutOf(res.body.data[0])).toEqual({ payout_method: 'wise', payout_details: { email: 'wise@example.com' } });
      expect(payoutOf(await getPartner(t, org, partner.id))).toEqual({
        payout_method: 'wise',
        payout_details: { email: 'wise@example.com' },
      });
    });

    it('clears the payout details when the method changes without new details', async () => {
      const partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: 'pp@example.com' } });
      const res = await put(partner.id, { payout_method: 'crypto' });
      expect(res.status).toBe(200);
      expect(payoutOf(res.body.data[0])).toEqual({ payout_method: 'crypto', payout_details: {} });
      expect(payoutOf(await getPartner(t, org, partner.id))).toEqual({ payout_method: 'crypto', payout_details: {} });
    });

    it('keeps the payout details when the same method is sent again without details', async () => {
      const partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: 'pp@example.com' } });
      const res = await put(partner.id, { payout_method: 'paypal', first_name: 'Same' });
      expect(res.status).toBe(200);
      const stored = await getPartner(t, org, partner.id);
      expect(stored.first_name).toBe('Same');
      expect(payoutOf(stored)).toEqual({ payout_method: 'paypal', payout_details: { email: 'pp@example.com' } });
    });

    it('replaces the details of the current method when only payout_details is sent', async () => {
      const partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: 'pp@example.com' } });
      const res = await put(partner.id, { payout_details: { email: 'new-pp@example.com' } });
      expect(res.status).toBe(200);
      expect(payoutOf(await getPartner(t, org, partner.id))).toEqual({
        payout_method: 'paypal',
        payout_details: { email: 'new-pp@example.com' },
      });
    });

    it('answers 400 for details that do not fit the current method, and changes nothing', async () => {
      const partner = await createPartner(t, org, { payout_method: 'paypal', payout_details: { email: 'pp@example.com' } });
      for (const body of [
        { payout_details: { iban: 'DE89370400440532013000' } },
        { payout_details: { email: 'nope' } },
        { payout_method: 'none', payout_details: { email: 'pp@example.com' } },
        { payout_method: 'crypto', payout_details: { email: 'pp@example.com' } },
      ]) {
        const res = await put(partner.id, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.type).toBe('invalid_request_error');
        expect(res.body.error.param).toMatch(/^payout_details\./);
      }
      expect(await getPartner(t, org, partner.id)).toEqual(partner);
    });

    it.each([
      [{ nickname: 'x' }, 'nickname'],
      [{ program_id: 'prg_x' }, 'program_id'],
      [{ send_welcome_email: true }, 'send_welcome_email'],
      [{ id: 'part_x' }, 'id'],
      [{ email: 'not-an-email' }, 'email'],
      [{ country_code: 'XX' }, 'country_code'],
      [{ status: 'banned' }, 'status'],
      [{ payout_method: 'cash' }, 'payout_method'],
      [{ first_name: '' }, 'first_name'],
      [{ first_name: null }, 'first_name'],
      [{ completed_onboarding: 'no' }, 'completed_onboarding'],
      [{ internal_note: 'x'.repeat(2001) }, 'internal_note'],
    ])('answers 400 for %j naming %s, and changes nothing', async (body, param) => {
      const partner = await createPartner(t, org);
      const res = await put(partner.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(await getPartner(t, org, partner.id)).toEqual(partner);
    });

    it('answers 404 for an id that does not exist', async () => {
      const res = await put('part_doesnotexist0000000000', { first_name: 'X' });
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
    });

    it('accepts an empty body and changes no field', async () => {
      const partner = await createPartner(t, org);
      const res = await put(partner.id, {});
      expect(res.status).toBe(200);
      const { updated_at: _a, ...after } = res.body.data[0];
      const { updated_at: _b, ...before } = partner;
      expect(after).toEqual(before);
    });
  });

  describe('delete', () => {
    it('soft-deletes: 404 afterwards, gone from the list and the e-mail lookup, the row kept with deleted_at', async () => {
      const program = await createProgram(t, org);
      const keep = await createPartner(t, org, { program_id: program.id });
      const partner = await createPartner(t, org, { program_id: program.id });

      const res = await del(partner.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: partner.id, deleted: true } });

      const get = await t.request.get(`/v1/partners/${partner.id}`).set(org.auth);
      expect(get.status).toBe(404);
      expect(get.body.error.type).toBe('not_found_error');

      const listed = await t.request.get(`/v1/partners?program_id=${program.id}`).set(org.auth);
      expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([keep.id]);
      expect(listed.body.total_count).toBe(1);

      const lookup = await t.request.get(`/v1/partners?program_id=${program.id}&email=${encodeURIComponent(partner.email)}`).set(org.auth);
      expect(lookup.status).toBe(200);
      expect(lookup.body.data).toEqual([]);

      const row = await t.storage.db.selectFrom('partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();
      expect(row.deleted_at).not.toBeNull();
      expect(row.email).toBe(partner.email);
      const kept = await t.storage.db.selectFrom('partners').select('deleted_at').where('id', '=', keep.id).executeTakeFirstOrThrow();
      expect(kept.deleted_at).toBeNull();
      expect(await getPartner(t, org, keep.id)).toEqual(keep);
    });

    it('frees the e-mail for a new partner in the program', async () => {
      const partner = await createPartner(t, org);
      expect((await del(partner.id)).status).toBe(200);

      const res = await t.request
        .post('/v1/partners')
        .set(org.auth)
        .send(partnerInput(org, { email: partner.email.toUpperCase() }));
      expect(res.status).toBe(201);
      const fresh = res.body.data[0];
      expect(fresh.id).not.toBe(partner.id);

      const lookup = await t.request
        .get(`/v1/partners?program_id=${org.program_id}&email=${encodeURIComponent(partner.email)}`)
        .set(org.auth);
      expect(lookup.body.data.map((p: { id: string }) => p.id)).toEqual([fresh.id]);

      const rows = await t.storage.db
        .selectFrom('partners')
        .select(['id', 'deleted_at'])
        .where('program_id', '=', org.program_id)
        .execute();
      const mine = rows.filter((r) => r.id === partner.id || r.id === fresh.id);
      expect(mine).toHaveLength(2);
    });

    it('lets another live partner take over the e-mail of a deleted one by update', async () => {
      const deleted = await createPartner(t, org);
      const partner = await createPartner(t, org);
      expect((await del(deleted.id)).status).toBe(200);
      const res = await put(partner.id, { email: deleted.email });
      expect(res.status).toBe(200);
      expect((await getPartner(t, org, partner.id)).email).toBe(deleted.email);
    });

    it('answers 404 to a second delete and to an update of a deleted partner, leaving deleted_at as it was', async () => {
      const partner = await createPartner(t, org);
      expect((await del(partner.id)).status).toBe(200);
      const before = await t.storage.db.selectFrom('partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();

      const again = await del(partner.id);
      expect(again.status).toBe(404);
      expect(again.body.error.type).toBe('not_found_error');
      const update = await put(partner.id, { first_name: 'Zombie' });
      expect(update.status).toBe(404);

      const after = await t.storage.db.selectFrom('partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();
      expect(after).toEqual(before);
      expect(after.first_name).toBe(partner.first_name);
    });

    it('answers 404 for an id that does not exist', async () => {
      const res = await del('part_doesnotexist0000000000');
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found_error');
    });
  });
});
