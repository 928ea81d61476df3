import path from 'node:path';
import { type Config, MEMORY } from '../config.js';
import { backupKindOf, writeWhole } from './backup-file.js';
import { backupEmbedded, restoreEmbedded } from './embedded.js';
import { BackupRefusal } from './errors.js';
import { dumpPostgres, restorePostgres } from './postgres.js';

/** The database svc backup and restore work on, from the configuration (ingest/docs/backups.md). */
function target(config: Config): { kind: 'postgres'; url: string } | { kind: 'embedded'; dir: string } {
  if (config.database.kind === 'postgres') return { kind: 'postgres', url: config.database.url };
  if (config.database.dataDir === MEMORY) {
    throw new BackupRefusal(
      'SVC_DATA_DIR is memory://: the data lives in the service’s memory only, and there is nothing on disk to back up or restore',
    );
  }
  return { kind: 'embedded', dir: config.database.dataDir };
}

/** `svc backup FILE`: answers the line to print. */
export async function backupCommand(config: Config, file: string): Promise<string> {
  const where = target(config);
  const out = path.resolve(file);
  if (where.kind === 'postgres') {
    await writeWhole(out, (tmp) => dumpPostgres(where.url, tmp));
    return `Backed up the PostgreSQL database to ${out} (pg_dump custom format).`;
  }
  let from = '';
  await writeWhole(out, async (tmp) => {
    from = (await backupEmbedded(where.dir, tmp)) === 'service' ? 'through the running service' : 'from the stopped data directory';
  });
  return `Backed up ${where.dir} to ${out} (${from}).`;
}

/** `svc restore FILE`: answers the line to print. */
export async function restoreCommand(config: Config, file: string): Promise<string> {
  const where = target(config);
  const kind = await backupKindOf(file);
  if (where.kind === 'postgres') {
    if (kind !== 'postgres')
      throw new BackupRefusal(`${file} is an embedded (PGlite) backup: restore it with DATABASE_URL unset and SVC_DATA_DIR set`);
    await restorePostgres(where.url, file);
    return `Restored ${file} into the PostgreSQL database and migrated it.`;
  }
  if (kind !== 'embedded') throw new BackupRefusal(`${file} is a PostgreSQL (pg_dump) backup: restore it with DATABASE_URL set`);
  await restoreEmbedded(where.dir, file);
  return `Restored ${file} into ${where.dir} and migrated it.`;
}
