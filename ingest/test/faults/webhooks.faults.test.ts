import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createThrowawayDatabase,
  type IngestProcess,
  initOrganization,
  startIngest,
  type ThrowawayDatabase,
} from '../../bench/faults/fleet.js';
import { type PrivateRedis, startPrivateRedis } from '../../bench/faults/private-servers.js';
import { killDuringDelivery, type TakeoverLoad } from '../../bench/faults/webhook-takeover.js';
import { apiClient } from '../../client/api-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The events outbox survives the process that made the change (ingest/docs/webhooks.md):
 * an event is a row committed with its change, not a message held in a process's memory, so a
 * process killed right after answering still has its event delivered, by another process. And
 * a process killed while delivering leaves its claimed deliveries to the others within one
 * lease, having recorded each attempt as it completed.
 */

const ADMIN_URL = process.env.DATABASE_URL ?? '';
const LONG = 180_000;
/** Small enough to settle well within the bound on a busy 2-core host. */
const LOAD: TakeoverLoad = { events: 800, loadMs: 2000, killAfterMs: 1000, endpoints: 1 };

describe.skipIf(!ADMIN_URL)('webhooks when a process dies', () => {
  let redis: PrivateRedis;
  let database: ThrowawayDatabase;
  let receiver: WebhookReceiver;
  const processes: IngestProcess[] = [];

  beforeAll(async () => {
    [redis, database, receiver] = await Promise.all([startPrivateRedis(), createThrowawayDatabase(ADMIN_URL), startWebhookReceiver()]);
  }, LONG);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await Promise.allSettled([receiver?.close(), redis?.close(), database?.drop()]);
  });

  it(
    'a process killed right after committing a change: another process delivers its event, once',
    async () => {
      const env = { DATABASE_URL: database.url, REDIS_URL: redis.url, SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' };
      // The first process delivers nothing itself: it dies before any worker of its own could.
      const first = await startIngest({ ...env, SVC_WEBHOOK_DELIVERY: 'off' });
      processes.push(first);
      const keys = await initOrganization(env);
      const endpoint = (
        await apiClient(first.url, keys.api_key).post('/v1/webhook-endpoints', { url: receiver.url, events: ['partner.created'] })
      ).data[0];
      receiver.secrets.push(endpoint.secret!);

      const created = await fetch(`${first.url}/v1/partners`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.api_key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ program_id: keys.program_id, first_name: 'Kill', last_name: 'Nine', email: 'kill-nine@example.com' }),
      });
      expect(created.status).toBe(201);
      await first.kill('SIGKILL');
      const partner = ((await created.json()) as { data: unknown[] }).data[0];

      const second = await startIngest(env);
      processes.push(second);
      await expect.poll(() => receiver.events().length, { timeout: 30_000, interval: 100 }).toBe(1);
      expect(receiver.events()[0]).toMatchObject({ type: 'partner.created', data: partner });
      // Once: its one delivery is settled after one attempt (recorded just after the receiver answered).
      const deliveries = async () => {
        const log = await apiClient(second.url, keys.api_key).get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`);
        return log.data.map((d) => `${d.status} after ${d.attempt_count}`);
      };
      await expect.poll(deliveries, { timeout: 10_000, interval: 100 }).toEqual(['succeeded after 1']);
      expect(receiver.received).toHaveLength(1);
    },
    LONG,
  );

  it(
    'two processes delivering, one killed mid-batch: the other takes its deliveries over when their lease ends, resending only what was in flight',
    async () => {
      // A 10 s lease (the shortest allowed) keeps the test short; the bench measures the default.
      const r = await killDuringDelivery(ADMIN_URL, redis.url, { load: LOAD, env: { SVC_WEBHOOK_LEASE_SECONDS: '10' }, waitMs: 90_000 });
      const context = JSON.stringify({ ...r, logs: undefined }, null, 1);
      expect(r.exits, `${context}\n${r.logs}`).toEqual([]);
      // It died mid-batch: the other process took some of its claims over.
      expect(r.takenOver, context).toBeGreaterThan(0);
      // No lost, no phantom: every delivery SQL made arrived, each verified, and nothing else did.
      expect({ lost: r.lost, phantom: r.phantom, unverified: r.unverified, delivered: r.delivered }, context).toEqual({
        lost: 0,
        phantom: 0,
        unverified: 0,
        delivered: r.deliveries,
      });
      expect(r.deliveries, context).toBeGreaterThanOrEqual(LOAD.events * LOAD.endpoints);
      // Sent twice: at most the killed process's attempts in flight, one being made and one being
      // recorded on each of its lanes (one per endpoint). That bound, not the load's size, is the
      // guarantee; the share it makes of a larger load is what the bench reports.
      expect(r.duplicates, context).toBeLessThanOrEqual(2 * LOAD.endpoints);
      // The live processes never lost a lease: only what the killed one held was claimed again.
      expect(r.claimedTwice, context).toBe(0);
      // Everything delivered within 60 s of the load's end, the takeover included.
      expect(r.resumeMs, context).not.toBeNull();
      expect(r.lastAfterLoadMs, context).toBeLessThan(60_000);
    },
    LONG,
  );
});
