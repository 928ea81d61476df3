import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { entryArgs, freePort, ROOT } from '../processes.js';

/** A throwaway database on a PostgreSQL server, dropped by `drop()`. */
export interface ThrowawayDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createThrowawayDatabase(adminUrl: string): Promise<ThrowawayDatabase> {
  const name = `svc_faults_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const again = new pg.Client({ connectionString: adminUrl });
      await again.connect();
      await again.query(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

export interface IngestProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<number | string>;
  /** True while the process runs. */
  alive(): boolean;
  /** The lines it wrote to stderr and stdout (its log), for a failure message. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface IngestEnv {
  DATABASE_URL: string;
  REDIS_URL: string;
  [key: string]: string;
}

const FLEET_ENV = {
  LOG_LEVEL: 'warn',
  SVC_API_RATE_LIMIT: '1000000',
  SVC_TRACK_RATE_LIMIT: '1000000',
  SVC_BOT_FILTER: 'off',
  SVC_APPROVAL_INTERVAL_SECONDS: '3600',
};

/** What a child process wrote to stdout and stderr, interleaved, its last 20,000 characters (for a failure message). */
export function outputOf(child: ChildProcess): () => string {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => output;
}

export interface StartOptions {
  /** Resolve once it answers `/healthz` (false: at once, for a process that waits for its database). */
  waitReady?: boolean;
  /** The tree whose code runs (another release's, in the rolling upgrade test); default this one. */
  root?: string;
}

/** Starts `npm start`'s entry point as a process of its own. */
export async function startIngest(env: IngestEnv, { waitReady = true, root = ROOT }: StartOptions = {}): Promise<IngestProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, entryArgs('main', root), {
    cwd: root,
    env: { ...process.env, ...FLEET_ENV, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = outputOf(child);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = `http://127.0.0.1:${port}`;
  const proc: IngestProcess = {
    url,
    child,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    output,
    async kill(signal = 'SIGTERM') {
      if (!proc.alive()) return;
      child.kill(signal);
      await exited;
    },
  };
  if (waitReady) await waitUntilAnswers(proc);
  return proc;
}

export async function waitUntilAnswers(proc: IngestProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.alive()) throw new Error(`ingest exited before answering:\n${proc.output()}`);
    const ok = await fetch(`${proc.url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`ingest did not answer within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Keys {
  api_key: string;
  public_key: string;
  program_id: string;
  organization_id: string;
}

/**
 * `svc init` on the database: an organization, a program and its keys. Run asynchronously: a
 * synchronous child process would stall this event loop for seconds on a busy host, long enough
 * for a running ingest to close this process's idle keep-alive connections unseen, and the next
 * request on one of them fails with "other side closed".
 */
export async function initOrganization(env: IngestEnv, root = ROOT): Promise<Keys> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...entryArgs('cli', root), 'init', '--org', 'Faults', '--program', 'Faults', '--json'],
    { cwd: root, env: { ...process.env, ...FLEET_ENV, ...env }, encoding: 'utf8' },
  );
  return JSON.parse(stdout) as Keys;
}
