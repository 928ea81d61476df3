import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import supertest from 'supertest';
import { inject } from 'vitest';
import { createApp } from '../../src/app.js';
import { type InitResult, initOrganization } from '../../src/bootstrap.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type Db, migrateToLatest, openDatabase } from '../../src/db/database.js';
import type { AppDeps } from '../../src/deps.js';
import { randomBase62 } from '../../src/ids.js';
import { createMailer } from '../../src/mail/mailer.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createWebhookWorker, type WebhookWorkerOptions } from '../../src/resources/webhook-endpoints/webhook-worker.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createRedisStore } from '../../src/store/redis-store.js';
import type { SharedStore } from '../../src/store/store.js';
import { takeMigratedPglite } from './pglite-pool.js';

/**
 * Which storage the API tests run on: `embedded` (PGlite in memory + memory store, what
 * `npm start` uses) or `postgres` (a throwaway PostgreSQL database + Redis, from
 * DATABASE_URL / REDIS_URL). Set per vitest project.
 */
export const STORAGE = (process.env.SVC_TEST_STORAGE ?? 'embedded') as 'embedded' | 'postgres';

export interface TestStorage {
  db: Db;
  databaseUrl?: string;
  /** Opens another shared-state client on the same backing store (a second process's view). */
  openStore(): SharedStore;
  close(): Promise<void>;
}

/** A freshly migrated database and a private shared-state namespace for one test file. */
export async function openTestStorage(): Promise<TestStorage> {
  if (STORAGE === 'embedded') {
    const { db, giveBack } = await takeMigratedPglite();
    const store = createMemoryStore();
    return {
      db,
      openStore: () => store,
      close: async () => {
        await store.close();
        await giveBack();
      },
    };
  }
  const adminUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!adminUrl || !redisUrl) throw new Error('SVC_TEST_STORAGE=postgres needs DATABASE_URL and REDIS_URL');
  const name = `svc_test_${randomBase62(12).toLowerCase()}`;
  const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminUrl, max: 1 }) }) });
  // From the migrated template of the global setup: a file copy instead of every migration.
  await pg_exec(admin, `create database ${name} template ${inject('postgresTemplate')}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openDatabase({ kind: 'postgres', url: url.toString() });
  await migrateToLatest(db);
  const prefix = `svc-test:${name}:`;
  const stores: SharedStore[] = [];
  return {
    db,
    databaseUrl: url.toString(),
    openStore: () => {
      const s = createRedisStore(redisUrl, prefix);
      stores.push(s);
      return s;
    },
    close: async () => {
      await Promise.allSettled(stores.map((s) => s.close()));
      await db.destroy();
      // pg resolves pool.end() before its sockets are gone; a forced drop would then kill live
      // connections and surface as an unhandled error, so wait for them to leave first.
      for (let i = 0; i < 100 && (await connectionsTo(admin, name)) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      await pg_exec(admin, `drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

async function connectionsTo(admin: Kysely<unknown>, database: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = ${database}`.execute(admin);
  return r.rows[0].n;
}

async function pg_exec(db: Kysely<unknown>, statement: string): Promise<void> {
  await sql.raw(statement).execute(db);
}

export interface TestApp {
  deps: AppDeps;
  /** The Express app itself (for a supertest agent that keeps cookies). */
  app: ReturnType<typeof createApp>;
  request: ReturnType<typeof supertest>;
  storage: TestStorage;
  outboxDir: string;
  /** An organization with one program and a secret key, made through the same code as `svc init`. */
  newOrganization(names?: { org?: string; program?: string }): Promise<InitResult & { auth: { Authorization: string } }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Overrides of the environment the config is read from (e.g. SVC_API_RATE_LIMIT). */
  env?: Record<string, string>;
  /** Reuse storage (to build a second app instance over the same database and shared state). */
  storage?: TestStorage;
  /** The app's logger (default: silent, or SVC_TEST_LOG_LEVEL). */
  logger?: Logger;
  /** Options of the webhook worker (its timeout, lanes…). */
  webhooks?: Partial<WebhookWorkerOptions>;
}

/** Builds the real app (createApp) over test storage, ready for supertest. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const storage = options.storage ?? (await openTestStorage());
  const outboxDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-outbox-'));
  const config: Config = loadConfig({
    SVC_DATA_DIR: 'memory://',
    SVC_OUTBOX_DIR: outboxDir,
    LOG_LEVEL: 'silent',
    SVC_API_RATE_LIMIT: '100000',
    SVC_AUTH_FAILURE_LIMIT: '100000',
    SVC_TRACK_RATE_LIMIT: '100000',
    SVC_STRIPE_RATE_LIMIT: '100000',
    ...options.env,
  });
  const logger = options.logger ?? pino({ level: process.env.SVC_TEST_LOG_LEVEL ?? 'silent' });
  const store = storage.openStore();
  const mailer = createMailer(config, storage.db, logger);
  // Webhooks go out only when a test drains the worker, so that a test decides when they do.
  const webhooks = createWebhookWorker(storage.db, logger, {
    allowPrivate: config.webhooksAllowPrivate,
    autoRun: false,
    leaseMs: config.webhookLeaseSeconds * 1000,
    ...options.webhooks,
  });
  // As openRuntime does: metrics only when SVC_METRICS_PORT is set (the test serves them itself).
  const metrics = config.metricsPort === undefined ? undefined : createMetrics({ db: storage.db, store });
  const deps: AppDeps = { config, db: storage.db, store, logger, mailer, webhooks, metrics };
  const app = createApp(deps);
  const ownsStorage = !options.storage;
  return {
    deps,
    app,
    request: supertest(app),
    storage,
    outboxDir,
    async newOrganization(names = {}) {
      const result = await initOrganization(storage.db, { org: names.org ?? 'Acme Inc', program: names.program ?? 'Acme Partners' });
      return { ...result, auth: { Authorization: `Bearer ${result.api_key}` } };
    },
    async close() {
      await Promise.all([mailer.close(), webhooks.close()]);
      if (ownsStorage) await storage.close();
      await fs.rm(outboxDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens several pooled connections first (PostgreSQL), so that simultaneous requests really run
 * side by side instead of queueing behind the pool's first connection while others connect.
 */
export async function warmPool(t: TestApp): Promise<void> {
  await Promise.all(Array.from({ length: 8 }, () => sql`select pg_sleep(0.02)`.execute(t.storage.db)));
}
