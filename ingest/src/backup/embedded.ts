import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type Config, MEMORY } from '../config.js';
import { createPglite, type Db, migrateToLatest, openPgliteDirectory, pgliteDb } from '../db/database.js';
import { createDataDir, isNewDataDir } from '../db/new-data-dir.js';
import { hasMigrationTable } from './backup.repository.js';
import { backupFromHolder, claimDirectory } from './directory-claim.js';
import { BackupFailure, BackupRefusal } from './errors.js';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/**
 * A consistent copy of a PGlite database, taken while it serves: PGlite runs one statement at a
 * time on one connection, so holding that connection keeps every request out while a CHECKPOINT
 * writes what is committed to the data files and `dumpDataDir` copies them (a read of the files
 * in one synchronous step). Requests wait that long (ingest/docs/backups.md#embedded-pglite);
 * the compression happens after the connection is given back.
 */
export async function dumpEmbedded(db: Db, pglite: PGlite): Promise<{ bytes: Buffer; heldMs: number }> {
  let heldMs = 0;
  const tar = await db.connection().execute(async (connection) => {
    const held = Date.now();
    await sql`checkpoint`.execute(connection);
    const dump = await pglite.dumpDataDir('none');
    heldMs = Date.now() - held;
    return dump;
  });
  return { bytes: await gzip(Buffer.from(await tar.arrayBuffer())), heldMs };
}

/**
 * The running service's side: holds the data directory for its lifetime and answers `svc backup`
 * through the claim's socket. Null for PostgreSQL and for `SVC_DATA_DIR=memory://`.
 */
export async function openHeldPglite(database: Config['database'], logger: Logger): Promise<{ db: Db; release(): Promise<void> } | null> {
  if (database.kind !== 'pglite' || database.dataDir === MEMORY) return null;
  const claim = await claimDirectory(database.dataDir);
  if (!claim) {
    throw new Error(
      `another process holds the data directory ${database.dataDir} (a running svc, or svc backup/restore): PGlite serves one process at a time`,
    );
  }
  if (isNewDataDir(database.dataDir)) {
    logger.info({ dataDir: database.dataDir }, 'creating the embedded database');
    await createDataDir(database.dataDir);
  }
  const { db, pglite } = openPgliteDirectory(database.dataDir);
  claim.answerBackups(async () => {
    const started = Date.now();
    const { bytes, heldMs } = await dumpEmbedded(db, pglite);
    logger.info({ bytes: bytes.length, ms: Date.now() - started, requestsHeldMs: heldMs }, 'backup taken for svc backup');
    return bytes;
  });
  return { db, release: () => claim.release() };
}

/** `svc backup` on the embedded setup: through the running service, else from the stopped directory. */
export async function backupEmbedded(pgliteDir: string, file: string): Promise<'service' | 'directory'> {
  if (isNewDataDir(pgliteDir)) throw new BackupRefusal(`no database in ${pgliteDir}: nothing to back up (is SVC_DATA_DIR right?)`);
  const claim = await claimDirectory(pgliteDir);
  if (!claim) {
    await backupFromHolder(pgliteDir, file);
    return 'service';
  }
  try {
    const { db, pglite } = openPgliteDirectory(pgliteDir);
    try {
      await fs.writeFile(file, (await dumpEmbedded(db, pglite)).bytes);
    } finally {
      await db.destroy();
    }
    return 'directory';
  } finally {
    await claim.release();
  }
}

/**
 * `svc restore` on the embedded setup: fills an empty (or missing) PGlite directory from a
 * backup and migrates it. The database is built in a folder beside the target and moved into
 * place once whole, so a refused or failed restore leaves the target as it was.
 */
export async function restoreEmbedded(pgliteDir: string, file: string): Promise<void> {
  const claim = await claimDirectory(pgliteDir);
  if (!claim) throw new BackupRefusal(`a running svc holds ${pgliteDir}: restore fills an empty data directory only`);
  try {
    await refuseFilled(pgliteDir);
    const tar = await readArchive(file);
    const staging = await fs.mkdtemp(`${pgliteDir}.restoring-`);
    try {
      await loadAndMigrate(staging, tar, file);
      // rename() replaces an empty directory, and fails on one that filled meanwhile.
      await fs.rename(staging, pgliteDir);
    } catch (err) {
      await fs.rm(staging, { recursive: true, force: true });
      throw err;
    }
  } finally {
    await claim.release();
  }
}

async function refuseFilled(pgliteDir: string): Promise<void> {
  const entries = await fs.readdir(pgliteDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw new BackupFailure(`cannot read ${pgliteDir}: ${err.message}`);
  });
  if (entries.length > 0) {
    throw new BackupRefusal(`${pgliteDir} is not empty: restore fills an empty data directory only (set SVC_DATA_DIR to a new one)`);
  }
}

/** The tar inside a backup file; refuses what is not a gzip-compressed tar. */
async function readArchive(file: string): Promise<Buffer> {
  let tar: Buffer;
  try {
    tar = await gunzip(await fs.readFile(file));
  } catch (err) {
    throw new BackupRefusal(`${file} is not an svc backup: ${(err as Error).message}`);
  }
  // Every tar header carries "ustar" at byte 257.
  if (tar.subarray(257, 262).toString('latin1') !== 'ustar') throw new BackupRefusal(`${file} is not an svc backup: not a tar archive`);
  return tar;
}

async function loadAndMigrate(dir: string, tar: Buffer, file: string): Promise<void> {
  let pglite: PGlite;
  try {
    pglite = createPglite({ dataDir: dir, loadDataDir: new Blob([new Uint8Array(tar)]) });
    await pglite.waitReady;
  } catch (err) {
    throw new BackupRefusal(`${file} is not an svc backup: PGlite cannot start on it (${(err as Error).message})`);
  }
  const db = pgliteDb(pglite);
  try {
    if (!(await hasMigrationTable(db))) throw new BackupRefusal(`${file} is not an svc backup: it holds no svc database`);
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
