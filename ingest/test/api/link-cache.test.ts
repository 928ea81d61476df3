import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { linkCacheKey } from '../../src/resources/links/link-cache.js';
import { expectError, expectLinkNotFound } from '../support/expect-error.js';
import {
  type ApiObject,
  createClick,
  createLink,
  createOrganization,
  createPartner,
  createProgram,
  postClick,
  type TestOrg,
  uniqueLinkValue,
} from '../support/factories.js';
import { useTestApp } from '../support/fixture.js';
import type { TestApp } from '../support/harness.js';

/**
 * Link lookups for clicks are cached in the shared-state port (memory on embedded, Redis on the
 * postgres project). Two app instances over one storage stand for two ingest processes: a change
 * made through A must be seen by B at once.
 */

/**
 * Counts the completed deletes of each shared-store key made through an app's store. A change
 * forgets a link's cached lookups at once and again about a second later (the link cache module
 * says why); a test that must not be disturbed by that second delete waits for it by these counts.
 */
function countDeletes(app: TestApp) {
  const done = new Map<string, number>();
  const store = app.deps.store;
  const original = store.delete.bind(store);
  const spy = vi.spyOn(store, 'delete').mockImplementation(async (key: string) => {
    try {
      return await original(key);
    } finally {
      done.set(key, (done.get(key) ?? 0) + 1);
    }
  });
  return { of: (key: string) => done.get(key) ?? 0, restore: () => spy.mockRestore() };
}

