import { fork } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A new embedded data directory is created (PGlite's initdb) and migrated in a child process
 * before the service opens it: PGlite never gives back the WebAssembly memory that initdb and
 * the first migrations grew, about 400 MB that a service doing both itself would carry for its
 * whole life (ingest/README.md#memory). A directory that exists is opened as it is.
 */

/** Whether PGlite has yet to make its data directory here (initdb writes PG_VERSION). */
export const isNewDataDir = (dataDir: string): boolean => !fs.existsSync(path.join(dataDir, 'PG_VERSION'));

const CHILD = fileURLToPath(new URL('./new-data-dir.child.ts', import.meta.url));

export async function createDataDir(dataDir: string): Promise<void> {
  // The child runs TypeScript as this process does, whichever way this one was started
  // (`tsx`, `node --import tsx`, or the `svc` command's own registration).
  const child = fork(CHILD, [dataDir], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`Creating the embedded database in ${dataDir} failed (${signal ?? `exit ${code}`})`);
}
