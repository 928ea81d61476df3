import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../client/api-client.js';
import { type LoadResult, load } from './load.js';
import { startNode, tsxArgs } from './processes.js';

export interface WebhookFigures {
  /** The payment load again, with one endpoint subscribed to every event. */
  payments: LoadResult;
  /** Its throughput against the same load without endpoints. */
  ratio: number;
  /** Events created while the load ran (at least those it made). */
  events: number;
  /** Distinct events the receiver got with a valid signature. */
  delivered: number;
  allVerified: boolean;
  /** Delivered events per second, from the load's start to the last delivery. */
  eventsPerSecond: number;
  /** How long after the load ended the last event arrived. */
  drainSeconds: number;
}

/**
 * The webhook figures: the payment load of the main benchmark run again while an endpoint on
 * this machine (a receiver process verifying every signature) subscribes to every event, then
 * how fast the events reached it. `without` is the same load with no endpoint, just before.
 */
export async function webhookFigures(o: {
  api: ApiClient;
  ingestUrl: string;
  apiKey: string;
  customers: string[];
  connections: number;
  duration: number;
  without: LoadResult;
}): Promise<WebhookFigures> {
  const receiver = await startNode(tsxArgs('ingest/bench/webhook-receiver.ts'), {}, (port) => `http://127.0.0.1:${port}/count`);
  const count = async () =>
    (await (await fetch(`${receiver.url}/count`)).json()) as { received: number; verified: number; distinct: number };
  try {
    const endpoint = (await o.api.post('/v1/webhook-endpoints', { url: `${receiver.url}/hooks` })).data[0];
    await fetch(`${receiver.url}/secret`, { method: 'POST', body: JSON.stringify({ secret: endpoint.secret }) });
    const run = randomBytes(3).toString('hex');
    const started = performance.now();
    const payments = await load({
      url: `${o.ingestUrl}/v1/transactions`,
      connections: o.connections,
      duration: o.duration,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${o.apiKey}` },
      body: (n) => JSON.stringify({ amount: 4900, customer_id: o.customers[n % o.customers.length], charge_id: `ch_${run}_${n}` }),
    });
    const ended = performance.now();
    const events = (await o.api.get(`/v1/events?created_gte=${encodeURIComponent(endpoint.created_at)}&limit=1`)).total_count;

    // Until the receiver has every event and nothing more arrives for 2 s.
    let last = await count();
    let lastChange = performance.now();
    const deadline = lastChange + 600_000;
    while (performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await count();
      if (now.received !== last.received) {
        last = now;
        lastChange = performance.now();
      } else if (now.distinct >= events && performance.now() - lastChange > 2000) break;
    }
    return {
      payments,
      ratio: Number((payments.rps / o.without.rps).toFixed(2)),
      events,
      delivered: last.distinct,
      allVerified: last.verified === last.received,
      eventsPerSecond: Math.round(last.distinct / ((lastChange - started) / 1000)),
      drainSeconds: Number(((lastChange - ended) / 1000).toFixed(1)),
    };
  } finally {
    await receiver.stop();
  }
}
