import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { compiled } from '../build.mjs';
import { ROOT } from '../src/paths.js';

export { ROOT };

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

/**
 * A port nothing listens on, for a process about to be started. In a vitest worker it comes from
 * the worker's own block below the system's ephemeral range (32768 and up): a port the system
 * hands out is free again once the probe closes, and another worker could be given it before this
 * worker's process has bound it (a test then talked to the other test's service). Blocks differ
 * by worker (`VITEST_POOL_ID`) and, mostly, by run (the vitest process's pid: two runs at once
 * share blocks one time in eight, and each port is still probed before it is given). Elsewhere
 * (the bench, one process) the system chooses.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(worker) || worker < 1 || worker > WORKER_BLOCKS) return listenAndClose(0);
  const block = PORT_BLOCKS_START + ((process.ppid % RUN_BLOCKS) * WORKER_BLOCKS + worker - 1) * PORT_BLOCK_SIZE;
  for (let tries = 0; tries < PORT_BLOCK_SIZE; tries++) {
    const port = block + (nextInBlock++ % PORT_BLOCK_SIZE);
    if ((await listenAndClose(port).catch(() => null)) !== null) return port;
  }
  throw new Error(`no free port in ${block}–${block + PORT_BLOCK_SIZE - 1}`);
}

const PORT_BLOCKS_START = 20_000;
/** 8 runs × 32 workers × 40 ports: 20000–30239, under the ephemeral range (a 33rd worker lets the system choose). */
const RUN_BLOCKS = 8;
const WORKER_BLOCKS = 32;
const PORT_BLOCK_SIZE = 40;
/** Ports of the block are taken in turn, so a port given out is not given again until 40 later. */
let nextInBlock = 0;

function listenAndClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
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

/** The node arguments that run one of the bench's own TypeScript files (a receiver, the baseline) through tsx. */
export const tsxArgs = (file: string): string[] => ['--import', 'tsx', file];

/**
 * Runs an entry point in its own node process (no tsx wrapper process, so the pid is the server's):
 * `entry` is node's arguments, as entryArgs or tsxArgs give them.
 */
export async function startNode(
  entry: string[],
  env: Record<string, string>,
  readyUrl: (port: number) => string,
  nodeArgs: string[] = [],
): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry.join(' ')} exited with ${child.exitCode}`);
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
