import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { apiClient } from '../../client/api-client.js';
import type { Keys } from './fleet.js';

/**
 * Mixed traffic, as a merchant's site and server send it, recorded request by request, and an
 * audit of what SQL holds afterwards. Used by the fault tests and `npm run bench -- --faults`.
 *
 * - script clicks from a pool of returning visitors (repeats meet the repeat-click memory);
 * - signups on click ids that clicks handed out (a phantom id answers 404);
 * - payments with an `Idempotency-Key` only, and payments with a `charge_id` only, each retried
 *   as a careful client would (same key or charge, on a 503 or no answer) until settled;
 * - reads of a list.
 */

export interface Fixture {
  keys: Keys;
  linkValue: string;
  customers: string[];
}

async function call(url: string, init: RequestInit & { json?: unknown }): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** A partner with a link, and customers to pay with. */
export async function seedFixture(url: string, keys: Keys, customers = 24): Promise<Fixture> {
  const api = apiClient(url, keys.api_key);
  const partner = (
    await api.post('/v1/partners', {
      program_id: keys.program_id,
      first_name: 'Fault',
      last_name: 'Partner',
      email: `faults-${randomBytes(3).toString('hex')}@partners.example`,
    })
  ).data[0];
  const linkValue = `faults${randomBytes(3).toString('hex')}`;
  await api.post('/v1/links', { partner_id: partner.id, param: 'ref', value: linkValue });
  const ids: string[] = [];
  for (let i = 0; i < customers; i++)
    ids.push((await api.post('/v1/customers', { partner_id: partner.id, email: `buyer${i}@faults.example`, status: 'active' })).data[0].id);
  return { keys, linkValue, customers: ids };
}

export type Op = 'click' | 'signup' | 'keyed_payment' | 'charged_payment' | 'read';

/** One HTTP request. `status` 0: no answer (connection refused or reset, or the client gave up). */
export interface Attempt {
  op: Op;
  status: number;
  ms: number;
  start: number;
  end: number;
}

export interface TrafficRecord {
  attempts: Attempt[];
  /** Click ids that 2xx click answers handed out. */
  clickIds: Set<string>;
  /** Payments by token (the Idempotency-Key or charge_id), with the status that settled them (null: never settled). */
  payments: Map<string, { kind: 'keyed' | 'charged'; settled: number | null }>;
  /** Signups on handed-out click ids, with their final status. */
  signups: { clickId: string; status: number }[];
}

export interface TrafficOptions {
  /** The ingest processes to spread requests over (read at each request: a killed one may be dropped). */
  targets: () => string[];
  concurrency: number;
  /** A client gives up on a request after this long. */
  requestTimeoutMs?: number;
  /** How long a payment is retried before it counts as unsettled. */
  settleWithinMs?: number;
}

const VISITORS = 40;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const RETRY_STATUSES = new Set([0, 500, 502, 503, 504]);

