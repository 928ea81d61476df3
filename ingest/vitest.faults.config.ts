import { defineConfig } from 'vitest/config';

/**
 * The fault tests (ingest/test/faults): real ingest processes under load while PostgreSQL or
 * Redis really fail. They need PostgreSQL (DATABASE_URL, whose server they create throwaway
 * databases and private clusters beside) and redis-server, and run on their own, after the
 * API suite, so that their timings are not measured on a machine busy with other tests.
 * The deployment test (ingest/test/deploy) runs here too: real processes behind Caddy, on
 * PostgreSQL and a private redis-server.
 */
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['ingest/test/faults/**/*.test.ts', 'ingest/test/deploy/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
