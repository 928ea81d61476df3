import { createPglite, migrateToLatest, pgliteDb } from './database.js';

/** The child process of createDataDir (new-data-dir.ts): makes and migrates the data directory, then ends. */
const dataDir = process.argv[2];
const db = pgliteDb(createPglite({ dataDir }));
await migrateToLatest(db);
await db.destroy();
