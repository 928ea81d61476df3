import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { type ClickInsert, createClickWriter } from '../../src/resources/clicks/click-writer.js';
import { type ApiObject, createOrganization, createPartner, type TestOrg } from '../support/factories.js';
import { createTestApp, type TestApp } from '../support/harness.js';

/** Group commit of clicks: many writes, few statements, each answered only once stored. */
describe('click writer', () => {
  let t: TestApp;
  let org: TestOrg;
  let partner: ApiObject;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    partner = await createPartner(t, org);
  });
  afterAll(() => t?.close());

  /** The database, counting the INSERT statements sent through it. */
  function countingDb() {
    const counter = { inserts: 0 };
    const plugin: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (node.kind === 'InsertQueryNode') counter.inserts++;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    return { db: t.storage.db.withPlugin(plugin), counter };
  }

  const click = (overrides: Partial<ClickInsert> = {}): ClickInsert => {
    const now = new Date();
    return {
      id: newId('click'),
      organization_id: org.organization_id,
      program_id: org.program_id,
      partner_id: partner.id,
      link_id: null,
      country: null,
      state: null,
      device: 'desktop',
      page: null,
      browser: null,
      referrer: null,
      created_at: now,
      updated_at: now,
      ...overrides,
    };
  };

  const stored = async (ids: string[]) =>
    (await t.storage.db.selectFrom('clicks').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort();

  it('writes the clicks of one moment in one statement, and answers each once it is stored', async () => {
    const { db, counter } = countingDb();
    const write = createClickWriter(db);
    const rows = Array.from({ length: 200 }, () => click());
    const answered: string[] = [];
    await Promise.all(
      rows.map(async (row) => {
        await write(row);
        // Stored by the time its caller hears back.
        expect(await stored([row.id as string])).toEqual([row.id]);
        answered.push(row.id as string);
      }),
    );
    expect(answered).toHaveLength(200);
    expect(counter.inserts).toBe(1);
    expect(await stored(rows.map((r) => r.id as string))).toEqual(rows.map((r) => r.id).sort());
  });

  it('splits a burst larger than a batch (500) into several statements', async () => {
    const { db, counter } = countingDb();
    const write = createClickWriter(db);
    const rows = Array.from({ length: 1200 }, () => click());
    await Promise.all(rows.map((row) => write(row)));
    expect(counter.inserts).toBe(3);
    expect((await stored(rows.map((r) => r.id as string))).length).toBe(1200);
  });

  it('fails only the bad click of a batch; its neighbours are stored', async () => {
    const write = createClickWriter(t.storage.db);
    const good = Array.from({ length: 5 }, () => click());
    const bad = click({ partner_id: 'part_doesnotexist000000000000' });
    const results = await Promise.allSettled([...good.slice(0, 2), bad, ...good.slice(2)].map((row) => write(row)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await stored(good.map((r) => r.id as string))).toEqual(good.map((r) => r.id).sort());
    expect(await stored([bad.id as string])).toEqual([]);
  });

  it('counts every written click in the partner stats', async () => {
    const p = await createPartner(t, org);
    const write = createClickWriter(t.storage.db);
    await Promise.all(Array.from({ length: 30 }, () => write(click({ partner_id: p.id }))));
    const res = await t.request.get(`/v1/partners/${p.id}?include[]=stats`).set(org.auth);
    expect(res.body.data.stats.total_clicks).toBe(30);
  });
});
