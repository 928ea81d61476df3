import fs from 'node:fs/promises';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { createPglite, type Db, migrateToLatest, pgliteDb } from '../../src/db/database.js';

/**
 * Migrated in-memory PGlite databases for the embedded test files, one worker's.
 *
 * Loading PGlite from the global setup's migrated dump costs about a second of a core (the
 * WebAssembly instance, its memory, the files unpacked), once per test file: a tenth of the
 * embedded half of the API suite. A file that is done gives its database back instead, and the
 * next file of the worker gets it emptied (every table truncated, its identities restarted, the
 * session reset), which is what a fresh copy of the dump holds. A database that a file changed
 * beyond its rows (its schema or migrations, a transaction left open) is closed, not reused: the
 * next file gets a fresh load.
 */

const idle: PGlite[] = [];
let migratedSchema: string | undefined;

/** A migrated, empty database: a reset one this worker's files gave back, else a fresh load. */
export async function takeMigratedPglite(): Promise<{ db: Db; giveBack(): Promise<void> }> {
  const pglite = idle.pop() ?? (await loadMigrated());
  const db = pgliteDb(pglite);
  migratedSchema ??= await schemaOf(db);
  return {
    db,
    async giveBack() {
      if (await emptied(db)) idle.push(pglite);
      // A database the file already shut down is closed twice: nothing to do.
      else if (!pglite.closed) await db.destroy();
    },
  };
}

/** A fresh load of the dump, migrated (a no-op unless a migration landed after the dump was made); a reused one was checked on its way back. */
async function loadMigrated(): Promise<PGlite> {
  const pglite = createPglite({ loadDataDir: new Blob([await fs.readFile(inject('pgliteTemplate'))]) });
  await migrateToLatest(pgliteDb(pglite));
  return pglite;
}

/** Empties the database for the next file; false when it can't be told apart from a fresh one. */
async function emptied(db: Db): Promise<boolean> {
  try {
    // Refused inside a transaction block: a file that left one open gets no reuse.
    await sql`discard all`.execute(db);
    if ((await schemaOf(db)) !== migratedSchema) return false;
    const { rows } = await sql<{ name: string }>`
      select quote_ident(relname) as name from pg_class
      where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') and relname not like 'kysely\_%'`.execute(db);
    await sql.raw(`truncate ${rows.map((r) => r.name).join(', ')} restart identity cascade`).execute(db);
    return true;
  } catch {
    return false;
  }
}

/** The schema's shape (relations, columns, constraints, indexes, triggers, functions, migrations) as one hash. */
async function schemaOf(db: Db): Promise<string> {
  const { rows } = await sql<{ shape: string }>`
    select md5(string_agg(x, E'\n' order by x)) as shape from (
      select 'r ' || relname || ' ' || relkind::text as x from pg_class where relnamespace = 'public'::regnamespace
      union all
      select 'a ' || attrelid::regclass || ' ' || attname || ' ' || format_type(atttypid, atttypmod) || ' ' || attnotnull
        || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped
      union all
      select 'c ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint
      where connamespace = 'public'::regnamespace
      union all
      select 'i ' || pg_get_indexdef(indexrelid) from pg_index i join pg_class c on c.oid = i.indrelid
      where c.relnamespace = 'public'::regnamespace
      union all
      select 't ' || tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text || ' ' || tgfoid::regprocedure from pg_trigger
      where not tgisinternal
      union all
      select 'f ' || oid::regprocedure || ' ' || md5(prosrc) from pg_proc where pronamespace = 'public'::regnamespace
      union all
      select 'm ' || name from kysely_migration
    ) shape`.execute(db);
  return rows[0].shape;
}
