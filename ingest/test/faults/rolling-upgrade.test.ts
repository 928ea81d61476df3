import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createThrowawayDatabase,
  type IngestEnv,
  type IngestProcess,
  initOrganization,
  startIngest,
  type ThrowawayDatabase,
} from '../../bench/faults/fleet.js';
import { type PrivateRedis, startPrivateRedis } from '../../bench/faults/private-servers.js';
import { auditTraffic, seedFixture, startTraffic, summarize } from '../../bench/faults/traffic.js';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { extractRelease, type ReleaseTree } from '../support/previous-release.js';
import { countedPayments, rolledUpPayments } from '../support/refund-figures.js';

/**
 * A rolling upgrade under load (ingest/docs/upgrades.md#how-it-is-tested): the previous release's
 * code and this one's on one PostgreSQL database. The previous release migrates the database
 * to its schema and serves; this release starts beside it and migrates under kysely's lock
 * while the previous one keeps serving; then the previous release's process restarts on the
 * newer schema. No 5xx and no unanswered request from either at any time, every answered
 * write in SQL, one API key served by both.
 */

/**
 * The previous release: main before migration 0017 landed (newest migration 0016; its runner
 * accepts a newer schema). Moved forward each release: ingest/docs/upgrades.md#how-it-is-tested.
 */
const PREVIOUS_RELEASE = '2683cf4f6c12a27eaee9deb9b9f5e0e849c2d805';

const ADMIN_URL = process.env.DATABASE_URL ?? '';
const LONG = 120_000;
/** How long the traffic runs at each step, ms. */
const STEP_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe.skipIf(!ADMIN_URL)('a rolling upgrade from the previous release, under load', () => {
  let release: ReleaseTree | undefined;
  let missing: string | undefined;
  let database: ThrowawayDatabase;
  let redis: PrivateRedis;
  const processes: IngestProcess[] = [];

  beforeAll(async () => {
    const extracted = await extractRelease(PREVIOUS_RELEASE);
    if ('missing' in extracted) missing = extracted.missing;
    else release = extracted;
    [database, redis] = await Promise.all([createThrowawayDatabase(ADMIN_URL), startPrivateRedis()]);
  }, LONG);
  afterAll(async () => {
    await Promise.allSettled(processes.map((p) => p.kill('SIGKILL')));
    await Promise.allSettled([database?.drop(), redis?.close(), release?.remove()]);
  });

  it('no 5xx from either release, every answered write in SQL, one API key on both', async (t) => {
    if (!release) return t.skip(missing);
    const current = Object.keys(migrations).sort();
    expect(current.length, 'the previous release has fewer migrations than this one').toBeGreaterThan(release.migrations.length);
    expect(current.slice(0, release.migrations.length)).toEqual(release.migrations);

    const env: IngestEnv = { DATABASE_URL: database.url, REDIS_URL: redis.url };
    // The previous release's `svc init` migrates the empty database to its own schema.
    const keys = await initOrganization(env, release.root);
    expect(await appliedMigrations(database.url)).toEqual(release.migrations);
    const old = await startIngest(env, { root: release.root });
    processes.push(old);

    const targets = [old.url];
    const fixture = await seedFixture(old.url, keys, 8);
    const traffic = startTraffic(fixture, { targets: () => targets, concurrency: 6 });
    await sleep(STEP_MS);

    // This release starts beside it and migrates while the previous one serves.
    const next = await startIngest(env);
    processes.push(next);
    expect(await appliedMigrations(database.url)).toEqual(current);
    targets.push(next.url);
    await sleep(STEP_MS);

    // The previous release's process restarts on the newer schema: drained first, as a load
    // balancer does, then stopped gracefully.
    targets.splice(targets.indexOf(old.url), 1);
    await old.kill('SIGTERM');
    expect(await old.exited).toBe(0);
    const restarted = await startIngest(env, { root: release.root, waitReady: release.acceptsNewerSchema });
    processes.push(restarted);
    if (release.acceptsNewerSchema) {
      targets.push(restarted.url);
      expect(restarted.output()).toContain('the database is ahead of this release');
    } else {
      // A release before the runner accepted newer databases refuses it, clearly, and ends
      // (ingest/docs/upgrades.md#restarting-an-older-process).
      expect(await restarted.exited).toBe(1);
      // kysely names the first migration the release lacks.
      const theirs = release.migrations;
      const firstMissing = current.find((name) => !theirs.includes(name));
      expect(restarted.output()).toContain(`corrupted migrations: previously executed migration ${firstMissing} is missing`);
    }
    await sleep(STEP_MS);

    const record = await traffic.stop();
    const summary = summarize(record.attempts);
    const answered = Object.keys(summary.byStatus);
    const logs = processes.map((p) => p.output()).join('\n---\n');
    expect(
      answered.filter((s) => s === 'no answer' || s.startsWith('5')),
      `${JSON.stringify(summary)}\n${logs}`,
    ).toEqual([]);
    expect(summary.requests).toBeGreaterThan(100);
    expect(await auditTraffic(database.url, record)).toEqual({
      clicksLost: 0,
      paymentsLost: 0,
      duplicates: 0,
      phantomSignups: 0,
      unsettled: 0,
    });
    // Payments either release wrote, before, during and after migration 0019, are each counted once in the refund rule's figures.
    const db = openDatabase({ kind: 'postgres', url: database.url });
    try {
      const counted = await countedPayments(db, keys.program_id);
      expect(counted.reduce((n, d) => n + d.payments, 0)).toBeGreaterThan(0);
      expect(await rolledUpPayments(db, keys.program_id)).toEqual(counted);
    } finally {
      await db.destroy();
    }

    // One API key, one program, on every process still serving.
    const bodies = await Promise.all(
      targets.map(async (url) => {
        const res = await fetch(`${url}/v1/programs/${keys.program_id}`, { headers: { authorization: `Bearer ${keys.api_key}` } });
        expect(res.status, url).toBe(200);
        return ((await res.json()) as { data: { id: string } }).data.id;
      }),
    );
    expect(bodies).toEqual(targets.map(() => keys.program_id));
  });
});
