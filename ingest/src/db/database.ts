import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationResultSet } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Config } from '../config.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

// Sums of cents come back as int8; they stay far below 2^53, so numbers are safe and simpler.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function openDatabase(database: Config['database']): Db {
  if (database.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: database.url, max: 10 });
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  if (database.dataDir !== 'memory://') fs.mkdirSync(database.dataDir, { recursive: true });
  return pgliteDb(createPglite({ dataDir: database.dataDir }));
}

const require = createRequire(import.meta.url);

/**
 * An embedded PostgreSQL with the extensions the migrations use. PGlite is loaded on first use,
 * so a service on PostgreSQL never carries it in memory.
 */
export function createPglite(options: PGliteOptions): PGlite {
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as typeof import('@electric-sql/pglite/contrib/pg_trgm');
  return new PGlite({ ...options, extensions: { pg_trgm } });
}

export function pgliteDb(pglite: PGlite): Db {
  return new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
}

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
