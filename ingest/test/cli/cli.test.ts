import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs, freePort } from '../../bench/processes.js';
import { type Db, openDatabase } from '../../src/db/database.js';
import { sha256 } from '../../src/ids.js';
import { cleanEnv, collect, ROOT, type Run, runSvc, SVC_BIN, waitUntilHealthy } from '../support/svc-process.js';

/**
 * The real `svc` CLI and `npm start`, as child processes over an embedded PGlite data directory.
 * Every process start costs seconds (PGlite), so each suite shares one data directory (its tests
 * run in order) and the two suites run side by side. Children get a clean environment (no
 * DATABASE_URL / REDIS_URL), so they always use the embedded defaults; hence the file runs only
 * in the embedded vitest project.
 */

const SLOW = 90_000;

const svc = (dataDir: string, ...args: string[]): Promise<Run> => runSvc({ SVC_DATA_DIR: dataDir }, ...args);

/** Opens the (stopped) CLI's PGlite data directory in this process, to check what it wrote. */
async function withDataDir<T>(dataDir: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');

describe.skipIf(process.env.SVC_TEST_STORAGE === 'postgres').concurrent('svc command line', () => {
  const dirs: string[] = [];
  const mkdir = async (label: string) => {
    const d = await fs.mkdtemp(path.join(os.tmpdir(), `svc-cli-${label}-`));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  });

  describe('svc commands', () => {
    let dir: string;
    let first: { organization_id: string; program_id: string; group_id: string; api_key: string; public_key: string };
    let secondOrgId: string;
    beforeAll(async () => {
      dir = await mkdir('commands');
    });

    it.sequential(
      'svc migrate creates and migrates an empty embedded database',
      async () => {
        const run = await svc(dir, 'migrate');
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout.trim()).toBe('Database is up to date.');
        const tables = await withDataDir(dir, async (db) => {
          const orgs = await db.selectFrom('organizations').select('id').execute();
          const migrations = await db
            .selectFrom('kysely_migration' as never)
            .selectAll()
            .execute();
          return { orgs: orgs.length, migrations: migrations.length };
        });
        expect(tables.orgs).toBe(0);
        expect(tables.migrations).toBeGreaterThan(0);
        // Running it again is a no-op that still succeeds.
        const again = await svc(dir, 'migrate');
        expect(again.code, again.stderr).toBe(0);
      },
      SLOW,
    );

    it.sequential(
      'svc init --json prints exactly one JSON object with the ids, the keys and the owner, and nothing else',
      async () => {
        const run = await svc(dir, 'init', '--org', 'A', '--program', 'B', '--email', 'Owner.A@example.com', '--json');
        expect(run.code, run.stderr).toBe(0);
        expect(lines(run.stdout)).toHaveLength(1);
        const parsed = JSON.parse(run.stdout);
        expect(Object.keys(parsed).sort()).toEqual([
          'api_key',
          'group_id',
          'organization_id',
          'owner_email',
          'owner_password',
          'program_id',
          'public_key',
        ]);
        expect(parsed.owner_email).toBe('Owner.A@example.com');
        expect(parsed.owner_password).toMatch(/^[0-9A-Za-z]{20}$/);
        expect(parsed.organization_id).toMatch(/^org_[0-9A-Za-z]{24}$/);
        expect(parsed.program_id).toMatch(/^prg_[0-9A-Za-z]{24}$/);
        expect(parsed.group_id).toMatch(/^grp_[0-9A-Za-z]{24}$/);
        expect(parsed.api_key).toMatch(/^sk_[0-9A-Za-z]{32}$/);
        expect(parsed.public_key).toMatch(/^pk_[0-9A-Za-z]{24}$/);
        first = parsed;

        const stored = await withDataDir(dir, async (db) => ({
          org: await db.selectFrom('organizations').selectAll().where('id', '=', parsed.organization_id).executeTakeFirst(),
          program: await db.selectFrom('programs').selectAll().where('id', '=', parsed.program_id).executeTakeFirst(),
          groups: await db.selectFrom('groups').selectAll().where('program_id', '=', parsed.program_id).execute(),
          flows: await db.selectFrom('flows').selectAll().where('program_id', '=', parsed.program_id).execute(),
          keys: await db.selectFrom('api_keys').selectAll().where('organization_id', '=', parsed.organization_id).execute(),
          users: await db.selectFrom('users').selectAll().where('organization_id', '=', parsed.organization_id).execute(),
        }));
        // The password is stored as a scrypt hash only.
        expect(stored.users).toHaveLength(1);
        expect(stored.users[0]).toMatchObject({ email: 'Owner.A@example.com', role: 'owner' });
        expect(stored.users[0].password_hash).toMatch(/^scrypt\$32768\$8\$3\$/);
        expect(stored.users[0].password_hash).not.toContain(parsed.owner_password);
        expect(stored.org?.name).toBe('A');
        expect(stored.program).toMatchObject({ name: 'B', organization_id: parsed.organization_id, public_key: parsed.public_key });
        expect(stored.groups.map((g) => [g.id, g.is_default])).toEqual([[parsed.group_id, true]]);
        expect(stored.flows).toHaveLength(1);
        expect(stored.flows[0].is_default).toBe(true);
        expect(stored.keys).toHaveLength(1);
        expect(stored.keys[0].secret_hash).toBe(sha256(parsed.api_key));
        expect(JSON.stringify(stored.keys)).not.toContain(parsed.api_key);
      },
      SLOW,
    );

    it.sequential(
      'svc init without --json prints the ids and keys for people',
      async () => {
        const run = await svc(dir, 'init', '--org', 'Second org', '--program', 'Second program');
        expect(run.code, run.stderr).toBe(0);
        expect(() => JSON.parse(run.stdout)).toThrow();
        const org = /organization\s+(org_[0-9A-Za-z]{24})/.exec(run.stdout);
        expect(org).not.toBeNull();
        secondOrgId = org![1];
        expect(run.stdout).toMatch(/secret key\s+sk_[0-9A-Za-z]{32}/);
        expect(run.stdout).toMatch(/public key\s+pk_[0-9A-Za-z]{24}/);
        expect(run.stdout).toContain('no user yet: svc users create --email you@example.com --role owner');
        expect(secondOrgId).not.toBe(first.organization_id);
      },
      SLOW,
    );

    it.sequential(
      'svc users create prints a password once; list shows the users; a taken e-mail or a bad role is refused',
      async () => {
        const made = await svc(dir, 'users', 'create', '--org', secondOrgId, '--email', 'member@example.com', '--name', 'Mo');
        expect(made.code, made.stderr).toBe(0);
        expect(made.stdout).toMatch(
          /^usr_[0-9A-Za-z]{24} {2}member@example\.com {2}member {2}password [0-9A-Za-z]{20} {3}\(shown once; sign in at \/dashboard\)\n$/,
        );
        const listed = await svc(dir, 'users', 'list', '--org', secondOrgId, '--json');
        expect(listed.code, listed.stderr).toBe(0);
        const users = JSON.parse(listed.stdout);
        expect(users.map((u: { email: string; role: string; name: string }) => [u.email, u.role, u.name])).toEqual([
          ['member@example.com', 'member', 'Mo'],
        ]);
        expect(listed.stdout).not.toContain('password');

        const taken = await svc(dir, 'users', 'create', '--org', first.organization_id, '--email', 'MEMBER@example.com', '--role', 'owner');
        expect(taken.code).toBe(1);
        expect(taken.stderr).toContain('svc: A user with the e-mail MEMBER@example.com already exists');
        const badRole = await svc(dir, 'users', 'create', '--email', 'x@example.com', '--role', 'admin');
        expect(badRole.code).toBe(2);
        expect(badRole.stderr).toContain('--role must be owner or member');
        const noEmail = await svc(dir, 'users', 'create', '--org', secondOrgId);
        expect(noEmail.code).toBe(2);
        expect(noEmail.stderr).toContain('--email needs an e-mail address');
      },
      SLOW,
    );

    it.sequential(
      'svc keys needs --org once several organizations exist (exit 2)',
      async () => {
        const run = await svc(dir, 'keys', 'list');
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain('Several organizations exist: pass --org ID');
      },
      SLOW,
    );

    it.sequential(
      'svc keys create|list|revoke manage the organization’s keys',
      async () => {
        const created = await svc(dir, 'keys', 'create', '--org', first.organization_id, '--name', 'ci', '--json');
        expect(created.code, created.stderr).toBe(0);
        expect(lines(created.stdout)).toHaveLength(1);
        const key = JSON.parse(created.stdout);
        expect(key).toMatchObject({ name: 'ci', organization_id: first.organization_id });
        expect(key.id).toMatch(/^key_/);
        expect(key.secret).toMatch(/^sk_[0-9A-Za-z]{32}$/);
        expect(key.redacted_key).toBe(`sk_…${key.secret.slice(-4)}`);

        const listed = await svc(dir, 'keys', 'list', '--org', first.organization_id, '--json');
        expect(listed.code, listed.stderr).toBe(0);
        const keys = JSON.parse(listed.stdout) as Array<{ id: string; redacted_key: string; secret?: string }>;
        expect(keys.map((k) => k.id)).toHaveLength(2);
        expect(keys.map((k) => k.id)).toContain(key.id);
        expect(listed.stdout).not.toContain(key.secret);
        expect(listed.stdout).not.toContain(first.api_key);
        for (const k of keys) expect(k.secret).toBeUndefined();

        const revoked = await svc(dir, 'keys', 'revoke', key.id, '--org', first.organization_id);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(revoked.stdout.trim()).toBe(`Revoked ${key.id}.`);

        const state = await withDataDir(dir, (db) =>
          db
            .selectFrom('api_keys')
            .select(['id', 'revoked_at', 'secret_hash'])
            .where('organization_id', '=', first.organization_id)
            .execute(),
        );
        expect(state).toHaveLength(2);
        const revokedRow = state.find((k) => k.id === key.id)!;
        expect(revokedRow.revoked_at).not.toBeNull();
        expect(revokedRow.secret_hash).toBe(sha256(key.secret));
        const active = state.filter((k) => k.revoked_at === null);
        expect(active.map((k) => k.secret_hash)).toEqual([sha256(first.api_key)]);
      },
      SLOW,
    );

    it.sequential(
      'svc keys revoke refuses the last active key and another organization’s key',
      async () => {
        const [lastKey] = await withDataDir(dir, (db) =>
          db
            .selectFrom('api_keys')
            .select('id')
            .where('organization_id', '=', first.organization_id)
            .where('revoked_at', 'is', null)
            .execute(),
        );
        const last = await svc(dir, 'keys', 'revoke', lastKey.id, '--org', first.organization_id);
        expect(last.code).not.toBe(0);
        expect(last.stderr).toContain('last active API key cannot be revoked');
        const foreign = await svc(dir, 'keys', 'revoke', lastKey.id, '--org', secondOrgId);
        expect(foreign.code).not.toBe(0);
        expect(foreign.stderr).toContain('No such API key');
        const still = await withDataDir(dir, (db) =>
          db.selectFrom('api_keys').select('revoked_at').where('id', '=', lastKey.id).executeTakeFirstOrThrow(),
        );
        expect(still.revoked_at).toBeNull();
      },
      SLOW,
    );

    it.sequential(
      'bad usage exits 2 with a message on stderr',
      async () => {
        // All of these are refused before the database is opened, so they may run side by side.
        const cases: Array<[string[], string]> = [
          [['frob'], 'Unknown command: frob'],
          [['init', '--org', 'Only org'], 'init needs --org NAME and --program NAME'],
          [['init', '--wat'], "Unknown option '--wat'"],
          [['keys'], 'keys needs one of: create, list, revoke'],
          [['keys', 'rotate', '--org', first.organization_id], 'keys needs one of: create, list, revoke'],
          [['keys', 'revoke', '--org', first.organization_id], 'keys revoke needs a key id'],
        ];
        const runs = await Promise.all(cases.map(([args]) => svc(dir, ...args)));
        runs.forEach((run, i) => {
          expect(run.code, cases[i][0].join(' ')).toBe(2);
          expect(run.stderr).toContain(cases[i][1]);
          expect(run.stderr).toContain('svc --help');
          expect(run.stdout).toBe('');
        });
        const unknownOrg = await svc(dir, 'keys', 'list', '--org', 'org_unknown');
        expect(unknownOrg.code).toBe(2);
        expect(unknownOrg.stderr).toContain('No such organization: org_unknown');
        const help = await svc(dir, '--help');
        expect(help.code).toBe(0);
        expect(help.stdout).toContain('Usage: svc <command>');
      },
      SLOW,
    );
  });

  describe('npm start on an empty data directory', () => {
    let dir: string;
    let boot: {
      organization_id: string;
      program_id: string;
      group_id: string;
      api_key: string;
      public_key: string;
      owner_email: string;
      owner_password: string;
    };
    beforeAll(async () => {
      dir = await mkdir('serve');
    });

    async function start(args: string[]) {
      const port = await freePort();
      const child = spawn(process.execPath, args, {
        cwd: ROOT,
        env: cleanEnv({ SVC_DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run = collect(child);
      const base = `http://127.0.0.1:${port}`;
      try {
        await waitUntilHealthy(base, child);
      } catch (err) {
        child.kill('SIGKILL');
        const { stdout, stderr } = run.output();
        throw new Error(`${(err as Error).message}\nstdout: ${stdout}\nstderr: ${stderr}`);
      }
      return { child, run, base };
    }

    it.sequential(
      'bootstraps once: prints the keys, writes bootstrap.json (0600), the key works, SIGTERM exits 0',
      async () => {
        // What `npm start` runs after its build step.
        const { child, run, base } = await start(entryArgs('main'));
        try {
          const file = path.join(dir, 'bootstrap.json');
          const stat = await fs.stat(file);
          expect(stat.mode & 0o777).toBe(0o600);
          boot = JSON.parse(await fs.readFile(file, 'utf8'));
          expect(Object.keys(boot).sort()).toEqual([
            'api_key',
            'group_id',
            'organization_id',
            'owner_email',
            'owner_password',
            'program_id',
            'public_key',
          ]);
          expect(boot.api_key).toMatch(/^sk_[0-9A-Za-z]{32}$/);
          expect(boot.public_key).toMatch(/^pk_[0-9A-Za-z]{24}$/);
          expect(boot.owner_email).toBe('owner@localhost');

          const { stdout } = run.output();
          expect(stdout.split(boot.api_key)).toHaveLength(2); // printed exactly once
          expect(stdout.split(boot.public_key)).toHaveLength(2);
          expect(stdout).toContain(boot.organization_id);
          expect(stdout).toContain(boot.program_id);
          expect(stdout).toContain(file);
          expect(stdout.split(boot.owner_password)).toHaveLength(2);
          expect(stdout).toContain(`/dashboard   sign in as owner@localhost with ${boot.owner_password}`);
          const signIn = await fetch(`${base}/dashboard/sign-in`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ email: boot.owner_email, password: boot.owner_password }),
            redirect: 'manual',
          });
          expect(signIn.status).toBe(303);
          expect(signIn.headers.get('set-cookie')).toMatch(/^svc_session=/);

          const res = await fetch(`${base}/v1/programs`, { headers: { Authorization: `Bearer ${boot.api_key}` } });
          expect(res.status).toBe(200);
          const body = (await res.json()) as {
            data: Array<{ id: string; public_key: string; default_group_id: string }>;
            total_count: number;
          };
          expect(body.total_count).toBe(1);
          expect(body.data[0]).toMatchObject({ id: boot.program_id, public_key: boot.public_key, default_group_id: boot.group_id });

          const denied = await fetch(`${base}/v1/programs`, { headers: { Authorization: `Bearer ${boot.public_key}` } });
          expect(denied.status).toBe(401);
        } finally {
          child.kill('SIGTERM');
        }
        const exit = await run;
        expect(exit.signal).toBeNull();
        expect(exit.code, exit.stderr).toBe(0);
      },
      SLOW,
    );

    it.sequential(
      'a second start on the same data directory (svc serve) does not bootstrap again',
      async () => {
        expect(boot, 'needs the first start').toBeDefined();
        const file = path.join(dir, 'bootstrap.json');
        const before = await fs.stat(file);
        const { child, run, base } = await start([SVC_BIN, 'serve']);
        try {
          const { stdout } = run.output();
          expect(stdout).not.toContain('sk_');
          expect(stdout).not.toContain('created your first organization');
          const res = await fetch(`${base}/v1/programs`, { headers: { Authorization: `Bearer ${boot.api_key}` } });
          expect(res.status).toBe(200);
          const body = (await res.json()) as { data: Array<{ id: string }>; total_count: number };
          expect(body.data.map((p) => p.id)).toEqual([boot.program_id]);
        } finally {
          child.kill('SIGTERM');
        }
        const exit = await run;
        expect(exit.code, exit.stderr).toBe(0);
        const after = await fs.stat(file);
        expect(after.mtimeMs).toBe(before.mtimeMs);
        expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(boot);
        const orgs = await withDataDir(dir, (db) => db.selectFrom('organizations').select('id').execute());
        expect(orgs.map((o) => o.id)).toEqual([boot.organization_id]);
      },
      SLOW,
    );
  });
});
