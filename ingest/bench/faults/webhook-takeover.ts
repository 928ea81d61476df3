import pg from 'pg';
import { apiClient } from '../../client/api-client.js';
import { startNode, tsxArgs } from '../processes.js';
import { createThrowawayDatabase, type IngestProcess, initOrganization, startIngest } from './fleet.js';

/**
 * An ingest process killed in the middle of delivering webhooks
 * (ingest/bench/README.md#webhook-takeover): two processes share the deliveries of a few endpoints
 * while events are made in waves, one is killed (SIGKILL) halfway through while each of its lanes
 * is in the middle of an attempt, and the run measures how long its claimed deliveries waited for
 * the other process, how many attempts reached a receiver twice, and whether every delivery arrived
 * exactly where SQL says it should.
 *
 * The events are partners copied in SQL, a wave every 100 ms (the triggers make a
 * `partner.created` for each, as for any partner): the same number of events on a quiet host
 * and on a busy one, since the share sent twice is counted against them.
 */

export interface TakeoverLoad {
  /** Events made, spread evenly over `loadMs`; the process is killed `killAfterMs` in. */
  events: number;
  loadMs: number;
  killAfterMs: number;
  /** Endpoints subscribed to every event, each a path of the receiver. */
  endpoints: number;
}

export const TAKEOVER_LOAD: TakeoverLoad = { events: 3000, loadMs: 3000, killAfterMs: 1500, endpoints: 1 };

const WAVE_MS = 100;

