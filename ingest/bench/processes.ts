import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { compiled } from '../build.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The node arguments that run the service (`main`) or the `svc` command (`cli`) of a checkout as
 * `npm start` and `svc` do: the compiled JavaScript when this checkout's build is as new as its
 * sources (ingest/build.mjs), else the TypeScript through tsx (always for another checkout, such
 * as the previous release of the rolling-upgrade test).
 */
export function entryArgs(entry: 'main' | 'cli', root = ROOT): string[] {
  const built = root === ROOT ? compiled(entry) : null;
  return built ? [built] : ['--import', 'tsx', `ingest/src/${entry}.ts`];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Service {
  url: string;
  child: ChildProcess;
  /** Peak resident set size of the process so far (VmHWM), in MB. */
  peakRssMb(): number;
  /** Its resident set size now (VmRSS), in MB. */
  rssMb(): number;
  stop(): Promise<void>;
}

/**
 * Runs an entry point in its own node process (no tsx wrapper process, so the pid is the server's):
 * a TypeScript file through tsx, or node arguments as entryArgs gives them.
 */
export async function startNode(
  entry: string | string[],
  env: Record<string, string>,
  readyUrl: (port: number) => string,
  nodeArgs: string[] = [],
): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, ...(Array.isArray(entry) ? entry : ['--import', 'tsx', entry])], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    const ok = await fetch(readyUrl(port)).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`${entry} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    peakRssMb: () => statusMb(child, 'VmHWM'),
    rssMb: () => statusMb(child, 'VmRSS'),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A memory figure of /proc/PID/status, in MB. */
function statusMb(child: ChildProcess, field: 'VmHWM' | 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}
