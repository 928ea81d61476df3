import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';

/** The real `svc` command and service as child processes, for the CLI tests. */

export { ROOT };
export const SVC_BIN = path.join(ROOT, 'ingest/bin/svc.mjs');

/**
 * The test process's environment without svc's own keys (nor vitest's), plus `extra`: a child
 * uses the embedded defaults unless `extra` says otherwise.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(DATABASE_URL|REDIS_URL|PORT|HOST|LOG_LEVEL|SMTP_.*|SVC_.*|VITEST.*|NODE_OPTIONS)$/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function collect(child: ChildProcess): Promise<Run> & { output: () => { stdout: string; stderr: string } } {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return Object.assign(done, { output: () => ({ stdout, stderr }) });
}

/** Runs `svc ARGS…` with `extra` over a clean environment. */
export function runSvc(extra: Record<string, string>, ...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, env: cleanEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child);
}

export async function waitUntilHealthy(base: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early with code ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    // The pause between two probes of a poll with a deadline, not a wait for anything.
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error('server did not become healthy in time');
}
