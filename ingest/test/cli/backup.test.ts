import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.js';
import { type Db, migrateToLatest, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { randomBase62 } from '../../src/ids.js';
import { STORAGE } from '../support/harness.js';
import { cleanEnv, collect, ROOT, runSvc, SVC_BIN, waitUntilHealthy } from '../support/svc-process.js';

/**
 * `svc backup` and `svc restore` as child processes, beside a real service under load, on the
 * storage setup of the vitest project: PGlite data directories (embedded), or throwaway
 * PostgreSQL databases (ingest/docs/backups.md).
 */

const SLOW = 60_000;
const ON_POSTGRES = STORAGE === 'postgres';

/** One place svc keeps its data: an SVC_DATA_DIR, and on PostgreSQL a database of its own. */
interface Place {
  env: Record<string, string>;
  dataDir: string;
  databaseUrl?: string;
}

interface Service {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startService(place: Place): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [SVC_BIN, 'serve'], {
    cwd: ROOT,
    env: cleanEnv({ ...place.env, PORT: String(port), HOST: '127.0.0.1', SVC_API_RATE_LIMIT: '100000' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = collect(child);
  const base = `http://127.0.0.1:${port}`;
  await waitUntilHealthy(base, child);
  return {
    base,
    child,
    async stop() {
      child.kill('SIGTERM');
      await run;
    },
  };
}

/** The place's database, opened in this process (a PGlite directory only while no svc holds it). */
async function withDb<T>(place: Place, work: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(
    place.databaseUrl ? { kind: 'postgres', url: place.databaseUrl } : { kind: 'pglite', dataDir: path.join(place.dataDir, 'pglite') },
  );
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const idsIn = async (db: Db, table: 'partners' | 'clicks') => new Set((await db.selectFrom(table).select('id').execute()).map((r) => r.id));

const appliedMigrations = async (db: Db) =>
  (await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(db)).rows[0].n;

/**
 * What a place looks like from outside: its tables and partners (PostgreSQL), or its files, with
 * their times while no svc runs on it (a running one may write on its own: its jobs).
 */
async function fingerprint(place: Place, running = false): Promise<string> {
  if (place.databaseUrl) {
    return withDb(place, async (db) => {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_class where relnamespace = 'public'::regnamespace`.execute(db);
      const partners = await db
        .selectFrom('partners')
        .select(db.fn.countAll<number>().as('n'))
        .executeTakeFirst()
        .catch(() => null);
      return JSON.stringify({ relations: rows[0].n, partners: partners?.n ?? null });
    });
  }
  const dir = path.join(place.dataDir, 'pglite');
  const files = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const stats = await Promise.all(files.sort().map(async (f) => [f, running ? 0 : (await fs.stat(path.join(dir, f))).mtimeMs]));
  return JSON.stringify(stats);
}

describe('svc backup and restore', () => {
  let work: string;
  const databases: string[] = [];
  const services: Service[] = [];
  let adminDb: Db | undefined;

  async function place(label: string): Promise<Place> {
    const dataDir = path.join(work, label);
    if (!ON_POSTGRES) return { env: { SVC_DATA_DIR: dataDir }, dataDir };
    const name = `svc_test_${randomBase62(10).toLowerCase()}_${label}`;
    await sql.raw(`create database ${name}`).execute(adminDb!);
    databases.push(name);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    return { env: { SVC_DATA_DIR: dataDir, DATABASE_URL: url.toString() }, dataDir, databaseUrl: url.toString() };
  }

  let source: Place;
  let copy: Place;
  let backupFile: string;
  let acknowledgedBefore: { partners: string[]; clicks: string[] };

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-backup-'));
    if (ON_POSTGRES) adminDb = openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL! });
    source = await place('source');
    copy = await place('copy');
    backupFile = path.join(work, 'svc.backup');
  });

  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.stop()));
    for (const name of databases) await sql.raw(`drop database if exists ${name} with (force)`).execute(adminDb!);
    await adminDb?.destroy();
    await fs.rm(work, { recursive: true, force: true });
  });

  it(
    'a backup taken under load holds every write answered before it; svc serves the restored copy with the same key',
    async () => {
      const service = await startService(source);
      services.push(service);
      const boot = JSON.parse(await fs.readFile(path.join(source.dataDir, 'bootstrap.json'), 'utf8'));
      const call = async (route: string, body: unknown) => {
        const res = await fetch(`${service.base}${route}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${boot.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const { data } = (await res.json()) as { data?: { id: string } | { id: string }[] };
        // Clicks answer a list of one (the Partnership Program API), the rest the object.
        return { status: res.status, id: (Array.isArray(data) ? data[0]?.id : data?.id) ?? '' };
      };
      const alice = await call('/v1/partners', {
        program_id: boot.program_id,
        first_name: 'Alice',
        last_name: 'A',
        email: 'alice@example.com',
      });
      expect(alice.status).toBe(201);

      const link = await call('/v1/links', { param: 'ref', value: 'alice', partner_id: alice.id });
      expect(link.status).toBe(201);

      // Writers keep partners and clicks coming until told to stop; each 2xx is noted with
      // whether it was answered before the backup command started.
      let backupStarted = false;
      let stop = false;
      const before = { partners: [] as string[], clicks: [] as string[] };
      let duringOrAfter = 0;
      let n = 0;
      const note = (kind: 'partners' | 'clicks', id: string) => (backupStarted ? duringOrAfter++ : before[kind].push(id));
      const writer = async () => {
        while (!stop) {
          const i = n++;
          const partner = await call('/v1/partners', {
            program_id: boot.program_id,
            first_name: `P${i}`,
            last_name: 'Load',
            email: `p${i}@example.com`,
          });
          if (partner.status === 201) note('partners', partner.id);
          const click = await call('/v1/clicks', { param: 'ref', value: 'alice' });
          if (click.status < 300) note('clicks', click.id);
          // Paced, so that the load leaves the 2-core machine's CPU to the backup beside it.
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const writers = [writer(), writer()];
      while (before.partners.length < 10) await new Promise((r) => setTimeout(r, 20));

      backupStarted = true;
      const backup = await runSvc(source.env, 'backup', backupFile);
      const duringBackup = duringOrAfter;
      stop = true;
      await Promise.all(writers);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(ON_POSTGRES ? /pg_dump custom format/ : /through the running service/);
      expect(duringBackup, 'writes went on while the backup ran').toBeGreaterThan(0);
      // Personal data and the keys' hashes: readable by its owner only.
      expect((await fs.stat(backupFile)).mode & 0o777).toBe(0o600);
      acknowledgedBefore = before;

      const restore = await runSvc(copy.env, 'restore', backupFile);
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);

      const restored = await startService(copy);
      services.push(restored);
      const programs = await fetch(`${restored.base}/v1/programs`, { headers: { authorization: `Bearer ${boot.api_key}` } });
      expect(programs.status).toBe(200);
      await restored.stop();
      await withDb(copy, async (db) => {
        const partners = await idsIn(db, 'partners');
        const clicks = await idsIn(db, 'clicks');
        expect(before.partners.filter((id) => !partners.has(id))).toEqual([]);
        expect(before.clicks.filter((id) => !clicks.has(id))).toEqual([]);
        expect(before.clicks.length).toBeGreaterThan(0);
      });
    },
    SLOW,
  );

  it(
    'refuses a non-empty target, a file that is not a backup, an existing file and (embedded) a command beside the running service (exit 2, one line), changing nothing',
    async () => {
      expect(acknowledgedBefore, 'needs the backup of the first test').toBeDefined();
      const empty = await place('empty');
      const notABackup = path.join(work, 'notes.txt');
      await fs.writeFile(notABackup, 'hello, this is not a backup\n');
      // The source still serves; the copy is stopped and filled; the last place is empty.
      const cases = [
        { target: source, running: true, args: ['restore', backupFile], refusal: /not empty|holds|fills an empty/ },
        { target: copy, running: false, args: ['restore', backupFile], refusal: /not empty|holds|fills an empty/ },
        { target: empty, running: false, args: ['restore', notABackup], refusal: /^svc: .*notes\.txt is not an svc backup/ },
        { target: source, running: true, args: ['backup', backupFile], refusal: /exists: svc backup never overwrites a file/ },
        // Embedded: another command beside the running service would write PGlite's files under it.
        ...(ON_POSTGRES
          ? []
          : [
              {
                target: source,
                running: true,
                args: ['keys', 'create', '--name', 'beside'],
                refusal: /a running svc holds this data directory/,
              },
            ]),
      ];
      const before = await Promise.all(cases.map((c) => fingerprint(c.target, c.running)));
      // Side by side: each is a process start, and none changes anything.
      const runs = await Promise.all(cases.map((c) => runSvc(c.target.env, ...c.args)));
      for (const [i, run] of runs.entries()) {
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(cases[i].refusal);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(await fingerprint(cases[i].target, cases[i].running)).toBe(before[i]);
      }
    },
    SLOW,
  );

  it(
    'a backup of a stopped database of an older version restores, and is migrated to the latest',
    async () => {
      expect(acknowledgedBefore, 'needs the restored copy of the first test').toBeDefined();
      // The copy, stopped, taken one migration back: a database an older svc left.
      const names = Object.keys(migrations);
      await withDb(copy, async (db) => {
        const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateDown();
        expect(error).toBeUndefined();
        expect(await appliedMigrations(db)).toBe(names.length - 1);
      });
      const file = path.join(work, 'older.backup');
      const backup = await runSvc(copy.env, 'backup', file);
      expect(backup.stderr).toBe('');
      if (!ON_POSTGRES) expect(backup.stdout).toMatch(/from the stopped data directory/);

      const target = await place('newer');
      const restore = await runSvc(target.env, 'restore', file);
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      await withDb(target, async (db) => {
        expect(await appliedMigrations(db)).toBe(names.length);
        // Migrating again finds nothing to do: the restore left the schema at the latest.
        expect((await migrateToLatest(db)).results).toEqual([]);
        expect((await idsIn(db, 'partners')).size).toBeGreaterThan(acknowledgedBefore.partners.length);
      });
    },
    SLOW,
  );
});
