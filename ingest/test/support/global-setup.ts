import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPglite, migrateToLatest, pgliteDb } from '../../src/db/database.js';

/**
 * Creating and migrating a PGlite database costs seconds; every test file instead loads a
 * migrated copy made once here (the same migrations, so nothing is skipped).
 */
export default async function setup({ provide }: { provide: (key: 'pgliteTemplate', value: string) => void }) {
  const pglite = createPglite({ dataDir: 'memory://' });
  const db = pgliteDb(pglite);
  await migrateToLatest(db);
  const dump = await pglite.dumpDataDir('none');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-pglite-template-'));
  const file = path.join(dir, 'migrated.tar');
  await fs.writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  provide('pgliteTemplate', file);
  return async () => {
    await fs.rm(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
