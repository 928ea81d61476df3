import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiObject, createGroup, createPartner, getPartner, partnerInput } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/** Another organization's partners, programs and groups are indistinguishable from missing ones. */
describe('partners across organizations', () => {
  const {
    t,
    orgs: [owner, intruder],
  } = useTestApp({ orgs: 2 });
  let partner: ApiObject;
  let group: ApiObject;

  beforeAll(async () => {
    group = await createGroup(t, owner);
    partner = await createPartner(t, owner, { group_id: group.id, payout_method: 'paypal', payout_details: { email: 'pp@example.com' } });
  });

  /** The owner still sees the partner exactly as created, and SQL agrees. */
  async function expectUntouched() {
    expect(await getPartner(t, owner, partner.id)).toEqual(partner);
    const row = await t.storage.db.selectFrom('partners').selectAll().where('id', '=', partner.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
    expect(row.organization_id).toBe(owner.organization_id);
  }

  const missingPartnerBody = (id: string) => ({ success: false, error: { type: 'not_found_error', message: `No such partner: '${id}'` } });

  it('GET /v1/partners/:id answers 404, exactly as for a missing id', async () => {
    const res = await t.request.get(`/v1/partners/${partner.id}?expand[]=group&expand[]=program`).set(intruder.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(missingPartnerBody(partner.id));
    const missing = await t.request.get('/v1/partners/part_doesnotexist0000000000').set(intruder.auth);
    expect(missing.body).toEqual(missingPartnerBody('part_doesnotexist0000000000'));
  });

  it('PUT /v1/partners/:id answers 404 and changes nothing', async () => {
    for (const body of [
      { first_name: 'Hacked' },
      { email: 'hacked@example.com' },
      { status: 'suspended' },
      { payout_method: 'none' },
      {},
    ]) {
      const res = await t.request.put(`/v1/partners/${partner.id}`).set(intruder.auth).send(body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body).toEqual(missingPartnerBody(partner.id));
    }
    await expectUntouched();
  });

  it('DELETE /v1/partners/:id answers 404 and deletes nothing', async () => {
    const res = await t.request.delete(`/v1/partners/${partner.id}`).set(intruder.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(missingPartnerBody(partner.id));
    await expectUntouched();
  });

  it("GET /v1/partners answers 404 for the other organization's program, with or without filters", async () => {
    for (const q of ['', `&email=${encodeURIComponent(partner.email)}`, `&group_id=${group.id}`, '&expand[]=group&expand[]=program']) {
      const res = await t.request.get(`/v1/partners?program_id=${owner.program_id}${q}`).set(intruder.auth);
      expect(res.status, q).toBe(404);
      expect(res.body.success).toBe(false);
      expect(res.body.error, q).toMatchObject({ type: 'not_found_error', param: 'program_id' });
      expect(res.body).not.toHaveProperty('data');
    }
  });

  it("does not list the other organization's partners in its own program, even by e-mail or group", async () => {
    for (const q of ['', `&email=${encodeURIComponent(partner.email)}`, `&group_id=${group.id}`]) {
      const res = await t.request.get(`/v1/partners?program_id=${intruder.program_id}${q}`).set(intruder.auth);
      expect(res.status, q).toBe(200);
      expect(res.body.data, q).toEqual([]);
      expect(res.body.total_count, q).toBe(0);
    }
  });

  it("POST /v1/partners answers 404 for the other organization's program and creates nothing there", async () => {
    const res = await t.request
      .post('/v1/partners')
      .set(intruder.auth)
      .send(partnerInput(owner, { send_welcome_email: true }));
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found_error', param: 'program_id' });
    const rows = await t.storage.db.selectFrom('partners').select('id').where('program_id', '=', owner.program_id).execute();
    expect(rows.map((r) => r.id)).toEqual([partner.id]);
    const mails = await t.storage.db
      .selectFrom('email_outbox')
      .select('id')
      .where('organization_id', '=', intruder.organization_id)
      .execute();
    expect(mails).toEqual([]);
  });

  it("POST /v1/partners with the partner's e-mail in the other program is no conflict and reveals nothing", async () => {
    const res = await t.request
      .post('/v1/partners')
      .set(intruder.auth)
      .send(partnerInput(intruder, { email: partner.email }));
    expect(res.status).toBe(201);
    expect(res.body.data[0].id).not.toBe(partner.id);
    expect(res.body.data[0].organization_id).toBe(intruder.organization_id);
    await expectUntouched();
  });

  it("answers 404 for the other organization's group on create and on update", async () => {
    const create = await t.request
      .post('/v1/partners')
      .set(intruder.auth)
      .send(partnerInput(intruder, { group_id: group.id }));
    expect(create.status).toBe(404);
    expect(create.body.error).toMatchObject({ type: 'not_found_error', param: 'group_id' });

    const own = await createPartner(t, intruder);
    const update = await t.request.put(`/v1/partners/${own.id}`).set(intruder.auth).send({ group_id: owner.group_id });
    expect(update.status).toBe(404);
    expect(update.body.error).toMatchObject({ type: 'not_found_error', param: 'group_id' });
    expect(await getPartner(t, intruder, own.id)).toEqual(own);
  });

  it('the owner still reads, updates and deletes its partner', async () => {
    await expectUntouched();
    const update = await t.request.put(`/v1/partners/${partner.id}`).set(owner.auth).send({ internal_note: 'still mine' });
    expect(update.status).toBe(200);
    expect((await getPartner(t, owner, partner.id)).internal_note).toBe('still mine');
    const del = await t.request.delete(`/v1/partners/${partner.id}`).set(owner.auth);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, data: { id: partner.id, deleted: true } });
  });
});
