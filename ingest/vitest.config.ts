import { defineConfig } from 'vitest/config';

// The API suite runs on the embedded defaults, and again on PostgreSQL + Redis when
// DATABASE_URL and REDIS_URL are set (as .ci/run does). The fault tests have a config of
// their own (vitest.faults.config.ts).
const onPostgres = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ['ingest/test/support/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'ingest:embedded',
          include: ['ingest/test/**/*.test.ts'],
          exclude: ['ingest/test/faults/**'],
          env: { SVC_TEST_STORAGE: 'embedded' },
        },
      },
      ...(onPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'ingest:postgres',
                include: ['ingest/test/**/*.test.ts'],
                // Unit and SQL snapshot tests touch no database: once is enough.
                exclude: ['ingest/test/unit/**', 'ingest/test/sql/**', 'ingest/test/faults/**'],
                env: { SVC_TEST_STORAGE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
