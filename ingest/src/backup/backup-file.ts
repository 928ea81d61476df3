import fs from 'node:fs/promises';
import path from 'node:path';
import { BackupFailure, BackupRefusal } from './errors.js';

/**
 * What a backup file holds, told by its first bytes: `postgres` is pg_dump's custom format
 * (`PGDMP`), `embedded` a gzip-compressed tar of a PGlite data directory (ingest/docs/backups.md#the-files).
 */
export type BackupKind = 'postgres' | 'embedded';

const PG_DUMP_MAGIC = Buffer.from('PGDMP');
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/** The kind of backup `file` is; refuses a missing file and one that is neither kind. */
export async function backupKindOf(file: string): Promise<BackupKind> {
  let head: Buffer;
  try {
    const handle = await fs.open(file, 'r');
    try {
      head = Buffer.alloc(PG_DUMP_MAGIC.length);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new BackupRefusal(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (head.subarray(0, PG_DUMP_MAGIC.length).equals(PG_DUMP_MAGIC)) return 'postgres';
  if (head.subarray(0, GZIP_MAGIC.length).equals(GZIP_MAGIC)) return 'embedded';
  throw new BackupRefusal(`${file} is not an svc backup (neither pg_dump's custom format nor a PGlite data directory archive)`);
}

/** Refuses before any work when `file` exists or its folder does not: a backup never replaces a file. */
export async function refuseExisting(file: string): Promise<void> {
  const folder = await fs.stat(path.dirname(path.resolve(file))).catch(() => null);
  if (!folder?.isDirectory()) throw new BackupRefusal(`${path.dirname(path.resolve(file))} is not a directory: create it first`);
  const exists = await fs.stat(file).then(
    () => true,
    () => false,
  );
  if (exists) throw new BackupRefusal(`${file} exists: svc backup never overwrites a file; choose a new name`);
}

/**
 * Writes a backup under its final name only once it is whole: `write` fills a temporary file
 * beside it, which is then linked to `file` (a link fails rather than replace a file that
 * appeared meanwhile). A failed or interrupted backup leaves no file that looks complete.
 */
export async function writeWhole(file: string, write: (tmp: string) => Promise<void>): Promise<void> {
  await refuseExisting(file);
  const tmp = `${file}.partial-${process.pid}`;
  try {
    // A backup holds every partner's personal data and the keys' hashes: readable by its owner
    // only, whatever the umask (pg_dump and the writers below keep an existing file's mode).
    await fs.writeFile(tmp, '', { mode: 0o600, flag: 'wx' });
    await write(tmp);
    await fs.link(tmp, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') throw new BackupRefusal(`${file} appeared while the backup ran: it is left as it was`);
      throw new BackupFailure(`cannot write ${file}: ${err.message}`);
    });
  } finally {
    await fs.rm(tmp, { force: true });
  }
}
