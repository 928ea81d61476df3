import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationResultSet } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import fs from 'node:fs';
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
  const pglite = new PGlite(database.dataDir);
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
