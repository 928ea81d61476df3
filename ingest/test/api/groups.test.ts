import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect-error.js';
import { createGroup, createPartner, createProgram, type TestOrg, uniqueEmail } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

describe('groups API', () => {
  const {
    t,
    orgs: [a, b],
  } = useTestApp({
    orgs: [
      { org: 'Org A', program: 'Program A' },
      { org: 'Org B', program: 'Program B' },
    ],
  });

  const db = () => t.storage.db;

  const newProgram = (org: TestOrg = a) => createProgram(t, org);
  const newGroup = (programId: string, extra: Record<string, unknown> = {}, org: TestOrg = a) =>
    createGroup(t, org, { program_id: programId, ...extra });
  const newPartner = (programId: string, groupId?: string, org: TestOrg = a) =>
    createPartner(t, org, { program_id: programId, ...(groupId ? { group_id: groupId } : {}) });

  /** Live default groups of a program, straight from SQL. */
  const defaultsInSql = async (programId: string) =>
    (
      await db()
        .selectFrom('groups')
        .select('id')
        .where('program_id', '=', programId)
        .where('is_default', '=', true)
        .where('deleted_at', 'is', null)
        .execute()
    ).map((g) => g.id);

  const listGroups = (programId: string, org: TestOrg = a) =>
    t.request.get('/v1/groups').query({ program_id: programId, limit: 100 }).set(org.auth);

  describe('POST /v1/groups', () => {
    it('creates a non-default group; 201 and it reads back', async () => {
      const p = await newProgram();
      const res = await t.request.post('/v1/groups').set(a.auth).send({ program_id: p.id, name: '  VIP  ', description: 'Top partners' });
      expect(res.status).toBe(201);
      expect(res.body.data).toHaveLength(1);
      const g = res.body.data[0];
      expect(g).toMatchObject({
        name: 'VIP',
        description: 'Top partners',
        default: false,
        program_id: p.id,
        organization_id: a.organization_id,
      });
      expect(g.id).toMatch(/^grp_[0-9A-Za-z]{24}$/);
      expect(typeof g.public_key).toBe('string');
      expect(g.public_key.length).toBeGreaterThan(0);

      const back = await t.request.get(`/v1/groups/${g.id}`).set(a.auth);
      expect(back.status).toBe(200);
      expect(back.body).toEqual({ success: true, data: g });
      expect(await defaultsInSql(p.id)).toEqual([p.default_group_id]);
    });

    it('requires program_id', async () => {
      const before = await db().selectFrom('groups').select('id').execute();
      const res = await t.request.post('/v1/groups').set(a.auth).send({ name: 'No program' });
      expectError(res, 400, 'invalid_request_error', 'program_id');
      expect(await db().selectFrom('groups').select('id').execute()).toHaveLength(before.length);
    });

    it('rejects a missing name and unknown keys', async () => {
      const p = await newProgram();
      expectError(await t.request.post('/v1/groups').set(a.auth).send({ program_id: p.id }), 400, 'invalid_request_error', 'name');
      expectError(
        await t.request.post('/v1/groups').set(a.auth).send({ program_id: p.id, name: 'x', colour: 1 }),
        400,
        'invalid_request_error',
        'colour',
      );
      expectError(
        await t.request.post('/v1/groups').set(a.auth).send({ program_id: p.id, name: 'x', default: 'yes' }),
        400,
        'invalid_request_error',
        'default',
      );
      const groups = await db().selectFrom('groups').select('id').where('program_id', '=', p.id).execute();
      expect(groups).toHaveLength(1);
    });

    it('answers 404 for another organization’s program and creates nothing there', async () => {
      const res = await t.request.post('/v1/groups').set(a.auth).send({ program_id: b.program_id, name: 'Intruder' });
      expectError(res, 404, 'not_found_error', 'program_id');
      const groups = await db().selectFrom('groups').select('id').where('program_id', '=', b.program_id).execute();
      expect(groups).toHaveLength(1);
    });

    it('creating a group with default:true makes it the only default group', async () => {
      const p = await newProgram();
      const g = await newGroup(p.id, { default: true });
      expect(g.default).toBe(true);
      expect(await defaultsInSql(p.id)).toEqual([g.id]);

      const list = await listGroups(p.id);
      expect(list.status).toBe(200);
      const defaults = list.body.data.filter((x: { default: boolean }) => x.default).map((x: { id: string }) => x.id);
      expect(defaults).toEqual([g.id]);

      const program = await t.request.get(`/v1/programs/${p.id}`).set(a.auth);
      expect(program.body.data.default_group_id).toBe(g.id);

      const old = await t.request.get(`/v1/groups/${p.default_group_id}`).set(a.auth);
      expect(old.status).toBe(200);
      expect(old.body.data.default).toBe(false);
    });

    it('new partners without a group_id join the current default group', async () => {
      const p = await newProgram();
      const g = await newGroup(p.id, { default: true });
      const partner = await newPartner(p.id);
      expect(partner.group_id).toBe(g.id);
    });
  });

  describe('GET /v1/groups', () => {
    it('requires program_id', async () => {
      expectError(await t.request.get('/v1/groups').set(a.auth), 400, 'invalid_request_error', 'program_id');
    });

    it('lists the program’s live groups with total_count', async () => {
      const p = await newProgram();
      const g1 = await newGroup(p.id);
      const g2 = await newGroup(p.id);
      const res = await listGroups(p.id);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(3);
      expect(res.body.has_more).toBe(false);
      expect(new Set(res.body.data.map((g: { id: string }) => g.id))).toEqual(new Set([p.default_group_id, g1.id, g2.id]));
      for (const g of res.body.data) expect(g.program_id).toBe(p.id);
    });

    it('answers 404 for another organization’s program, never its groups', async () => {
      const res = await listGroups(b.program_id, a);
      expectError(res, 404, 'not_found_error', 'program_id');
      expect(res.body.data).toBeUndefined();
    });
  });

  describe('GET/PUT /v1/groups/:id', () => {
    it('updates name and description and reads them back', async () => {
      const p = await newProgram();
      const g = await newGroup(p.id, { description: 'old' });
      const res = await t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ name: 'Renamed', description: null });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toMatchObject({ id: g.id, name: 'Renamed', description: null, default: false });
      const back = await t.request.get(`/v1/groups/${g.id}`).set(a.auth);
      expect(back.body.data).toEqual(res.body.data[0]);
    });

    it('updating a group with default:true makes it the only default group', async () => {
      const p = await newProgram();
      const g = await newGroup(p.id);
      const res = await t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ default: true });
      expect(res.status).toBe(200);
      expect(res.body.data[0].default).toBe(true);
      expect(await defaultsInSql(p.id)).toEqual([g.id]);
      const old = await t.request.get(`/v1/groups/${p.default_group_id}`).set(a.auth);
      expect(old.body.data.default).toBe(false);

      // Setting default:true again on the default group is harmless.
      const again = await t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ default: true });
      expect(again.status).toBe(200);
      expect(await defaultsInSql(p.id)).toEqual([g.id]);
    });

    it('rejects default:false on update, so a program never loses its default group', async () => {
      const p = await newProgram();
      const res = await t.request.put(`/v1/groups/${p.default_group_id}`).set(a.auth).send({ default: false });
      expectError(res, 400, 'invalid_request_error', 'default');
      expect(await defaultsInSql(p.id)).toEqual([p.default_group_id]);
    });

    it('rejects unknown keys and program_id on update, leaving the group unchanged', async () => {
      const p = await newProgram();
      const g = await newGroup(p.id);
      const other = await newProgram();
      expectError(
        await t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ program_id: other.id }),
        400,
        'invalid_request_error',
        'program_id',
      );
      expectError(await t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ name: '' }), 400, 'invalid_request_error', 'name');
      const back = await t.request.get(`/v1/groups/${g.id}`).set(a.auth);
      expect(back.body.data).toMatchObject({ name: g.name, program_id: p.id });
    });

    it('answers 404 for another organization’s group on read, update and delete, changing nothing', async () => {
      const foreign = b.group_id;
      expectError(await t.request.get(`/v1/groups/${foreign}`).set(a.auth), 404, 'not_found_error');
      expectError(await t.request.put(`/v1/groups/${foreign}`).set(a.auth).send({ name: 'Taken' }), 404, 'not_found_error');
      expectError(await t.request.delete(`/v1/groups/${foreign}`).set(a.auth), 404, 'not_found_error');
      const row = await db().selectFrom('groups').selectAll().where('id', '=', foreign).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ name: 'Default', is_default: true, deleted_at: null });
      const own = await t.request.get(`/v1/groups/${foreign}`).set(b.auth);
      expect(own.status).toBe(200);
    });

    it('answers 404 for a missing group', async () => {
      expectError(await t.request.get('/v1/groups/grp_missing').set(a.auth), 404, 'not_found_error');
    });
  });

  describe('DELETE /v1/groups/:id', () => {
    it('refuses to delete the default group (400) and keeps it', async () => {
      const p = await newProgram();
      const res = await t.request.delete(`/v1/groups/${p.default_group_id}`).set(a.auth);
      expectError(res, 400, 'invalid_request_error', 'id');
      const back = await t.request.get(`/v1/groups/${p.default_group_id}`).set(a.auth);
      expect(back.status).toBe(200);
      expect(back.body.data.default).toBe(true);
      expect(await defaultsInSql(p.id)).toEqual([p.default_group_id]);
    });

    it('moves the deleted group’s partners to the default group and hides the group', async () => {
      const p = await newProgram();
      const doomed = await newGroup(p.id);
      const keep = await newGroup(p.id);
      const movers = [await newPartner(p.id, doomed.id), await newPartner(p.id, doomed.id)];
      const stayer = await newPartner(p.id, keep.id);
      const inDefault = await newPartner(p.id);
      expect(movers.map((m) => m.group_id)).toEqual([doomed.id, doomed.id]);
      expect(inDefault.group_id).toBe(p.default_group_id);

      const res = await t.request.delete(`/v1/groups/${doomed.id}`).set(a.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: doomed.id, deleted: true } });

      for (const m of movers) {
        const back = await t.request.get(`/v1/partners/${m.id}`).set(a.auth);
        expect(back.status).toBe(200);
        expect(back.body.data.group_id).toBe(p.default_group_id);
      }
      expect((await t.request.get(`/v1/partners/${stayer.id}`).set(a.auth)).body.data.group_id).toBe(keep.id);
      expect((await t.request.get(`/v1/partners/${inDefault.id}`).set(a.auth)).body.data.group_id).toBe(p.default_group_id);

      expectError(await t.request.get(`/v1/groups/${doomed.id}`).set(a.auth), 404, 'not_found_error');
      expectError(await t.request.put(`/v1/groups/${doomed.id}`).set(a.auth).send({ name: 'Back' }), 404, 'not_found_error');
      expectError(await t.request.delete(`/v1/groups/${doomed.id}`).set(a.auth), 404, 'not_found_error');
      const list = await listGroups(p.id);
      expect(list.body.data.map((g: { id: string }) => g.id)).not.toContain(doomed.id);
      expect(list.body.total_count).toBe(2);

      const row = await db()
        .selectFrom('groups')
        .select(['deleted_at', 'is_default'])
        .where('id', '=', doomed.id)
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).not.toBeNull();
      const stillThere = await db().selectFrom('partners').select('id').where('group_id', '=', doomed.id).execute();
      expect(stillThere).toEqual([]);
    });

    it('a deleted group can no longer be given to a partner', async () => {
      const p = await newProgram();
      const g = await newGroup(p.id);
      expect((await t.request.delete(`/v1/groups/${g.id}`).set(a.auth)).status).toBe(200);
      const res = await t.request
        .post('/v1/partners')
        .set(a.auth)
        .send({ program_id: p.id, first_name: 'Late', last_name: 'Comer', email: uniqueEmail('late'), group_id: g.id });
      expectError(res, 404, 'not_found_error', 'group_id');
    });

    it('after a default swap the former default can be deleted and its partners go to the new default', async () => {
      const p = await newProgram();
      const partner = await newPartner(p.id);
      expect(partner.group_id).toBe(p.default_group_id);
      const next = await newGroup(p.id);
      expect((await t.request.put(`/v1/groups/${next.id}`).set(a.auth).send({ default: true })).status).toBe(200);
      const res = await t.request.delete(`/v1/groups/${p.default_group_id}`).set(a.auth);
      expect(res.status).toBe(200);
      expect((await t.request.get(`/v1/partners/${partner.id}`).set(a.auth)).body.data.group_id).toBe(next.id);
      expect(await defaultsInSql(p.id)).toEqual([next.id]);
      expect((await t.request.get(`/v1/programs/${p.id}`).set(a.auth)).body.data.default_group_id).toBe(next.id);
    });

    it('concurrent default swaps still leave exactly one default group', async () => {
      const p = await newProgram();
      const groups = [await newGroup(p.id), await newGroup(p.id), await newGroup(p.id)];
      const results = await Promise.all(groups.map((g) => t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ default: true })));
      for (const r of results) expect(r.status).toBe(200);
      const defaults = await defaultsInSql(p.id);
      expect(defaults).toHaveLength(1);
      expect(groups.map((g) => g.id)).toContain(defaults[0]);
    });

    it('deleting a group while it is being made the default never leaves the program without a live default', async () => {
      for (let i = 0; i < 5; i++) {
        const p = await newProgram();
        const g = await newGroup(p.id);
        const [swap, del] = await Promise.all([
          t.request.put(`/v1/groups/${g.id}`).set(a.auth).send({ default: true }),
          t.request.delete(`/v1/groups/${g.id}`).set(a.auth),
        ]);
        // Either order is fine, but never two successes and never a 5xx.
        // Swap first → the delete is refused (400); delete first → the swap finds no group (404).
        const outcome = `${swap.status}/${del.status}`;
        expect(['200/400', '404/200']).toContain(outcome);
        const defaults = await defaultsInSql(p.id);
        expect(defaults).toHaveLength(1);
        const program = await t.request.get(`/v1/programs/${p.id}`).set(a.auth);
        expect(program.status).toBe(200);
        expect(program.body.data.default_group_id).toBe(defaults[0]);
      }
    });
  });
});
