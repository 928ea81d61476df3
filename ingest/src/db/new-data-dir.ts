import { fork } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS_COMPILED } from '../paths.js';

/**
 * A new embedded data directory is created (PGlite's initdb) and migrated in a child process
 * before the service opens it: PGlite never gives back the WebAssembly memory that initdb and
 * the first migrations grew, about 400 MB that a service doing both itself would carry for its
 * whole life (ingest/README.md#memory). A directory that exists is opened as it is.
 */

/** Whether PGlite has yet to make its data directory here (initdb writes PG_VERSION). */
export const isNewDataDir = (dataDir: string): boolean => !fs.existsSync(path.join(dataDir, 'PG_VERSION'));

// The child runs as this process does: compiled (ingest/build.mjs writes it beside this code), or
// TypeScript through tsx however this one was started (`tsx`, `node --import tsx`, the `svc` command).
const CHILD = RUNS_COMPILED
  ? { file: fileURLToPath(new URL('./new-data-dir.child.mjs', import.meta.url)), execArgv: [] }
  : { file: fileURLToPath(new URL('./new-data-dir.child.ts', import.meta.url)), execArgv: ['--import', import.meta.resolve('tsx')] };

export async function createDataDir(dataDir: string): Promise<void> {
  const child = fork(CHILD.file, [dataDir], {
    execArgv: CHILD.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`Creating the embedded database in ${dataDir} failed (${signal ?? `exit ${code}`})`);
}
