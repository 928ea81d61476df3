import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { type Dialect, Kysely, type Migration, type MigrationResultSet, Migrator, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { type Config, MEMORY } from '../config.js';
import { isDeadlock } from './errors.js';
import { migrations } from './migrations/index.js';
import { requestScopedDialect } from './request-transaction.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

// Sums of cents come back as int8; they stay far below 2^53, so numbers are safe and simpler.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * How long a request waits for a PostgreSQL connection, new or from the pool, before it
 * answers 503: while PostgreSQL is unreachable, requests fail in this time instead of hanging.
 */
export const CONNECT_TIMEOUT_MS = 2000;

export interface OpenDatabaseOptions {
  /**
   * Told when an idle pooled connection fails (PostgreSQL restarted, the connection was
   * terminated). The pool drops that connection and opens a fresh one when next needed.
   */
  onIdleConnectionError?: (err: Error) => void;
}

export function openDatabase(database: Config['database'], options: OpenDatabaseOptions = {}): Db {
  if (database.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: database.url, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
    // Without listeners, a connection that ends (PostgreSQL restarted, the backend was
    // terminated) is thrown as an uncaught 'error' event and ends the process: the pool's for
    // idle clients, each client's own while it is checked out between two statements (the
    // next statement on it then fails, and the pool drops it when it is released).
    pool.on('error', (err) => options.onIdleConnectionError?.(err));
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = withRequestScope(new PostgresDialect({ pool }));
    pools.set(db, pool);
    return db;
  }
  if (database.dataDir !== MEMORY) return openPgliteDirectory(database.dataDir).db;
  return pgliteDb(createPglite({ dataDir: database.dataDir }));
}

const pools = new WeakMap<Db, pg.Pool>();

/** The connection pool under a PostgreSQL database (its counts are metrics); undefined for PGlite, which has none. */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

/** PGlite on a data directory (made if missing) and the database over it; backups need the PGlite itself. */
export function openPgliteDirectory(dataDir: string): { db: Db; pglite: PGlite } {
  fs.mkdirSync(dataDir, { recursive: true });
  const pglite = createPglite({ dataDir });
  return { db: pgliteDb(pglite), pglite };
}

/** Every database is opened through the request-scoped driver (request-transaction.ts). */
function withRequestScope(dialect: Dialect): Db {
  const scoped = requestScopedDialect(dialect);
  const db = new Kysely<Database>({ dialect: scoped.dialect });
  scoped.register(db);
  return db;
}

const require = createRequire(import.meta.url);

/**
 * PostgreSQL's settings for the embedded database. Its shared buffers live in PGlite's
 * WebAssembly memory, which PostgreSQL touches whole at start and never gives back: the default
 * 128 MB was a third of an idle `npm start`. 16 MB hold the hot pages of a small program; the
 * rest are read from the data directory through the OS page cache (ingest/README.md#memory).
 */
const PGLITE_SETTINGS = ['shared_buffers = 16MB'];

/**
 * An embedded PostgreSQL with the extensions the migrations use. PGlite is loaded on first use,
 * so a service on PostgreSQL never carries it in memory.
 */
export function createPglite(options: PGliteOptions): PGlite {
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as typeof import('@electric-sql/pglite/contrib/pg_trgm');
  return new PGlite({ postgresqlconf: PGLITE_SETTINGS, ...options, extensions: { pg_trgm } });
}

export function pgliteDb(pglite: PGlite): Db {
  return withRequestScope(new PGliteDialect(pglite));
}

export interface MigrateOptions {
  /** Told once when the database holds migrations of a newer release (ingest/docs/upgrades.md). */
  onNewerSchema?: (newer: string[]) => void;
  /** Told each time the migrations gave way to the running traffic's locks and will run again after `waitMs`. */
  onGaveWay?: (attempt: number, waitMs: number, reason: string) => void;
  /** The migrations this release knows; a test passes fewer to play an older release. */
  known?: Record<string, Migration>;
}

/**
 * Migrates to this release's latest schema under kysely's lock (ingest/docs/upgrades.md#how-migrations-run).
 * A database that a newer release already migrated further is accepted, so that a process of
 * the previous release can restart during a rolling upgrade.
 */
export async function migrateToLatest(
  db: Db,
  { onNewerSchema, onGaveWay, known = migrations }: MigrateOptions = {},
): Promise<MigrationResultSet> {
  for (let newer = await newerMigrationsApplied(db, known), attempt = 1; ; attempt++) {
    const timeoutMs = Math.min(MAX_LOCK_WAIT_MS, FIRST_LOCK_WAIT_MS * 2 ** (attempt - 1));
    const provider = { getMigrations: async () => ({ ...waitingAtMost(known, timeoutMs), ...appliedElsewhere(newer) }) };
    const result = await new Migrator({ db, provider }).migrateToLatest();
    if (!result.error) {
      if (newer.length > 0) onNewerSchema?.(newer);
      return result;
    }
    // A table lock the running traffic held too long, or a deadlock with it: the whole
    // transaction was rolled back, so it runs again after a pause.
    if (isLockConflict(result.error) && attempt < MIGRATION_ATTEMPTS) {
      onGaveWay?.(attempt, timeoutMs, (result.error as Error).message);
      await new Promise((resolve) => setTimeout(resolve, timeoutMs));
      continue;
    }
    // A newer process may have migrated between that read and the lock: read again, once more
    // for each migration it added; an unchanged answer (or none) means the refusal stands.
    const again = await newerMigrationsApplied(db, known).catch(() => newer);
    if (again.length === newer.length) throw result.error;
    newer = again;
  }
}

/**
 * How long a migration waits for each table lock (its `lock_timeout`), doubled at each attempt up
 * to the most: always under PostgreSQL's `deadlock_timeout` (1 s by default), so in a deadlock
 * with the running processes' traffic the migration gives up first and the traffic is served
 * (ingest/docs/upgrades.md#how-migrations-run).
 */
const FIRST_LOCK_WAIT_MS = 50;
const MAX_LOCK_WAIT_MS = 800;
/** How many times a migration that could not take its locks is run (about 20 s in all). */
const MIGRATION_ATTEMPTS = 30;

const LOCK_NOT_AVAILABLE = '55P03';
const isLockConflict = (err: unknown) => isDeadlock(err) || (err as { code?: string } | null)?.code === LOCK_NOT_AVAILABLE;

/** The migrations, each waiting at most `timeoutMs` for a lock (`set local`: until the migration transaction ends). */
function waitingAtMost(known: Record<string, Migration>, timeoutMs: number): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(known).map(([name, m]) => [
      name,
      {
        ...m,
        up: async (trx) => {
          await sql`select set_config('lock_timeout', ${`${timeoutMs}ms`}, true)`.execute(trx);
          await m.up(trx);
        },
      },
    ]),
  );
}

