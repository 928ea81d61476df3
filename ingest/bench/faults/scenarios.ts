import pg from 'pg';
import {
  createThrowawayDatabase,
  type IngestEnv,
  type IngestProcess,
  initOrganization,
  type Keys,
  startIngest,
  waitUntilAnswers,
} from './fleet.js';
import { type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from './private-servers.js';
import {
  type Attempt,
  type Audit,
  auditTraffic,
  type Summary,
  seedFixture,
  startTraffic,
  summarize,
  type TrafficRecord,
} from './traffic.js';

/**
 * The faults svc must survive, each under mixed traffic on two ingest processes
 * (ingest/docs/reliability.md#how-it-is-tested). A scenario breaks something for real, lets it
 * heal, and reports what the clients saw and what SQL holds.
 */

export interface FaultReport {
  name: string;
  summary: Summary;
  /** Requests that started while the fault lasted (and its answers). */
  duringFault: Summary;
  /** From the moment the dependency was back to the moment every process served again, ms. */
  recoveryMs: number;
  /** Requests answered 503 or not at all that started before the fault or after the recovery (must be none). */
  failedOutsideFault: number;
  audit: Audit;
  /** Exit codes or signals of ingest processes that ended on their own (must be none). */
  exits: (number | string)[];
  /** The log lines of the processes, for a failure message. */
  logs: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Timing {
  /** Traffic before the fault, during the outage, and after it is healed. */
  beforeMs: number;
  outageMs: number;
  afterMs: number;
  concurrency: number;
}

export const DEFAULT_TIMING: Timing = { beforeMs: 2000, outageMs: 4000, afterMs: 3000, concurrency: 8 };

interface Lab {
  env: IngestEnv;
  keys: Keys;
  processes: IngestProcess[];
  databaseUrl: string;
  close(): Promise<void>;
}

/** Two ingest processes on the given PostgreSQL database and Redis, with an organization. */
async function openLab(databaseUrl: string, redisUrl: string, extraEnv: Record<string, string> = {}): Promise<Lab> {
  const env: IngestEnv = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, ...extraEnv };
  const keys = await initOrganization(env);
  const processes = await Promise.all([startIngest(env), startIngest(env)]);
  return {
    env,
    keys,
    processes,
    databaseUrl,
    async close() {
      await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    },
  };
}

/** Polls every process with a request that needs SQL and the shared store until each answers 2xx; ms taken. */
async function timeUntilServing(lab: Lab, probe: (p: IngestProcess) => Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  const start = Date.now();
  await Promise.all(
    lab.processes.map(async (p) => {
      while (!(await probe(p).catch(() => false))) {
        if (Date.now() - start > timeoutMs) throw new Error(`${p.url} did not recover within ${timeoutMs} ms`);
        await sleep(25);
      }
    }),
  );
  return Date.now() - start;
}

const servesSql = (keys: Keys) => async (p: IngestProcess) => {
  const res = await fetch(`${p.url}/v1/programs/${keys.program_id}`, {
    headers: { authorization: `Bearer ${keys.api_key}` },
    signal: AbortSignal.timeout(2000),
  });
  return res.ok;
};

const sharedStateOk = async (p: IngestProcess) => {
  const res = await fetch(`${p.url}/readyz`, { signal: AbortSignal.timeout(2000) });
  return res.ok && ((await res.json()) as { data: { shared_state: string } }).data.shared_state === 'ok';
};

function within(attempts: Attempt[], from: number, to: number): Attempt[] {
  return attempts.filter((a) => a.start >= from && a.start <= to);
}

async function runScenario(
  name: string,
  lab: Lab,
  timing: Timing,
  fault: () => Promise<void>,
  heal: () => Promise<void>,
  probe: (p: IngestProcess) => Promise<boolean>,
): Promise<FaultReport> {
  const fixture = await seedFixture(lab.processes[0].url, lab.keys);
  const traffic = startTraffic(fixture, {
    targets: () => lab.processes.filter((p) => p.alive()).map((p) => p.url),
    concurrency: timing.concurrency,
  });
  await sleep(timing.beforeMs);
  const faultAt = Date.now();
  await fault();
  await sleep(timing.outageMs);
  await heal();
  const healedAt = Date.now();
  const recoveryMs = await timeUntilServing(lab, probe);
  const recoveredAt = Date.now();
  await sleep(timing.afterMs);
  const record: TrafficRecord = await traffic.stop();
  const failed = (a: Attempt) => a.status === 0 || a.status === 503;
  return {
    name,
    summary: summarize(record.attempts),
    duringFault: summarize(within(record.attempts, faultAt, healedAt)),
    recoveryMs,
    failedOutsideFault: record.attempts.filter((a) => failed(a) && (a.end < faultAt || a.start > recoveredAt)).length,
    audit: await auditTraffic(lab.databaseUrl, record),
    exits: lab.processes.filter((p) => !p.alive()).map((p) => p.child.exitCode ?? p.child.signalCode ?? 'unknown'),
    logs: lab.processes.map((p) => p.output()).join('\n'),
  };
}

/**
 * PostgreSQL terminates every connection of ingest's database, three times within a second
 * (pg_terminate_backend, as a failover, an idle_session_timeout or a pooler restart would),
 * on the server at `adminUrl`, in a database of the run's own.
 */
export async function terminateConnections(adminUrl: string, redisUrl: string, timing = DEFAULT_TIMING): Promise<FaultReport> {
  const database = await createThrowawayDatabase(adminUrl);
  const lab = await openLab(database.url, redisUrl);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const terminate = () =>
    admin.query('select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
      database.name,
    ]);
  try {
    return await runScenario(
      'PostgreSQL terminates every connection',
      lab,
      { ...timing, outageMs: 0 },
      async () => {
        for (let i = 0; i < 3; i++) {
          await terminate();
          await sleep(400);
        }
      },
      async () => {},
      servesSql(lab.keys),
    );
  } finally {
    await admin.end();
    await lab.close();
    await database.drop();
  }
}