describe('link lookup cache', () => {
  // Two instances: hooks run in order, so b is built after a and closed before it.
  const {
    t: a,
    orgs: [org],
  } = useTestApp({ orgs: 1 });
  const { t: b } = useTestApp({ sharesStorageWith: a });
  let partner: ApiObject;

  beforeAll(async () => {
    partner = await createPartner(a, org);
  });

  const clickOn = (app: TestApp, body: Record<string, unknown>, who: TestOrg = org) => postClick(app, who, body);
  const resolvesOn = async (app: TestApp, body: Record<string, unknown>, who: TestOrg = org) => (await createClick(app, who, body)).link_id;
  const cached = (app: TestApp, param: string, value: string, programId: string | null = null, who: TestOrg = org) =>
    app.deps.store.get(linkCacheKey(who.organization_id, programId, param, value));

  it('runs the two instances on one shared store and one database', async () => {
    expect(b.storage.db).toBe(a.storage.db);
    const link = await createLink(a, org, partner);
    expect((await b.request.get(`/v1/links/${link.id}`).set(org.auth)).status).toBe(200);
  });

  describe('invalidation on every process', () => {
    it('a value changed through A stops resolving on B at once, and the new value resolves', async () => {
      const link = await createLink(a, org, partner);
      expect(await resolvesOn(b, { param: 'ref', value: link.value })).toBe(link.id);
      expect(await resolvesOn(b, { param: 'ref', value: link.value, program_id: org.program_id })).toBe(link.id);
      expect(await cached(b, 'ref', link.value)).not.toBeNull();

      const value = uniqueLinkValue('moved');
      // The new value is looked up (and remembered as missing) on B before it exists.
      expectLinkNotFound(await clickOn(b, { param: 'ref', value }));
      const put = await a.request.put(`/v1/links/${link.id}`).set(org.auth).send({ value });
      expect(put.status, JSON.stringify(put.body)).toBe(200);

      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value }));
      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value, program_id: org.program_id }));
      expect(await resolvesOn(b, { param: 'ref', value })).toBe(link.id);
      expect(await resolvesOn(b, { param: 'ref', value: value.toUpperCase(), program_id: org.program_id })).toBe(link.id);
    });

    it('a param changed through A stops resolving under the old param on B', async () => {
      const link = await createLink(a, org, partner, { param: 'ref' });
      expect(await resolvesOn(b, { param: 'ref', value: link.value })).toBe(link.id);
      expectLinkNotFound(await clickOn(b, { param: 'via', value: link.value }));

      expect((await a.request.put(`/v1/links/${link.id}`).set(org.auth).send({ param: 'via' })).status).toBe(200);

      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value }));
      expect(await resolvesOn(b, { param: 'via', value: link.value })).toBe(link.id);
    });

    it('a link deleted through A stops resolving on B at once, and a new link may take its value', async () => {
      const link = await createLink(a, org, partner);
      const earlier = await createClick(b, org, { param: 'ref', value: link.value });
      expect(earlier.link_id).toBe(link.id);
      expect(await resolvesOn(b, { param: 'ref', value: link.value, program_id: org.program_id })).toBe(link.id);

      const del = await a.request.delete(`/v1/links/${link.id}`).set(org.auth);
      expect(del.body).toEqual({ success: true, data: { id: link.id, deleted: true } });

      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value }));
      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value, program_id: org.program_id }));
      expectError(await b.request.get(`/v1/links/${link.id}`).set(org.auth), 404, 'not_found_error');

      const other = await createPartner(a, org);
      const again = await createLink(a, org, other, { param: 'ref', value: link.value });
      expect(await createClick(b, org, { param: 'ref', value: link.value })).toMatchObject({ link_id: again.id, partner_id: other.id });
      expect(await resolvesOn(b, { param: 'ref', value: link.value, program_id: org.program_id })).toBe(again.id);
      const row = await a.storage.db.selectFrom('clicks').select('link_id').where('id', '=', earlier.id).executeTakeFirstOrThrow();
      expect(row.link_id).toBe(link.id);
    });

    it('a partner deleted through A stops all its links resolving on B at once', async () => {
      const doomed = await createPartner(a, org);
      const ref = await createLink(a, org, doomed, { param: 'ref' });
      const via = await createLink(a, org, doomed, { param: 'via' });
      expect(await resolvesOn(b, { param: 'ref', value: ref.value })).toBe(ref.id);
      expect(await resolvesOn(b, { param: 'via', value: via.value, program_id: org.program_id })).toBe(via.id);

      expect((await a.request.delete(`/v1/partners/${doomed.id}`).set(org.auth)).status).toBe(200);

      expectLinkNotFound(await clickOn(b, { param: 'ref', value: ref.value }));
      expectLinkNotFound(await clickOn(b, { param: 'via', value: via.value, program_id: org.program_id }));
      expectError(await b.request.get(`/v1/links/${ref.id}`).set(org.auth), 404, 'not_found_error');
      // The values are free: a link of another partner takes one and resolves on B.
      const taken = await createLink(a, org, partner, { param: 'ref', value: ref.value });
      expect(await resolvesOn(b, { param: 'ref', value: ref.value })).toBe(taken.id);
    });

    it('works the other way round too: a change through B is seen by A', async () => {
      const link = await createLink(b, org, partner);
      expect(await resolvesOn(a, { param: 'ref', value: link.value })).toBe(link.id);
      expect((await b.request.delete(`/v1/links/${link.id}`).set(org.auth)).status).toBe(200);
      expectLinkNotFound(await clickOn(a, { param: 'ref', value: link.value }));
    });

    it('an org-wide lookup that became ambiguous on A is refused on B at once', async () => {
      const value = uniqueLinkValue('amb');
      const first = await createLink(a, org, partner, { param: 'ref', value });
      expect(await resolvesOn(b, { param: 'ref', value })).toBe(first.id);

      const program = await createProgram(a, org);
      await createLink(a, org, await createPartner(a, org, { program_id: program.id }), { param: 'ref', value });

      expectError(await clickOn(b, { param: 'ref', value }), 400, 'invalid_request_error', 'program_id');
      expect(await resolvesOn(b, { param: 'ref', value, program_id: org.program_id })).toBe(first.id);
    });
  });

  describe('negative entries', () => {
    it('a link created right after "Link not found" for its value resolves at once, on both instances', async () => {
      const value = uniqueLinkValue('late');
      expectLinkNotFound(await clickOn(b, { param: 'ref', value }));
      expectLinkNotFound(await clickOn(b, { param: 'ref', value, program_id: org.program_id }));
      expectLinkNotFound(await clickOn(a, { param: 'ref', value: value.toUpperCase() }));
      // The miss is remembered...
      expect(JSON.parse((await cached(b, 'ref', value)) ?? 'null')).toEqual([]);

      const link = await createLink(a, org, partner, { param: 'ref', value });

      // ...and forgotten when the link is created.
      expect(await resolvesOn(b, { param: 'ref', value })).toBe(link.id);
      expect(await resolvesOn(b, { param: 'ref', value, program_id: org.program_id })).toBe(link.id);
      expect(await resolvesOn(a, { param: 'ref', value: value.toUpperCase() })).toBe(link.id);
    });

    it('a value given to a link by update right after "Link not found" resolves at once', async () => {
      const link = await createLink(a, org, partner);
      const value = uniqueLinkValue('renamed');
      expectLinkNotFound(await clickOn(b, { param: 'ref', value }));
      expect((await a.request.put(`/v1/links/${link.id}`).set(org.auth).send({ value })).status).toBe(200);
      expect(await resolvesOn(b, { param: 'ref', value })).toBe(link.id);
    });
  });

  describe('served from the cache', () => {
    let deletes: ReturnType<typeof countDeletes>;
    beforeAll(() => {
      deletes = countDeletes(a);
    });
    afterAll(() => deletes.restore());

    /** Waits until the link's create (or last change) has deleted both its lookup keys twice: no delete of it is pending. */
    const quiet = (link: ApiObject) =>
      vi.waitFor(
        () => {
          for (const programId of [link.program_id, null]) {
            expect(deletes.of(linkCacheKey(org.organization_id, programId, link.param, link.value))).toBeGreaterThanOrEqual(2);
          }
        },
        { timeout: 5000, interval: 20 },
      );

    it('answers a warm lookup from the shared store, not SQL, until an API change refreshes it', async () => {
      const link = await createLink(a, org, partner);
      // Let the create's delayed second invalidation pass, so nothing but this test touches the key.
      await quiet(link);
      expect(await cached(b, 'ref', link.value)).toBeNull();
      expect(await resolvesOn(b, { param: 'ref', value: link.value })).toBe(link.id);
      expect(JSON.parse((await cached(b, 'ref', link.value)) ?? 'null')).toEqual([
        { id: link.id, partner_id: partner.id, program_id: org.program_id },
      ]);

      // Remove the link behind the API's back: SQL no longer has it, the cache still does.
      await a.storage.db.updateTable('links').set({ deleted_at: new Date() }).where('id', '=', link.id).execute();

      // The cached key still resolves, on both instances (one shared store)...
      expect(await resolvesOn(b, { param: 'ref', value: link.value })).toBe(link.id);
      expect(await resolvesOn(a, { param: 'ref', value: link.value })).toBe(link.id);
      // ...while a lookup under a key never cached goes to SQL and finds nothing.
      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value, program_id: org.program_id }));

      // An API change elsewhere (A creates a link with that value) refreshes the entry at once.
      const other = await createPartner(a, org);
      const fresh = await createLink(a, org, other, { param: 'ref', value: link.value });
      expect(await createClick(b, org, { param: 'ref', value: link.value })).toMatchObject({ link_id: fresh.id, partner_id: other.id });
      expect(await resolvesOn(b, { param: 'ref', value: link.value, program_id: org.program_id })).toBe(fresh.id);
    });

    it('drops a stale answer written just after a change (a lookup that raced it) within about a second', async () => {
      const link = await createLink(a, org, partner);
      await quiet(link);
      const stale = JSON.stringify([{ id: link.id, partner_id: partner.id, program_id: org.program_id }]);
      expect((await a.request.delete(`/v1/links/${link.id}`).set(org.auth)).status).toBe(200);
      // A lookup that read SQL before the delete committed writes its answer after the first invalidation.
      await b.deps.store.set(linkCacheKey(org.organization_id, null, 'ref', link.value), stale, 60_000);
      expect(await resolvesOn(b, { param: 'ref', value: link.value })).toBe(link.id);

      // The change's second delete drops it, within about a second.
      await expect.poll(() => cached(b, 'ref', link.value), { timeout: 1_300, interval: 20 }).toBeNull();
      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value }));
    });
  });

  describe('tenant isolation', () => {
    let otherOrg: TestOrg;
    let otherPartner: ApiObject;
    let link: ApiObject;

    beforeAll(async () => {
      otherOrg = await createOrganization(a);
      otherPartner = await createPartner(a, otherOrg);
      link = await createLink(a, org, partner);
      // Warm the first organization's lookup on both instances.
      expect(await resolvesOn(a, { param: 'ref', value: link.value })).toBe(link.id);
      expect(await resolvesOn(b, { param: 'ref', value: link.value, program_id: org.program_id })).toBe(link.id);
    });

    it('answers 404 to another organization for every link operation, changing nothing', async () => {
      for (const app of [a, b]) {
        expectError(await app.request.get(`/v1/links/${link.id}`).set(otherOrg.auth), 404, 'not_found_error');
        expectError(
          await app.request.put(`/v1/links/${link.id}`).set(otherOrg.auth).send({ value: uniqueLinkValue() }),
          404,
          'not_found_error',
        );
        expectError(await app.request.delete(`/v1/links/${link.id}`).set(otherOrg.auth), 404, 'not_found_error');
        expectError(
          await app.request.get(`/v1/links?program_id=${org.program_id}`).set(otherOrg.auth),
          404,
          'not_found_error',
          'program_id',
        );
        expectError(
          await app.request.post('/v1/links').set(otherOrg.auth).send({ param: 'ref', value: uniqueLinkValue(), partner_id: partner.id }),
          404,
          'not_found_error',
          'partner_id',
        );
      }
      const row = await a.storage.db.selectFrom('links').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ value: link.value, deleted_at: null, organization_id: org.organization_id });
      expect((await a.request.get(`/v1/links/${link.id}`).set(org.auth)).body.data[0]).toEqual(link);
    });

    it('does not let another organization click with the first one’s partner, link, program or param/value', async () => {
      const before = (
        await a.storage.db.selectFrom('clicks').select('id').where('organization_id', '=', otherOrg.organization_id).execute()
      ).length;
      for (const app of [a, b]) {
        expectError(await clickOn(app, { partner_id: partner.id }, otherOrg), 404, 'not_found_error', 'partner_id');
        expectError(await clickOn(app, { partner_id: otherPartner.id, link_id: link.id }, otherOrg), 404, 'not_found_error', 'link_id');
        expectError(
          await clickOn(app, { param: 'ref', value: link.value, program_id: org.program_id }, otherOrg),
          404,
          'not_found_error',
          'program_id',
        );
        expectLinkNotFound(await clickOn(app, { param: 'ref', value: link.value }, otherOrg));
        expectLinkNotFound(await clickOn(app, { param: 'ref', value: link.value, program_id: otherOrg.program_id }, otherOrg));
      }
      const after = (await a.storage.db.selectFrom('clicks').select('id').where('organization_id', '=', otherOrg.organization_id).execute())
        .length;
      expect(after).toBe(before);
    });

    it('keeps each organization’s link for the same param/value apart, cached or not', async () => {
      // The other organization's "not found" is now cached; creating its own link clears only its entry.
      const own = await createLink(a, otherOrg, otherPartner, { param: 'ref', value: link.value });
      expect(await createClick(b, otherOrg, { param: 'ref', value: link.value })).toMatchObject({
        link_id: own.id,
        partner_id: otherPartner.id,
        organization_id: otherOrg.organization_id,
      });
      expect(await createClick(b, org, { param: 'ref', value: link.value })).toMatchObject({
        link_id: link.id,
        partner_id: partner.id,
        organization_id: org.organization_id,
      });
      // Deleting one organization's link leaves the other's resolving.
      expect((await a.request.delete(`/v1/links/${own.id}`).set(otherOrg.auth)).status).toBe(200);
      expectLinkNotFound(await clickOn(b, { param: 'ref', value: link.value }, otherOrg));
      expect(await resolvesOn(b, { param: 'ref', value: link.value })).toBe(link.id);
    });
  });
});
