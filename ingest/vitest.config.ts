import fs from 'node:fs';
import os from 'node:os';
import { defineConfig } from 'vitest/config';

// The API suite runs on the embedded defaults, and again on PostgreSQL + Redis when
// DATABASE_URL and REDIS_URL are set (as .ci/run does). The fault tests have a config of
// their own (vitest.faults.config.ts).
const onPostgres = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const root = new URL('..', import.meta.url).pathname;

// Test files share one module graph per worker (no re-import of the app for each of ~160
// files: that alone was a fifth of the run). Files that replace a module with vi.mock need a
// graph of their own, so they run in projects that isolate them; found by reading the files,
// so a new one cannot land in the shared graph by mistake.
const mocking = fs
  .readdirSync(`${root}ingest/test`, { recursive: true, encoding: 'utf8' })
  .filter(
    (f) => f.endsWith('.test.ts') && !f.startsWith('faults/') && fs.readFileSync(`${root}ingest/test/${f}`, 'utf8').includes('vi.mock('),
  )
  .map((f) => `ingest/test/${f}`);

// Unit and SQL snapshot tests touch no database: once, with the embedded setup, is enough.
const touchesNoDatabase = (file: string) => /^ingest\/test\/(unit|sql)\//.test(file);
// Real processes on PostgreSQL: run by vitest.faults.config.ts.
const FAULTS = ['ingest/test/faults/**', 'ingest/test/deploy/**'];
/**
 * The pages' HTTP tests and the fuzz test of every operation run on one setup: PostgreSQL + Redis
 * when it is there (the browser tests drive the pages on the embedded defaults: e2e/README.md),
 * else the embedded defaults. Their subject is what the service answers, not how it stores.
 */
const ONE_SETUP = ['ingest/test/dashboard/**', 'ingest/test/portal/**', 'ingest/test/api/fuzz.test.ts'];

/** One storage setup: the files sharing a module graph, and those that mock a module on their own. */
function projectsOf(name: 'embedded' | 'postgres') {
  const env = { SVC_TEST_STORAGE: name };
  const skipped = name === 'postgres' ? ['ingest/test/unit/**', 'ingest/test/sql/**'] : onPostgres ? ONE_SETUP : [];
  const own = mocking.filter((f) => name === 'embedded' || !touchesNoDatabase(f));
  const shared = {
    name: `ingest:${name}`,
    include: ['ingest/test/**/*.test.ts'],
    exclude: [...FAULTS, ...skipped, ...mocking],
    env,
    isolate: false,
  };
  const isolated = { name: `ingest:${name}:isolated`, include: own, env };
  return [shared, ...(own.length > 0 ? [isolated] : [])].map((test) => ({ extends: true as const, test }));
}

export default defineConfig({
  test: {
    root,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ['ingest/test/support/global-setup.ts'],
    setupFiles: ['ingest/test/support/cheap-passwords.ts'],
    // Much of a test's time is spent waiting on PostgreSQL, Redis or a child process: two
    // workers keep both cores of a small machine busy (vitest's default is one fewer than the cores).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [...projectsOf('embedded'), ...(onPostgres ? projectsOf('postgres') : [])],
  },
});
