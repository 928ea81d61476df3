import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { migrateToLatest, openDatabase } from '../db/database.js';
import { countUserRelations } from './backup.repository.js';
import { BackupFailure, BackupRefusal } from './errors.js';

type PgTool = 'pg_dump' | 'pg_restore';

/** Where Debian and Ubuntu install each major version's client tools beside the PATH wrapper. */
const DEBIAN_VERSIONS_DIR = '/usr/lib/postgresql';

/** Folders searched for the client tools: PATH first, then Debian's per-version ones, newest first. */
export function toolFolders(pathVariable = process.env.PATH ?? '', versionsDir = DEBIAN_VERSIONS_DIR): string[] {
  let versions: string[] = [];
  try {
    versions = fs.readdirSync(versionsDir).filter((v) => /^\d+$/.test(v));
  } catch {
    // No Debian layout here.
  }
  versions.sort((a, b) => Number(b) - Number(a));
  return [...pathVariable.split(path.delimiter).filter(Boolean), ...versions.map((v) => path.join(versionsDir, v, 'bin'))];
}

/** The tool's path; exit 1 saying what to install when it is nowhere. */
export function findTool(tool: PgTool, folders = toolFolders()): string {
  for (const folder of folders) {
    const candidate = path.join(folder, tool);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  throw new BackupFailure(
    `${tool} is not installed: install PostgreSQL's client tools, of your server's major version or newer (Debian and Ubuntu: apt-get install postgresql-client)`,
  );
}

/**
 * DATABASE_URL as libpq takes it: the URL without its password, which goes in PGPASSWORD
 * instead, so that it shows in no process list.
 */
export function libpqConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { dbname: u.toString(), env: password ? { PGPASSWORD: password } : {} };
}

/** Runs a client tool; its stderr becomes the failure's message. `-w`: never wait for a password prompt. */
function run(tool: PgTool, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const bin = findTool(tool);
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-w', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', (err) => reject(new BackupFailure(`${tool} could not run: ${err.message}`)));
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new BackupFailure(`${tool} failed: ${stderr.trim().split('\n').join(' / ') || `exit code ${code}`}`));
    });
  });
}

/** pg_dump's custom format (-Fc): one consistent snapshot of the database, while it serves. */
export async function dumpPostgres(url: string, file: string): Promise<void> {
  const { dbname, env } = libpqConnection(url);
  await run('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${dbname}`], env);
}

/** Refuses a pg_dump archive that pg_restore cannot read, or that holds no svc database. */
async function checkArchive(file: string): Promise<void> {
  let listing: string;
  try {
    listing = await run('pg_restore', ['--list', file], {});
  } catch (err) {
    if (err instanceof BackupFailure && err.message.startsWith('pg_restore failed')) {
      throw new BackupRefusal(`${file} is not a usable backup: ${err.message}`);
    }
    throw err;
  }
  if (!/ TABLE public kysely_migration /.test(listing)) throw new BackupRefusal(`${file} is not an svc backup: it holds no svc database`);
}

/**
 * Fills an empty database from a pg_dump archive in one transaction (a failure leaves it
 * empty), then migrates it as a start would. Ownership and grants are not restored: the
 * objects belong to DATABASE_URL's user, as if svc had created them.
 */
export async function restorePostgres(url: string, file: string): Promise<void> {
  await checkArchive(file);
  const db = openDatabase({ kind: 'postgres', url });
  try {
    const relations = await countUserRelations(db).catch((err: Error) => {
      throw new BackupFailure(`cannot reach the database: ${err.message}`);
    });
    if (relations > 0) {
      throw new BackupRefusal(
        `the database holds ${relations} tables, views or sequences: restore fills an empty database only (createdb a new one)`,
      );
    }
    const { dbname, env } = libpqConnection(url);
    await run('pg_restore', ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', `--dbname=${dbname}`, file], env);
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
