import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createPglite, migrateToLatest, openDatabase, pgliteDb, waitForDatabase } from '../../src/db/database.js';
import { randomBase62 } from '../../src/ids.js';

/**
 * Creating and migrating a database costs seconds; every test file instead starts from a
 * migrated copy made once here (the same migrations, so nothing is skipped): a PGlite dump for
 * the embedded setup and, when DATABASE_URL is set, a PostgreSQL template database that each
 * file's throwaway database is created from.
 */
export default async function setup({ provide }: TestProject) {
  let made: [string, (() => Promise<void>) | undefined];
  try {
    // The two templates are made side by side: PGlite keeps a core busy while PostgreSQL migrates.
    made = await Promise.all([
      createPgliteTemplate(provide),
      process.env.DATABASE_URL ? createPostgresTemplate(process.env.DATABASE_URL, provide) : undefined,
    ]);
  } catch (err) {
    // vitest 4.1 answers a global setup that throws with "No test files found" and exit code 0:
    // a run that tested nothing would pass. It ends here, failed, instead.
    console.error('The API suite could not make its migrated templates:', err);
    process.exit(1);
  }
  const [dir, dropTemplate] = made;
  return async () => {
    await fs.rm(dir, { recursive: true, force: true });
    await dropTemplate?.();
  };
}

async function createPgliteTemplate(provide: TestProject['provide']): Promise<string> {
  const pglite = createPglite({ dataDir: 'memory://' });
  const db = pgliteDb(pglite);
  await migrateToLatest(db);
  const dump = await pglite.dumpDataDir('none');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-pglite-template-'));
  const file = path.join(dir, 'migrated.tar');
  await fs.writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  provide('pgliteTemplate', file);
  return dir;
}

async function createPostgresTemplate(adminUrl: string, provide: TestProject['provide']) {
  const name = `svc_test_template_${randomBase62(12).toLowerCase()}`;
  const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminUrl, max: 1 }) }) });
  await sql.raw(`create database ${name}`).execute(admin);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openDatabase({ kind: 'postgres', url: url.toString() });
  // A connection is given 2 s (CONNECT_TIMEOUT_MS); a machine busy at the start of a run may need more.
  await waitForDatabase(db, { timeoutMs: 30_000, onRetry: () => {} });
  await migrateToLatest(db);
  // No connection may stay open on a template while databases are created from it.
  await db.destroy();
  provide('postgresTemplate', name);
  return async () => {
    await sql.raw(`drop database if exists ${name} with (force)`).execute(admin);
    await admin.destroy();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}