export function startTraffic(fx: Fixture, o: TrafficOptions): { stop(): Promise<TrafficRecord> } {
  const record: TrafficRecord = { attempts: [], clickIds: new Set(), payments: new Map(), signups: [] };
  const unusedClicks: string[] = [];
  const run = randomBytes(3).toString('hex');
  const timeoutMs = o.requestTimeoutMs ?? 10_000;
  const settleWithinMs = o.settleWithinMs ?? 30_000;
  let running = true;
  let seq = 0;
  let turn = 0;

  const target = () => {
    const list = o.targets();
    return list[turn++ % list.length];
  };

  async function attempt(op: Op, path: string, init: RequestInit & { json?: unknown }): Promise<{ status: number; body: any }> {
    const start = Date.now();
    let answer: { status: number; body: any };
    try {
      answer = await call(`${target()}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch {
      answer = { status: 0, body: null };
    }
    const end = Date.now();
    record.attempts.push({ op, status: answer.status, ms: end - start, start, end });
    return answer;
  }

  const secret = { authorization: `Bearer ${fx.keys.api_key}`, 'content-type': 'application/json' };

  async function click() {
    const visitor = Math.floor(Math.random() * VISITORS);
    const r = await attempt('click', '/v1/track/click', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': `${UA} visitor/${run}/${visitor}` },
      json: { key: fx.keys.public_key, param: 'ref', value: fx.linkValue, page: `https://shop.example/?ref=${fx.linkValue}` },
    });
    const id = r.status === 200 ? r.body?.data?.click_id : undefined;
    if (typeof id === 'string') {
      if (!record.clickIds.has(id)) unusedClicks.push(id);
      record.clickIds.add(id);
    }
  }

  async function signup() {
    const clickId = unusedClicks.shift();
    if (!clickId) return click();
    const r = await attempt('signup', '/v1/track/signup', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      json: { key: fx.keys.public_key, click_id: clickId, identifier: `lead-${run}-${++seq}@faults.example` },
    });
    record.signups.push({ clickId, status: r.status });
  }

  /** Sends a payment until it is settled (any answer but a 5xx or none), as a client that retries would. */
  async function pay(kind: 'keyed' | 'charged') {
    const token = `${kind}_${run}_${++seq}`;
    const customer = fx.customers[seq % fx.customers.length];
    const json =
      kind === 'keyed'
        ? { amount: 4900, customer_id: customer, product_id: token }
        : { amount: 4900, customer_id: customer, charge_id: token };
    const headers = kind === 'keyed' ? { ...secret, 'idempotency-key': token } : secret;
    const entry = { kind, settled: null as number | null };
    record.payments.set(token, entry);
    const giveUpAt = Date.now() + settleWithinMs;
    for (;;) {
      const r = await attempt(kind === 'keyed' ? 'keyed_payment' : 'charged_payment', '/v1/transactions', {
        method: 'POST',
        headers,
        json,
      });
      if (!RETRY_STATUSES.has(r.status)) {
        entry.settled = r.status;
        return;
      }
      if (Date.now() > giveUpAt || !running) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function read() {
    await attempt('read', `/v1/transactions?program_id=${fx.keys.program_id}&limit=5`, { headers: secret });
  }

  async function worker() {
    while (running) {
      const r = Math.random();
      if (r < 0.4) await click();
      else if (r < 0.5) await signup();
      else if (r < 0.7) await pay('keyed');
      else if (r < 0.85) await pay('charged');
      else await read();
    }
  }

  const workers = Array.from({ length: o.concurrency }, worker);
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      return record;
    },
  };
}

export interface Audit {
  /** Click ids handed out that SQL does not have. */
  clicksLost: number;
  /** Payments answered 2xx (or 409: already recorded) that SQL does not have. */
  paymentsLost: number;
  /** Payments recorded more than once. */
  duplicates: number;
  /** Signups on a handed-out click id that answered 404 (the id never existed). */
  phantomSignups: number;
  /** Payments that never settled within the retry time. */
  unsettled: number;
}

/** What SQL holds, against what the traffic was told. */
export async function auditTraffic(databaseUrl: string, t: TrafficRecord): Promise<Audit> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const clickIds = [...t.clickIds];
    const found = await client.query<{ id: string }>('select id from clicks where id = any($1)', [clickIds]);
    const keyed = [...t.payments].filter(([, p]) => p.kind === 'keyed').map(([token]) => token);
    const charged = [...t.payments].filter(([, p]) => p.kind === 'charged').map(([token]) => token);
    const counts = await client.query<{ token: string; n: number }>(
      `select coalesce(product_id, charge_id) as token, count(*)::int as n from transactions
        where deleted_at is null and (product_id = any($1) or charge_id = any($2))
        group by 1`,
      [keyed, charged],
    );
    const recorded = new Map(counts.rows.map((r) => [r.token, r.n]));
    let paymentsLost = 0;
    let unsettled = 0;
    for (const [token, p] of t.payments) {
      if (p.settled === null) unsettled++;
      else if ((p.settled < 300 || p.settled === 409) && !recorded.has(token)) paymentsLost++;
    }
    return {
      clicksLost: clickIds.length - found.rowCount!,
      paymentsLost,
      duplicates: [...recorded.values()].filter((n) => n > 1).length,
      phantomSignups: t.signups.filter((s) => s.status === 404).length,
      unsettled,
    };
  } finally {
    await client.end();
  }
}

export interface Summary {
  requests: number;
  byStatus: Record<string, number>;
  longestMs: number;
  /** Answers with a 5xx status other than 503. */
  serverErrors: number;
}

export function summarize(attempts: Attempt[]): Summary {
  const byStatus: Record<string, number> = {};
  let longestMs = 0;
  let serverErrors = 0;
  for (const a of attempts) {
    const key = a.status === 0 ? 'no answer' : String(a.status);
    byStatus[key] = (byStatus[key] ?? 0) + 1;
    longestMs = Math.max(longestMs, a.ms);
    if (a.status >= 500 && a.status !== 503) serverErrors++;
  }
  return { requests: attempts.length, byStatus, longestMs, serverErrors };
}