/**
 * The migrations the database records that sort after every one this release knows: a newer
 * release's. An unknown name among this release's own is not one of them: kysely then refuses
 * the database as corrupted, as it does one that lacks a migration this release knows.
 */
async function newerMigrationsApplied(db: Db, known: Record<string, Migration>): Promise<string[]> {
  const exists = await sql<{ found: boolean }>`select to_regclass('kysely_migration') is not null as found`.execute(db);
  if (!exists.rows[0].found) return [];
  const last = Object.keys(known).sort().at(-1) ?? '';
  const applied = await sql<{
    name: string;
  }>`select name from kysely_migration where name collate "C" > ${last} order by name collate "C"`.execute(db);
  return applied.rows.map((r) => r.name);
}

/** Stand-ins for migrations another release applied: kysely counts them as run, and never runs them. */
function appliedElsewhere(names: string[]): Record<string, Migration> {
  return Object.fromEntries(names.map((name) => [name, { up: async () => {} }]));
}

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface WaitOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Told before each wait, with the error of the attempt that failed. */
  onRetry(info: { attempt: number; delayMs: number; error: unknown }): void;
}

/**
 * Waits until the database answers, with backoff: a service started with (or just before)
 * its database, as orchestrators do, waits instead of crashing. Throws the last error when
 * `timeoutMs` has passed.
 */
export async function waitForDatabase(db: Db, { timeoutMs, onRetry }: WaitOptions): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await pingDatabase(db);
    } catch (error) {
      const left = deadline - Date.now();
      if (left <= 0) throw error;
      const delayMs = Math.min(left, 250 * 2 ** Math.min(attempt - 1, 4));
      onRetry({ attempt, delayMs, error });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