/** A private PostgreSQL cluster is stopped (fast shutdown: every session ends) and started again after `outageMs`. */
export async function restartPostgres(redisUrl: string, timing = DEFAULT_TIMING): Promise<FaultReport> {
  const cluster: PrivatePostgres = await startPrivatePostgres();
  const database = await createThrowawayDatabase(cluster.url);
  const lab = await openLab(database.url, redisUrl);
  try {
    return await runScenario(
      'PostgreSQL restarts',
      lab,
      timing,
      () => cluster.stop(),
      () => cluster.start(),
      servesSql(lab.keys),
    );
  } finally {
    await lab.close();
    await cluster.close();
  }
}

/** A private Redis is killed (SIGKILL) and started again, empty, after `outageMs`. */
export async function killRedis(adminUrl: string, timing = DEFAULT_TIMING): Promise<FaultReport> {
  const redis: PrivateRedis = await startPrivateRedis();
  const database = await createThrowawayDatabase(adminUrl);
  const lab = await openLab(database.url, redis.url);
  try {
    return await runScenario(
      'Redis is killed and restarted',
      lab,
      timing,
      () => redis.kill(),
      () => redis.start(),
      sharedStateOk,
    );
  } finally {
    await lab.close();
    await redis.close();
    await database.drop();
  }
}

/** One of the two ingest processes is killed (SIGKILL) in the middle of the traffic; the other serves on. */
export async function killProcess(adminUrl: string, redisUrl: string, timing = DEFAULT_TIMING): Promise<FaultReport> {
  const database = await createThrowawayDatabase(adminUrl);
  const lab = await openLab(database.url, redisUrl);
  const victim = lab.processes[1];
  try {
    const report = await runScenario(
      'an ingest process is killed',
      lab,
      { ...timing, outageMs: 0 },
      () => victim.kill('SIGKILL'),
      async () => {},
      (p) => (p === victim ? Promise.resolve(true) : servesSql(lab.keys)(p)),
    );
    // The victim's end was the fault itself, not a crash.
    return { ...report, exits: report.exits.filter((e) => e !== 'SIGKILL') };
  } finally {
    await lab.close();
    await database.drop();
  }
}

/**
 * An ingest process started while its PostgreSQL is down waits for it (with a log line per
 * attempt) instead of exiting, and serves once it is up. Returns how long after PostgreSQL
 * came up the process served, and its log.
 */
export async function startBeforePostgres(
  redisUrl: string,
  downMs = 3000,
): Promise<{ servedAfterMs: number; logs: string; exited: boolean }> {
  const cluster = await startPrivatePostgres();
  const database = await createThrowawayDatabase(cluster.url);
  await cluster.stop();
  const proc = await startIngest({ DATABASE_URL: database.url, REDIS_URL: redisUrl, SVC_DB_WAIT_SECONDS: '60' }, { waitReady: false });
  try {
    // PostgreSQL stays down until the process has tried it and said it waits, then `downMs` more:
    // a fixed sleep alone let a process that started slowly (a busy host) find it up already.
    const deadline = Date.now() + 60_000;
    while (proc.alive() && !proc.output().includes('waiting for PostgreSQL') && Date.now() < deadline) await sleep(100);
    await sleep(downMs);
    const exited = !proc.alive();
    await cluster.start();
    const upAt = Date.now();
    await waitUntilAnswers(proc);
    return { servedAfterMs: Date.now() - upAt, logs: proc.output(), exited };
  } finally {
    await proc.kill('SIGKILL');
    await cluster.close();
  }
}
