import { sql } from 'kysely';
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

describe.skipIf(STORAGE !== 'postgres')('two processes migrating one PostgreSQL database at once', () => {
  it('one runs every migration under the lock, the other waits and finds nothing to do', async () => {
    storage = await openTestStorage();
    // An empty database beside the migrated one.
    const empty = new URL(storage.databaseUrl!);
    empty.pathname += '_fresh';
    const name = empty.pathname.slice(1);
    await sql.raw(`create database ${name}`).execute(storage.db);
    const dbs = [openDatabase({ kind: 'postgres', url: empty.toString() }), openDatabase({ kind: 'postgres', url: empty.toString() })];
    try {
      const results = await Promise.all(dbs.map((db) => migrateToLatest(db)));
      const ran = results.map((r) => r.results?.length ?? 0).sort((a, b) => a - b);
      expect(ran).toEqual([0, names.length]);
      expect(await applied(dbs[0])).toEqual(names);
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
      await sql.raw(`drop database if exists ${name} with (force)`).execute(storage.db);
    }
  });
});
