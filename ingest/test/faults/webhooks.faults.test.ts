import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createThrowawayDatabase,
  type IngestProcess,
  initOrganization,
  startIngest,
  type ThrowawayDatabase,
} from '../../bench/faults/fleet.js';
import { type PrivateRedis, startPrivateRedis } from '../../bench/faults/private-servers.js';
import { apiClient } from '../../client/api-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The events outbox survives the process that made the change (README, "Webhooks and events"):
 * an event is a row committed with its change, not a message held in a process's memory, so a
 * process killed right after answering still has its event delivered, by another process.
 */

const ADMIN_URL = process.env.DATABASE_URL ?? '';
const LONG = 120_000;

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
    'two processes delivering at once: every event arrives once, each delivery after one attempt',
    async () => {
      const db = await createThrowawayDatabase(ADMIN_URL);
      const hooks = await startWebhookReceiver();
      try {
        const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' };
        const pair = await Promise.all([startIngest(env), startIngest(env)]);
        processes.push(...pair);
        const keys = await initOrganization(env);
        const [a, b] = pair.map((p) => apiClient(p.url, keys.api_key));
        const endpoint = (await a.post('/v1/webhook-endpoints', { url: hooks.url, events: ['partner.created'] })).data[0];
        hooks.secrets.push(endpoint.secret!);
        const count = 100;
        await Promise.all(
          Array.from({ length: count }, (_, i) =>
            (i % 2 ? a : b).post('/v1/partners', {
              program_id: keys.program_id,
              first_name: 'Pair',
              last_name: String(i),
              email: `pair-${i}@example.com`,
            }),
          ),
        );
        await expect.poll(() => new Set(hooks.events().map((e) => e.id)).size, { timeout: 60_000, interval: 100 }).toBe(count);
        const settled = async () => {
          const log = await a.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=100`);
          return log.data.filter((d) => d.status === 'succeeded' && d.attempt_count === 1).length;
        };
        await expect.poll(settled, { timeout: 10_000, interval: 100 }).toBe(count);
        expect(hooks.received).toHaveLength(count);
      } finally {
        await hooks.close();
        await Promise.all(processes.splice(0).map((p) => p.kill('SIGKILL')));
        await db.drop();
      }
    },
    LONG,
  );
});
