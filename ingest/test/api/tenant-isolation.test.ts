import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createPartner, type TestOrg } from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';

/**
 * Multi-tenancy (ingest/docs/api.md#authentication-and-tenancy): every query is scoped by the
 * caller's organization; an id of another organization is indistinguishable from a missing one
 * (404), and nothing the other organization does changes the owner's records.
 */

function expectNotFound(res: Response, label: string): void {
  expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(404);
  expect(res.body.success, label).toBe(false);
  expect(res.body.error.type, label).toBe('not_found_error');
}

/** The body of a 404 with the id blanked, to compare "another org's id" with "no such id". */
const shapeOf = (res: Response, id: string) => JSON.stringify(res.body).replaceAll(id, '<id>');

describe('tenant isolation', () => {
  const {
    t,
    orgs: [owner, intruder],
  } = useTestApp({
    orgs: [
      { org: 'Owner Inc', program: 'Owner program' },
      { org: 'Intruder Inc', program: 'Intruder program' },
    ],
  });
  let ownerGroup: Record<string, unknown> & { id: string };
  let ownerPartner: Record<string, unknown> & { id: string };
  let ownerKeyId: string;
  let snapshot: { program: unknown; group: unknown; partner: unknown; groups: number; partners: number; keys: number };

  const as = (o: TestOrg) => ({
    get: (path: string) => t.request.get(path).set(o.auth),
    post: (path: string, body: object) => t.request.post(path).set(o.auth).send(body),
    put: (path: string, body: object) => t.request.put(path).set(o.auth).send(body),
    del: (path: string) => t.request.delete(path).set(o.auth),
  });

  async function takeSnapshot() {
    const a = as(owner);
    const [program, group, partner, groups, partners, keys] = await Promise.all([
      a.get(`/v1/programs/${owner.program_id}`),
      a.get(`/v1/groups/${ownerGroup.id}`),
      a.get(`/v1/partners/${ownerPartner.id}`),
      a.get(`/v1/groups?program_id=${owner.program_id}`),
      a.get(`/v1/partners?program_id=${owner.program_id}`),
      a.get('/v1/api-keys'),
    ]);
    for (const r of [program, group, partner, groups, partners, keys]) expect(r.status).toBe(200);
    return {
      program: program.body.data,
      group: group.body.data,
      partner: partner.body.data,
      groups: groups.body.total_count,
      partners: partners.body.total_count,
      keys: keys.body.total_count,
    };
  }

  beforeAll(async () => {
    const a = as(owner);
    ownerGroup = (await createGroup(t, owner, { program_id: owner.program_id, name: 'Owner VIP' })) as typeof ownerGroup;
    ownerPartner = (await createPartner(t, owner, {
      program_id: owner.program_id,
      group_id: ownerGroup.id,
      first_name: 'Olive',
      last_name: 'Owner',
      email: 'olive@owner.example',
    })) as typeof ownerPartner;
    const second = await a.post('/v1/api-keys', { name: 'spare' });
    expect(second.status).toBe(201);
    ownerKeyId = second.body.data[0].id;
    snapshot = await takeSnapshot();
  });

  it('the intruder cannot retrieve, update or delete the owner’s program, group or partner (404)', async () => {
    const x = as(intruder);
    const cases: Array<[string, Promise<Response>]> = [
      ['GET program', x.get(`/v1/programs/${owner.program_id}`)],
      ['PUT program', x.put(`/v1/programs/${owner.program_id}`, { name: 'Hijacked' })],
      ['GET group', x.get(`/v1/groups/${ownerGroup.id}`)],
      ['PUT group', x.put(`/v1/groups/${ownerGroup.id}`, { name: 'Hijacked' })],
      ['PUT group default', x.put(`/v1/groups/${ownerGroup.id}`, { default: true })],
      ['DELETE group', x.del(`/v1/groups/${ownerGroup.id}`)],
      ['GET default group', x.get(`/v1/groups/${owner.group_id}`)],
      ['GET partner', x.get(`/v1/partners/${ownerPartner.id}`)],
      ['GET partner expanded', x.get(`/v1/partners/${ownerPartner.id}?expand[]=group&expand[]=program`)],
      ['PUT partner', x.put(`/v1/partners/${ownerPartner.id}`, { first_name: 'Hijacked', status: 'suspended' })],
      ['DELETE partner', x.del(`/v1/partners/${ownerPartner.id}`)],
      ['DELETE api key', x.del(`/v1/api-keys/${ownerKeyId}`)],
    ];
    for (const [label, promise] of cases) {
      const res = await promise;
      expectNotFound(res, label);
      expect(JSON.stringify(res.body), label).not.toContain('Olive');
      expect(JSON.stringify(res.body), label).not.toContain(owner.organization_id);
    }
  });

  it('the owner’s records are unchanged afterwards', async () => {
    expect(await takeSnapshot()).toEqual(snapshot);
  });

  it('the owner’s program id as program_id on a list answers 404', async () => {
    const x = as(intruder);
    expectNotFound(await x.get(`/v1/groups?program_id=${owner.program_id}`), 'list groups');
    expectNotFound(await x.get(`/v1/partners?program_id=${owner.program_id}`), 'list partners');
    expectNotFound(await x.get(`/v1/partners?program_id=${owner.program_id}&email=olive@owner.example`), 'partner by e-mail');
    const res = await x.get(`/v1/partners?program_id=${owner.program_id}`);
    expect(res.body.error.param).toBe('program_id');
    expect(res.body).not.toHaveProperty('data');
  });

  it('the owner’s program and group ids cannot be used to create records (404) and nothing is created', async () => {
    const x = as(intruder);
    expectNotFound(await x.post('/v1/groups', { program_id: owner.program_id, name: 'Planted' }), 'create group');
    expectNotFound(
      await x.post('/v1/partners', {
        program_id: owner.program_id,
        first_name: 'Planted',
        last_name: 'Partner',
        email: 'planted@intruder.example',
      }),
      'create partner in owner program',
    );
    const crossGroup = await x.post('/v1/partners', {
      program_id: intruder.program_id,
      group_id: ownerGroup.id,
      first_name: 'Cross',
      last_name: 'Group',
      email: 'cross@intruder.example',
    });
    expectNotFound(crossGroup, 'create partner with owner group');
    expect(crossGroup.body.error.param).toBe('group_id');

    // Nor can an existing partner of the intruder be moved into the owner's group.
    const mine = await x.post('/v1/partners', {
      program_id: intruder.program_id,
      first_name: 'Own',
      last_name: 'Partner',
      email: 'own@intruder.example',
    });
    expect(mine.status).toBe(201);
    expectNotFound(await x.put(`/v1/partners/${mine.body.data[0].id}`, { group_id: ownerGroup.id }), 'move partner to owner group');
    expect((await x.get(`/v1/partners/${mine.body.data[0].id}`)).body.data.group_id).toBe(intruder.group_id);

    expect(await takeSnapshot()).toEqual(snapshot);
    const intruderPartners = await x.get(`/v1/partners?program_id=${intruder.program_id}`);
    expect(intruderPartners.body.data.map((p: { email: string }) => p.email)).toEqual(['own@intruder.example']);
  });

  it('another organization’s id answers exactly like an id that does not exist', async () => {
    const x = as(intruder);
    const pairs: Array<[string, string, string]> = [
      ['/v1/programs/', owner.program_id, 'prg_000000000000000000000000'],
      ['/v1/groups/', ownerGroup.id, 'grp_000000000000000000000000'],
      ['/v1/partners/', ownerPartner.id, 'part_000000000000000000000000'],
    ];
    for (const [base, foreignId, missingId] of pairs) {
      const foreign = await x.get(`${base}${foreignId}`);
      const missing = await x.get(`${base}${missingId}`);
      expect(foreign.status).toBe(missing.status);
      expect(shapeOf(foreign, foreignId)).toBe(shapeOf(missing, missingId));
    }
    const foreignList = await x.get(`/v1/groups?program_id=${owner.program_id}`);
    const missingList = await x.get('/v1/groups?program_id=prg_000000000000000000000000');
    expect(shapeOf(foreignList, owner.program_id)).toBe(shapeOf(missingList, 'prg_000000000000000000000000'));
  });

  it('lists only ever show the caller’s own records', async () => {
    const x = as(intruder);
    const programs = await x.get('/v1/programs?limit=100');
    expect(programs.body.data.map((p: { id: string }) => p.id)).toEqual([intruder.program_id]);
    expect(programs.body.total_count).toBe(1);
    const keys = await x.get('/v1/api-keys?limit=100');
    expect(keys.body.data.every((k: { organization_id: string }) => k.organization_id === intruder.organization_id)).toBe(true);
    expect(keys.body.data.map((k: { id: string }) => k.id)).not.toContain(ownerKeyId);

    const ownerPrograms = await as(owner).get('/v1/programs?limit=100');
    expect(ownerPrograms.body.data.map((p: { id: string }) => p.id)).toEqual([owner.program_id]);
  });

  it('the same e-mail may be a partner in both organizations', async () => {
    const res = await as(intruder).post('/v1/partners', {
      program_id: intruder.program_id,
      first_name: 'Olive',
      last_name: 'Elsewhere',
      email: 'olive@owner.example',
    });
    expect(res.status).toBe(201);
    expect(res.body.data[0].organization_id).toBe(intruder.organization_id);
    const ownerView = await as(owner).get(`/v1/partners/${ownerPartner.id}`);
    expect(ownerView.body.data.last_name).toBe('Owner');
  });

  it('nothing the intruder did changed the owner’s data', async () => {
    expect(await takeSnapshot()).toEqual(snapshot);
  });
});
