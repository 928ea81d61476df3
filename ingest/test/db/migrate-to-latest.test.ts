import { type Migration, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Db, migrateToLatest, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { openTestStorage, STORAGE, type TestStorage } from '../support/harness.js';

/**
 * The migration runner during a rolling upgrade (ingest/docs/upgrades.md#how-migrations-run): a
 * process of the previous release starts on a database this release migrated; a database that
 * lacks one of a release's own migrations is still refused; two processes migrating at once
 * run each migration once.
 */

const names = Object.keys(migrations).sort();
/** The previous release, as far as migrations go: every one but the last. */
const previous = Object.fromEntries(names.slice(0, -1).map((n) => [n, migrations[n]]));
const newest = names.at(-1)!;

let storage: TestStorage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

const applied = async (db: Db) =>
  (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows.map((r) => r.name);

describe('migrateToLatest on a database a newer release migrated', () => {
  it('an older release accepts it, runs nothing and says so once', async () => {
    storage = await openTestStorage();
    const told: string[][] = [];
    const result = await migrateToLatest(storage.db, { known: previous, onNewerSchema: (newer) => told.push(newer) });
    expect(result.results).toEqual([]);
    expect(told).toEqual([[newest]]);
    expect(await applied(storage.db)).toEqual(names);
    // This release, on the same database, has nothing newer to report.
    await migrateToLatest(storage.db, { onNewerSchema: (newer) => told.push(newer) });
    expect(told).toHaveLength(1);
  });

  it('refuses one that lacks a migration of its own, even when ahead', async () => {
    storage = await openTestStorage();
    const lacking = names.at(-2)!;
    await sql`delete from kysely_migration where name = ${lacking}`.execute(storage.db);
    await expect(migrateToLatest(storage.db, { known: previous })).rejects.toThrow(/corrupted migrations/);
    // And so does this release: its missing migration sorts before one already run.
    await expect(migrateToLatest(storage.db)).rejects.toThrow(/corrupted migrations/);
    expect(await applied(storage.db)).toEqual(names.filter((n) => n !== lacking));
  });

  it('refuses an unknown migration among its own (not a newer release: a corruption)', async () => {
    storage = await openTestStorage();
    await sql`insert into kysely_migration (name, timestamp) values ('0001_zz_unknown', ${new Date().toISOString()})`.execute(storage.db);
    await expect(migrateToLatest(storage.db, { known: previous })).rejects.toThrow(/0001_zz_unknown is missing/);
  });
});

describe.skipIf(STORAGE !== 'postgres')('migrating a PostgreSQL database others use', () => {
  /** An empty database beside the test's own, opened `count` times (each its own pool), dropped after `use`. */
  async function withFreshDatabase(count: number, use: (dbs: Db[]) => Promise<void>): Promise<void> {
    storage = await openTestStorage();
    const empty = new URL(storage.databaseUrl!);
    empty.pathname += '_fresh';
    const name = empty.pathname.slice(1);
    await sql.raw(`create database ${name}`).execute(storage.db);
    const dbs = Array.from({ length: count }, () => openDatabase({ kind: 'postgres', url: empty.toString() }));
    try {
      await use(dbs);
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
      await sql.raw(`drop database if exists ${name} with (force)`).execute(storage.db);
    }
  }

  it('two processes at once: one runs every migration under the lock, the other waits and finds nothing to do', async () => {
    await withFreshDatabase(2, async (dbs) => {
      const results = await Promise.all(dbs.map((db) => migrateToLatest(db)));
      const ran = results.map((r) => r.results?.length ?? 0).sort((a, b) => a - b);
      expect(ran).toEqual([0, names.length]);
      expect(await applied(dbs[0])).toEqual(names);
    });
  });

  it('a migration gives way to a lock the traffic holds, says so, and runs once the lock is gone', async () => {
    // A next release's migration that needs a lock every writer of clicks conflicts with (as an index on clicks does).
    const next = '9999_waits_for_writers';
    const withNext: Record<string, Migration> = {
      ...migrations,
      [next]: {
        up: async (db) => {
          await sql`lock table clicks in share mode`.execute(db);
        },
      },
    };
    await withFreshDatabase(2, async ([traffic, upgrading]) => {
      await migrateToLatest(upgrading);
      const gaveWay: number[] = [];
      let migrating: Promise<unknown> | undefined;
      try {
        await traffic.transaction().execute(async (trx) => {
          // What a running process's insert into clicks holds until its transaction ends.
          await sql`lock table clicks in row exclusive mode`.execute(trx);
          migrating = migrateToLatest(upgrading, { known: withNext, onGaveWay: (attempt) => gaveWay.push(attempt) });
          await expect.poll(() => gaveWay.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
          expect(await applied(trx)).toEqual(names);
        });
        await migrating;
      } finally {
        // A failure above leaves the runner retrying: it ends before its database is dropped.
        await migrating?.catch(() => {});
      }
      expect(gaveWay.slice(0, 2)).toEqual([1, 2]);
      expect(await applied(traffic)).toEqual([...names, next]);
    });
  });
});