export interface TakeoverReport {
  name: string;
  /** Deliveries SQL made (an event to an endpoint). */
  deliveries: number;
  /** Requests the receiver got, and distinct deliveries among them (all verified). */
  received: number;
  delivered: number;
  /** Requests that repeated a delivery the receiver already had. */
  duplicates: number;
  unverified: number;
  /** Deliveries SQL has that never arrived, and arrivals SQL has no delivery for. */
  lost: number;
  phantom: number;
  /** Deliveries claimed by either process, not yet recorded, when the victim was killed. */
  heldAtKill: number;
  /** Of those, the ones claimed again: the killed process's, taken over by the other. */
  takenOver: number;
  /**
   * Deliveries not held at the kill that were nonetheless claimed more than once (must be none:
   * a live process keeps its leases).
   */
  claimedTwice: number;
  /** From the kill until every delivery held at the kill had succeeded (null: not within the wait). */
  resumeMs: number | null;
  /** From the load's end until the last delivery arrived. */
  lastAfterLoadMs: number;
  /** Exit codes or signals of processes that ended on their own (must be none). */
  exits: (number | string)[];
  logs: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Copies the template partner `load.events` times in waves every 100 ms over `load.loadMs`. */
async function makeWaves(sql: pg.Client, templateId: string, load: TakeoverLoad): Promise<void> {
  const waves = Math.max(1, Math.round(load.loadMs / WAVE_MS));
  const start = Date.now();
  for (let wave = 0, made = 0; wave < waves; wave++) {
    const size = Math.round((load.events * (wave + 1)) / waves) - made;
    await sql.query(
      `insert into partners
       select (jsonb_populate_record(null::partners, to_jsonb(p) || jsonb_build_object(
                 'id', svc_random_id('part'), 'email', 'wave-' || $2::int || '-' || g || '@waves.example'))).*
         from partners p cross join generate_series(1, $3::int) g
        where p.id = $1`,
      [templateId, wave, size],
    );
    made += size;
    await sleep(start + (wave + 1) * WAVE_MS - Date.now());
  }
}

/**
 * Polls SQL until the deliveries `ids` have all succeeded (null: until nothing is left to fan
 * out or send), or until `deadline`; when that happened, or null.
 */
async function whenSettled(sql: pg.Client, ids: string[] | null, deadline: number): Promise<number | null> {
  while (Date.now() < deadline) {
    const { rows } = await (ids
      ? sql.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where id = any($1) and status <> 'succeeded'`, [ids])
      : sql.query<{ n: number }>(
          `select (select count(*) from events where dispatched_at is null)::int
                + (select count(*) from webhook_deliveries where status = 'pending')::int as n`,
        ));
    if (rows[0].n === 0) return Date.now();
    await sleep(100);
  }
  return null;
}

interface ReceiverCount {
  received: number;
  verified: number;
  distinct: number;
  last_new_at: number;
  held: number;
}

/**
 * Runs the scenario on a throwaway database of the server at `adminUrl`; `env` is added to the
 * processes' environment (a shorter lease for the fault test). Waits at most `waitMs` after the
 * load for the deliveries to settle.
 */
export async function killDuringDelivery(
  adminUrl: string,
  redisUrl: string,
  {
    load = TAKEOVER_LOAD,
    env: extraEnv = {},
    waitMs = 300_000,
  }: { load?: TakeoverLoad; env?: Record<string, string>; waitMs?: number } = {},
): Promise<TakeoverReport> {
  const database = await createThrowawayDatabase(adminUrl);
  const receiver = await startNode(tsxArgs('ingest/bench/webhook-receiver.ts'), {}, (port) => `http://127.0.0.1:${port}/count`);
  const sql = new pg.Client({ connectionString: database.url });
  const processes: IngestProcess[] = [];
  const get = async <T>(path: string) => (await (await fetch(`${receiver.url}${path}`)).json()) as T;
  const post = (path: string, body: unknown = {}) => fetch(`${receiver.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  try {
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, SVC_WEBHOOKS_ALLOW_PRIVATE: 'true', ...extraEnv };
    const keys = await initOrganization(env);
    processes.push(...(await Promise.all([startIngest(env), startIngest(env)])));
    await sql.connect();
    const api = apiClient(processes[0].url, keys.api_key);
    const pathOf = new Map<string, string>();
    for (let i = 1; i <= load.endpoints; i++) {
      const path = `/hooks/${i}`;
      const endpoint = (await api.post('/v1/webhook-endpoints', { url: `${receiver.url}${path}` })).data[0];
      await post('/secret', { secret: endpoint.secret, path });
      pathOf.set(endpoint.id, path);
    }

    const template = (
      await api.post('/v1/partners', {
        program_id: keys.program_id,
        first_name: 'Wave',
        last_name: 'Template',
        email: 'template@waves.example',
      })
    ).data[0];
    const victim = processes[1];
    const startedAt = Date.now();
    const waves = makeWaves(sql, template.id, load);
    await sleep(load.killAfterMs);
    // Mid-batch for sure: past the next few requests (a lane is most often between batches when
    // this starts, so they take each lane several attempts into its batch), the receiver holds
    // its answers until every lane of both processes (one per endpoint each) is waiting on one,
    // or for 2 s at most (well within an attempt's 5 s).
    await post('/pause', { after: 10 * load.endpoints });
    const pausedAt = Date.now();
    while ((await get<ReceiverCount>('/count')).held < 2 * load.endpoints && Date.now() - pausedAt < 2000) await sleep(10);
    await victim.kill('SIGKILL');
    const killedAt = Date.now();
    // Claims either process held (the survivor's are done within moments).
    const held = (
      await sql.query<{ id: string }>(`select id from webhook_deliveries where status = 'pending' and leased_until is not null`)
    ).rows.map((r) => r.id);
    await post('/resume');
    const resumed = whenSettled(sql, held, startedAt + load.loadMs + waitMs);
    await waves;
    const loadEndedAt = Date.now();
    const resumedAt = await resumed;
    await whenSettled(sql, null, loadEndedAt + waitMs);

    const expected = new Set(
      (await sql.query<{ endpoint_id: string; event_id: string }>('select endpoint_id, event_id from webhook_deliveries')).rows.map(
        (d) => `${pathOf.get(d.endpoint_id)} ${d.event_id}`,
      ),
    );
    const { rows: claimedAgain } = await sql.query<{ held: boolean; n: number }>(
      'select id = any($1) as held, count(*)::int as n from webhook_deliveries where attempt_count > 1 group by 1',
      [held],
    );
    const claimedAgainIf = (wasHeld: boolean) => claimedAgain.find((r) => r.held === wasHeld)?.n ?? 0;
    const arrived = new Set(await get<string[]>('/deliveries'));
    const count = await get<ReceiverCount>('/count');
    return {
      name: 'an ingest process is killed while delivering',
      deliveries: expected.size,
      received: count.received,
      delivered: count.distinct,
      duplicates: count.verified - count.distinct,
      unverified: count.received - count.verified,
      lost: [...expected].filter((d) => !arrived.has(d)).length,
      phantom: [...arrived].filter((d) => !expected.has(d)).length,
      heldAtKill: held.length,
      takenOver: claimedAgainIf(true),
      claimedTwice: claimedAgainIf(false),
      resumeMs: resumedAt === null ? null : resumedAt - killedAt,
      lastAfterLoadMs: count.last_new_at - loadEndedAt,
      exits: processes.filter((p) => p !== victim && !p.alive()).map((p) => p.child.exitCode ?? p.child.signalCode ?? 'unknown'),
      logs: processes.map((p) => p.output()).join('\n'),
    };
  } finally {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await sql.end().catch(() => {});
    await receiver.stop();
    await database.drop();
  }
}
