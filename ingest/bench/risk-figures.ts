import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { type CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import pg from 'pg';
import type { ApiClient } from '../client/api-client.js';
import { type Db, openDatabase } from '../src/db/database.js';
import { partnerBalances } from '../src/resources/payouts/payouts.repository.js';
import { floodedVisitors, isHeld, refundFigures } from '../src/resources/risk/risk.repository.js';
import { visitorHash } from '../src/resources/risk/risk-identity.js';
import { checkClickFlooding } from '../src/resources/risk/risk-job.js';
import { type LoadResult, load, settled } from './load.js';

/**
 * `npm run bench -- --risk`: what the fraud and risk rules cost on the click path and the payment
 * path (ingest/bench/README.md#fraud-and-risk-rules). Two programs made alike, one with every rule
 * on (the paid-ad and banned-source rules too, with a host list; click flooding at its defaults,
 * so the service's job checks the clicks while they arrive), one with every rule off. Each round
 * drives both with the same loads, in the order off, on, then on, off (ABBA), so a drift of the
 * machine over the run weighs on both alike; each program's own data grow alike too.
 *
 * One program's run: script clicks (each carrying `ads` and a banned referrer; few browsers,
 * each clicking every one of the partner's links, so the flood rule has floods to find); a wait
 * while the service's own check of those clicks still runs, then one check timed from here once
 * the late-click window has passed; then customers made on those clicks (the customer rules),
 * payments on 64 of them, and partial refunds of those payments (the refund rate rule). Each load
 * reports, besides req/s and latency, the CPU time the service and its PostgreSQL backends spent
 * per answered request, which other work on the machine barely moves. Afterwards: the flood query
 * over several windows (and at the steady state, an hour of a program's clicks) with its plans,
 * and what reads the holds (the approval job's scan a month on, the balances page) and the refund
 * rule's read of the partner's daily figures.
 */

export type Mode = 'off' | 'on';

export interface RiskOptions {
  api: ApiClient;
  ingestUrl: string;
  apiKey: string;
  databaseUrl: string;
  connections: number;
  /** Seconds of each click run: at least the job's interval, so the job runs during every one. */
  clickSeconds: number;
  /** Seconds of each customer, payment and refund run. */
  seconds: number;
  rounds: number;
  /** Links of each program's partner: how many clicks one browser makes in a run. */
  links: number;
  userAgent: string;
  organizationId: string;
  /** The service's process, for its CPU time. */
  ingestPid: number;
  /** Clicks a second of the steady-state program (an hour of them is seeded). */
  steadyPace: number;
  /** Clicks of another program seeded before the last timing of the flood query. */
  otherClicks: number;
  /** How long to wait for the service's check to end after a click run before cancelling it. */
  drainSeconds: number;
  /** The service's SVC_RISK_INTERVAL_SECONDS. */
  riskIntervalSeconds: number;
  log: (line: string) => void;
}

export interface PathRun extends LoadResult {
  mode: Mode;
  round: number;
  /** Rows found in SQL against `ok`: every answered request stored. */
  stored: number;
  durable: boolean;
  /**
   * CPU time the service's process and its PostgreSQL backends spent per answered request during
   * the run, in µs (the job's queries included): what other work on the machine barely changes.
   */
  cpuMicros: number;
  /** Refunds only: payments refunded in full by requests cut off as the load stopped. */
  fullRefunds?: number;
}

export interface ClickRun extends PathRun {
  /** CPU per click with that of the checks of these clicks after the load (the service's, still running, and the one from here). */
  cpuWithChecksMicros: number;
  /** Whether the service's click check ran while the load did (its mark moved inside the run, or it was still running at the end). */
  jobRanDuringLoad: boolean;
  /** click_flooding events made by the service's checks that started during the load. */
  floodEventsDuringLoad: number;
  /** The check run from here after the load (both programs), and what it made; null when it ran past the statement timeout. */
  checkAfterMs: number | null;
  checkAfterEvents: number;
  /** How long the service's own flood query still ran after the load ended (0: none), and whether it was cancelled at `drainSeconds`. */
  jobDrainSeconds: number;
  jobCancelled: boolean;
}

export interface RiskFigures {
  programs: Record<Mode, string>;
  /** What every script click pays whether its program's rules are on or off: its fingerprint, in µs (this process, 100,000 of them). */
  fingerprintMicros: number;
  /** EXPLAIN ANALYZE of the flood query over each check window after a click run with the rules on, as the check met it. */
  checkPlans: string[];
  paths: { clicks: ClickRun[]; customers: PathRun[]; payments: PathRun[]; refunds: PathRun[] };
  events: Record<string, number>;
  flood: {
    clicks: number;
    browsers: number;
    windows: { name: string; seconds: number; clicksInWindow: number; tableClicks: number; flagged: number; ms: number[] }[];
    plans: string[];
    /** PostgreSQL time of the check, per click of its interval, at the steady state (every click of the hour in the table). */
    steadyMicrosPerClick: number;
  };
  holds: {
    programs: Record<
      Mode,
      {
        openEvents: number;
        commissions: number;
        /** Commissions the approval scan finds approvable a month on (the others held). */
        approvable: number;
        approvalMs: number[];
        balancesMs: number[];
        /** The partner's payments, all within the refund rule's 60 days. */
        payments: number;
        refundRuleMs: number[];
      }
    >;
    plans: string[];
  };
}

const RULES: Record<Mode, object> = {
  on: {
    self_referral: { enabled: true },
    shared_payout_account: { enabled: true },
    disposable_email: { enabled: true },
    paid_ad_traffic: { enabled: true },
    banned_referral_source: { enabled: true, hosts: ['coupons.example', 'deals.example', 'cashback.example'] },
    // The defaults: 20 clicks an hour.
    click_flooding: { enabled: true },
    refund_rate: { enabled: true },
  },
  off: {
    self_referral: { enabled: false },
    shared_payout_account: { enabled: false },
    disposable_email: { enabled: false },
    paid_ad_traffic: { enabled: false },
    banned_referral_source: { enabled: false },
    click_flooding: { enabled: false },
    refund_rate: { enabled: false },
  },
};

/** What the benchmark's own statements may take. */
const STATEMENT_TIMEOUT_MS = 180_000;
/** PostgreSQL's query_canceled (a statement timeout, or pg_cancel_backend). */
const TIMED_OUT = '57014';

/**
 * Waits until the service's click check is over: no flood query runs on the bench's database and
 * no other connection holds a transaction open (the check's, around its statements), at most
 * `capMs` after `since`; then cancels the flood queries left and waits for their transactions.
 * Answers the seconds since `since` when a check was still running, else 0.
 */
async function drainFloodQueries(client: pg.Client, since: Date, capMs: number): Promise<{ seconds: number; cancelled: boolean }> {
  const busy = async () =>
    (
      await client.query<{ pid: number; flood: boolean }>(
        `select pid, query like '%with pairs as%' and state = 'active' as flood from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
            and (xact_start < now() - interval '500 milliseconds' or (state = 'active' and query like '%with pairs as%'))`,
      )
    ).rows;
  let seen = false;
  let cancelled = false;
  for (;;) {
    const pids = await busy();
    const seconds = Number(((Date.now() - since.getTime()) / 1000).toFixed(1));
    if (pids.length === 0) return { seconds: seen ? seconds : 0, cancelled };
    seen = true;
    if (!cancelled && Date.now() - since.getTime() > capMs) {
      for (const { pid } of pids.filter((p) => p.flood)) await client.query('select pg_cancel_backend($1)', [pid]);
      cancelled = true;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The click check's late-click window (LATE_CLICK_MS in risk-job.ts), and a second of margin. */
const LATE_CLICK_WAIT_MS = 11_000;

interface Setup {
  mode: Mode;
  programId: string;
  publicKey: string;
  partnerId: string;
  values: string[];
}

export async function riskFigures(o: RiskOptions): Promise<RiskFigures> {
  // Every statement from here stops at the timeout: a flood query can run for minutes.
  const client = new pg.Client({ connectionString: o.databaseUrl, statement_timeout: STATEMENT_TIMEOUT_MS });
  // Its end is the bench's (an interrupted run drops the database under it).
  client.on('error', () => {});
  await client.connect();
  const url = new URL(o.databaseUrl);
  url.searchParams.set('options', `-c statement_timeout=${STATEMENT_TIMEOUT_MS}`);
  const db = openDatabase({ kind: 'postgres', url: url.toString() });
  try {
    const setups = {} as Record<Mode, Setup>;
    for (const mode of ['off', 'on'] as const) setups[mode] = await setUp(o, mode);
    const paths: RiskFigures['paths'] = { clicks: [], customers: [], payments: [], refunds: [] };
    let lastOnClicks: { start: Date; end: Date } | undefined;
    const checkPlans: string[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const order: Mode[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const mode of order) {
        const s = setups[mode];
        const tag = `${mode}${round}${randomBytes(2).toString('hex')}`;
        o.log(`risk: round ${round + 1}, rules ${mode}: clicks (${o.clickSeconds} s)`);
        const start = new Date();
        const { result: clicks, cpuMs } = await withCpu(o, client, () => clickRun(o, s, tag));
        const end = new Date();
        if (mode === 'on') lastOnClicks = { start, end };
        const stored = await settled(async () =>
          Number((await o.api.get(`/v1/partners/${s.partnerId}?include[]=stats`)).data.stats!.total_clicks),
        );
        const before = paths.clicks.filter((r) => r.mode === mode).reduce((sum, r) => sum + r.stored, 0);
        const jobRan = await scalar(
          client,
          'select count(*)::int as n from risk_checks where program_id = $1 and clicks_checked_until > $2 and clicks_checked_until <= $3',
          [s.programId, start, end],
        );
        const mark = async () =>
          (await client.query<{ at: Date }>('select clicks_checked_until as at from risk_checks where program_id = $1', [s.programId]))
            .rows[0]?.at;
        let markBefore: Date | undefined;
        let checkAfterMs: number | null = null;
        let checkEvents = 0;
        // The checks of these clicks after the load, with their CPU time: what the rules cost a
        // click is the load's CPU and this together.
        const { result: drain, cpuMs: cpuAfterMs } = await withCpu(o, client, async () => {
          // The service's own check of these clicks may still be running: until it ends (at most
          // `drainSeconds`, then it is cancelled) nothing else runs, so the next run does not pay
          // for it. How long it ran on after the load is a figure of its own.
          const drained = await drainFloodQueries(client, end, o.drainSeconds * 1000);
          // Then one check from here (timed, at most the statement timeout) moves both programs'
          // marks past these clicks, once the late-click window has passed.
          await new Promise((r) => setTimeout(r, Math.max(0, end.getTime() + LATE_CLICK_WAIT_MS - Date.now())));
          markBefore = await mark();
          const checkStart = performance.now();
          if (drained.cancelled) {
            // The same clicks that check could not get through: not timed again.
            await client.query('update risk_checks set clicks_checked_until = now()');
          } else {
            try {
              // A program whose check another process holds is skipped: checked again until it is not.
              for (;;) {
                const started = new Date();
                checkEvents += await checkClickFlooding(db);
                const at = await mark();
                if (!at || at >= new Date(started.getTime() - 1000) || performance.now() - checkStart > STATEMENT_TIMEOUT_MS) break;
                await new Promise((r) => setTimeout(r, 500));
              }
              checkAfterMs = Math.round(performance.now() - checkStart);
            } catch (err) {
              if ((err as { code?: string }).code !== TIMED_OUT) throw err;
              await client.query('update risk_checks set clicks_checked_until = now()');
            }
          }
          return drained;
        });
        // The job's checks that started during the load (an event is made at its check's start).
        const floodEvents = await scalar(
          client,
          `select count(*)::int as n from risk_events where program_id = $1 and rule = 'click_flooding' and created_at > $2 and created_at <= $3`,
          [s.programId, start, end],
        );
        const markAfter = await mark();
        // Set in the closure above.
        const from = markBefore as Date | undefined;
        const took = checkAfterMs as number | null;
        // The flood query over the window that check read, at once (the statistics as the job met
        // them): its plan, run (ANALYZE) when the check took under 10 s.
        if (mode === 'on' && from && markAfter && markAfter > from) {
          const q = await captured(db, (d) => floodedVisitors(d, s.programId, new Date(from.getTime() - 10_000), markAfter, 20));
          const analyze = took !== null && took < 10_000;
          const { rows } = await client.query(`explain ${analyze ? '(analyze, buffers) ' : ''}${q.sql}`, q.parameters as unknown[]);
          checkPlans.push(
            `the flood query of the check after round ${round + 1}'s click run (rules on; the check took ${took === null ? `over ${STATEMENT_TIMEOUT_MS / 1000} s` : `${took} ms`}${analyze ? '' : ', so its plan only'}):\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`,
          );
        }
        paths.clicks.push({
          ...clicks,
          mode,
          round,
          stored: stored - before,
          durable: everyAnswerStored(stored - before, clicks, o.connections),
          cpuMicros: perRequest(cpuMs, clicks),
          cpuWithChecksMicros: perRequest(cpuMs + cpuAfterMs, clicks),
          // Its mark moved during the load, or its check was still running when the load ended.
          jobRanDuringLoad: jobRan > 0 || drain.seconds > 0,
          floodEventsDuringLoad: floodEvents,
          checkAfterMs,
          checkAfterEvents: checkEvents,
          jobDrainSeconds: drain.seconds,
          jobCancelled: drain.cancelled,
        });
        o.log(
          `risk:   ${clicks.rps} req/s, p50 ${clicks.p50} ms, p99 ${clicks.p99} ms, CPU ${perRequest(cpuMs, clicks)} µs a click (${perRequest(cpuMs + cpuAfterMs, clicks)} with the checks after the load); job during the load ${jobRan > 0 || drain.seconds > 0}, ${floodEvents} flood events; its check ran on ${drain.seconds} s after the load${drain.cancelled ? ' (cancelled)' : ''}; check from here ${checkAfterMs ?? 'timed out'} ms`,
        );

        o.log(`risk: round ${round + 1}, rules ${mode}: customers, payments, refunds (${o.seconds} s each)`);
        paths.customers.push({ ...(await customerRun(o, client, s, tag)), mode, round });
        paths.payments.push({ ...(await paymentRun(o, client, s, tag)), mode, round });
        paths.refunds.push({ ...(await refundRun(o, client, s, tag)), mode, round });
      }
    }

    const events = Object.fromEntries(
      (
        await client.query<{ rule: string; n: number }>(
          'select rule, count(*)::int as n from risk_events where program_id = $1 group by rule order by rule',
          [setups.on.programId],
        )
      ).rows.map((r) => [r.rule, r.n]),
    );
    const offEvents = await scalar(client, 'select count(*)::int as n from risk_events where program_id = $1', [setups.off.programId]);
    if (offEvents > 0) throw new Error(`the program with every rule off has ${offEvents} risk events`);

    await client.query('analyze clicks');
    await client.query('analyze risk_events');
    const holds = await holdFigures(o, db, client, setups);
    const flood = await floodFigures(o, db, client, setups.on.programId, lastOnClicks!);
    return {
      programs: { off: setups.off.programId, on: setups.on.programId },
      fingerprintMicros: fingerprintMicros(o.userAgent),
      checkPlans,
      paths,
      events,
      flood,
      holds,
    };
  } finally {
    await db.destroy();
    await client.end();
  }
}

/** A program made as the bench's others are, its rules set, a partner and `links` links. */
async function setUp(o: RiskOptions, mode: Mode): Promise<Setup> {
  const program = (await o.api.post('/v1/programs', { name: `Risk rules ${mode}` })).data[0];
  await o.api.put(`/v1/programs/${program.id}/risk-rules`, RULES[mode]);
  const partner = (
    await o.api.post('/v1/partners', {
      program_id: program.id,
      first_name: 'Risk',
      last_name: mode,
      email: `risk-${mode}@partners.example`,
      payout_method: 'paypal',
      payout_details: { email: `risk-${mode}-pay@partners.example` },
    })
  ).data[0];
  const prefix = `risk${mode}${randomBytes(3).toString('hex')}x`;
  const values: string[] = [];
  for (let i = 0; i < o.links; i++) {
    values.push(`${prefix}${i}`);
    await o.api.post('/v1/links', { partner_id: partner.id, param: 'ref', value: values[i] });
  }
  return { mode, programId: program.id, publicKey: program.public_key, partnerId: partner.id, values };
}

/**
 * Script clicks as a browser that landed from a paid ad on a coupon site sends them: the n-th
 * request is browser n / links clicking link n % links, so each browser clicks every link once
 * (no click is a repeat the visit memory answers) and makes `links` clicks within the run.
 */
function clickRun(o: RiskOptions, s: Setup, tag: string): Promise<LoadResult> {
  const L = s.values.length;
  return load({
    url: `${o.ingestUrl}/v1/track/click`,
    connections: o.connections,
    duration: o.clickSeconds,
    headers: { 'content-type': 'text/plain' },
    body: (n) =>
      JSON.stringify({
        key: s.publicKey,
        param: 'ref',
        value: s.values[n % L],
        page: `https://acme.example/pricing?ref=${s.values[n % L]}`,
        referrer: 'https://www.coupons.example/acme-discount',
        ads: ['gclid'],
      }),
    vary: (n) => ({ 'user-agent': `${o.userAgent} browser/${tag}-${Math.floor(n / L)}` }),
  });
}

/** Customers made on this run's clicks (one each), one in eight with a disposable e-mail. */
async function customerRun(o: RiskOptions, client: pg.Client, s: Setup, tag: string): Promise<Omit<PathRun, 'mode' | 'round'>> {
  const clickIds = (
    await client.query<{ id: string }>(
      `select k.id from clicks k where k.program_id = $1 and not exists (select 1 from customers c where c.click_id = k.id)
        order by k.created_at desc limit 60000`,
      [s.programId],
    )
  ).rows.map((r) => r.id);
  const { result: r, cpuMs } = await withCpu(o, client, () =>
    load({
      url: `${o.ingestUrl}/v1/customers`,
      connections: o.connections,
      duration: o.seconds,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${o.apiKey}` },
      body: (n) =>
        JSON.stringify({
          click_id: clickIds[n % clickIds.length],
          email: `buyer-${tag}-${n}@${n % 8 === 0 ? 'mailinator.com' : 'shop.example'}`,
        }),
    }),
  );
  const stored = await settled(() =>
    scalar(client, `select count(*)::int as n from customers where program_id = $1 and email like $2`, [s.programId, `buyer-${tag}-%`]),
  );
  if (r.requests > clickIds.length) throw new Error(`customers: ${r.requests} requests for ${clickIds.length} clicks`);
  return { ...r, stored, durable: everyAnswerStored(stored, r, o.connections), cpuMicros: perRequest(cpuMs, r) };
}

/** Payments on the default flow (20 %), spread over 64 of this run's customers, as the main bench's. */
async function paymentRun(o: RiskOptions, client: pg.Client, s: Setup, tag: string): Promise<Omit<PathRun, 'mode' | 'round'>> {
  const customers = (
    await client.query<{ id: string }>('select id from customers where program_id = $1 and email like $2 order by created_at limit 64', [
      s.programId,
      `buyer-${tag}-%`,
    ])
  ).rows.map((r) => r.id);
  const { result: r, cpuMs } = await withCpu(o, client, () =>
    load({
      url: `${o.ingestUrl}/v1/transactions`,
      connections: o.connections,
      duration: o.seconds,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${o.apiKey}` },
      body: (n) => JSON.stringify({ amount: 4900, customer_id: customers[n % customers.length], charge_id: `ch_${tag}_${n}` }),
    }),
  );
  const stored = await settled(() =>
    scalar(client, 'select count(*)::int as n from transactions where program_id = $1 and charge_id like $2', [
      s.programId,
      `ch\\_${tag}\\_%`,
    ]),
  );
  return { ...r, stored, durable: everyAnswerStored(stored, r, o.connections), cpuMicros: perRequest(cpuMs, r) };
}

/** Partial refunds (1 of 49 dollars, `PUT …/refund`) of this run's payments, each refund its own request. */
async function refundRun(o: RiskOptions, client: pg.Client, s: Setup, tag: string): Promise<Omit<PathRun, 'mode' | 'round'>> {
  const ids = (
    await client.query<{ id: string }>('select id from transactions where program_id = $1 and charge_id like $2 order by id', [
      s.programId,
      `ch\\_${tag}\\_%`,
    ])
  ).rows.map((r) => r.id);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${o.apiKey}` };
  // One refund first, to fail loudly rather than measure errors.
  const first = await fetch(`${o.ingestUrl}/v1/transactions/${ids[0]}/refund`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ amount: 100 }),
  });
  if (!first.ok) throw new Error(`refund answered ${first.status}: ${await first.text()}`);
  const { result: r, cpuMs } = await withCpu(o, client, () =>
    load({
      url: `${o.ingestUrl}/v1/transactions`,
      connections: o.connections,
      duration: o.seconds,
      method: 'PUT',
      headers,
      body: () => JSON.stringify({ amount: 100 }),
      path: (n) => `/v1/transactions/${ids[n % ids.length]}/refund`,
    }),
  );
  // Refunds of 100 cents each; a payment refunded in full was refunded by a request the load
  // generator cut off as it stopped (README: a problem found), counted as one.
  const counts = async () =>
    (
      await client.query<{ partial: number; full: number }>(
        `select coalesce(sum(refunded_amount / 100) filter (where refunded_amount < amount), 0)::int as partial,
                count(*) filter (where refunded_amount = amount)::int as full
           from transactions where program_id = $1 and charge_id like $2`,
        [s.programId, `ch\\_${tag}\\_%`],
      )
    ).rows[0];
  await settled(async () => {
    const c = await counts();
    return c.partial + c.full * 1000;
  });
  const { partial, full } = await counts();
  if (r.requests > ids.length * 48) throw new Error(`refunds: ${r.requests} requests for ${ids.length} payments`);
  // The first refund above is stored too.
  const stored = partial + full - 1;
  return { ...r, stored, fullRefunds: full, durable: everyAnswerStored(stored, r, o.connections), cpuMicros: perRequest(cpuMs, r) };
}

/**
 * The flood query (floodedVisitors) on the program with the rule on, read-only: over one check's
 * window at the default interval while clicks arrive at the run's pace (the last click run, from
 * its start less the late-click window), and over the whole hour before now (a program's first
 * check, or one after the service was down). Then the same check window once the clicks table
 * also holds other merchants' clicks (`otherClicks` over the last 30 days, a tenth of them in the
 * last hour), seeded with plain SQL. Each timed three times; the plans of the check window.
 */
async function floodFigures(
  o: RiskOptions,
  db: Db,
  client: pg.Client,
  programId: string,
  lastRun: { start: Date; end: Date },
): Promise<RiskFigures['flood']> {
  const now = new Date();
  const check = { from: new Date(lastRun.start.getTime() - 10_000), to: lastRun.end };
  const windows: RiskFigures['flood']['windows'] = [];
  const plans: string[] = [];
  const time = async (name: string, from: Date, to: Date, withPlan: boolean, program = programId) => {
    let flagged = 0;
    const ms = await timings(async () => {
      flagged = (await floodedVisitors(db, program, from, to, 20)).length;
    });
    const clicksInWindow = await scalar(
      client,
      'select count(*)::int as n from clicks where program_id = $1 and created_at > $2 and created_at <= $3',
      [program, from, to],
    );
    const tableClicks = await scalar(client, 'select count(*)::int as n from clicks', []);
    windows.push({ name, seconds: Math.round((to.getTime() - from.getTime()) / 1000), clicksInWindow, tableClicks, flagged, ms });
    if (withPlan) {
      const q = await captured(db, (d) => floodedVisitors(d, program, from, to, 20));
      plans.push(await explained(client, `${name}, ${tableClicks} clicks in the table`, q));
    }
    o.log(
      `risk: flood query, ${name} (${clicksInWindow} of ${tableClicks} clicks): ${ms.map(msText).join(', ')} ms, ${flagged} browsers flagged`,
    );
  };
  await time('one check under the click load', check.from, check.to, true);
  await time('the whole hour', new Date(now.getTime() - 3_600_000), now, false);
  const clicks = await scalar(client, 'select count(*)::int as n from clicks where program_id = $1', [programId]);
  const browsers = await scalar(client, 'select count(distinct visitor_hash)::int as n from clicks where program_id = $1', [programId]);
  if (o.otherClicks > 0) {
    o.log(`risk: seeding ${o.otherClicks} clicks of another program`);
    await seedOtherClicks(o, client, o.otherClicks);
    await time("one check under the click load, other merchants' clicks in the table", check.from, check.to, true);
  }
  // The steady state: a program whose partner has had clicks at `steadyPace` a second for the
  // whole hour (each browser clicking `links` times), checked over one interval's window, before
  // its statistics know it and after; and what that costs each click of an interval.
  const steady = await seedSteadyProgram(o, client);
  const window = { from: new Date(steady.now.getTime() - (o.riskIntervalSeconds + 10) * 1000), to: steady.now };
  const name = `one check at ${o.steadyPace} clicks/s after an hour of them`;
  await time(`${name}, statistics not yet analyzed`, window.from, window.to, true, steady.programId);
  await client.query('analyze clicks');
  await time(name, window.from, window.to, true, steady.programId);
  const checkMs = Math.min(...windows.at(-1)!.ms.filter((ms) => ms > 0));
  const steadyMicrosPerClick = Math.round((checkMs * 1000) / (o.steadyPace * o.riskIntervalSeconds));
  o.log(`risk: steady state: a check every ${o.riskIntervalSeconds} s costs ${steadyMicrosPerClick} µs of PostgreSQL per click`);
  return { clicks, browsers, windows, plans, steadyMicrosPerClick };
}

/** A program of its own with one partner, and `steadyPace` clicks a second over the hour before now. */
async function seedSteadyProgram(o: RiskOptions, client: pg.Client): Promise<{ programId: string; now: Date }> {
  const program = (await o.api.post('/v1/programs', { name: 'Steady' })).data[0];
  await client.query(
    `insert into partners (id, organization_id, program_id, group_id, status, first_name, last_name, email, payout_method, payout_details,
                           completed_onboarding, first_customer_email_active, new_customer_email_active, payout_paid_email_active, created_at, updated_at)
     values ('part_steady', $1, $2, $3, 'active', 'Steady', 'Partner', 'steady@partners.example', 'paypal',
             jsonb_build_object('email', 'pay@steady.example'), true, false, false, false, now(), now())`,
    [o.organizationId, program.id, program.default_group_id],
  );
  const count = o.steadyPace * 3600;
  const now = new Date();
  await client.query(
    `insert into clicks (id, organization_id, program_id, partner_id, device, visitor_hash, created_at, updated_at)
     select 'clk_steady' || g, $1, $2, 'part_steady', 'desktop', md5('steady' || (g / $5::int)),
            $3::timestamptz - ($4::int - g) * interval '1 second' / $6::int, $3::timestamptz
       from generate_series(1, $4::int) g`,
    [o.organizationId, program.id, now, count, o.links, o.steadyPace],
  );
  return { programId: program.id, now };
}

/** Another program's clicks, from script visitors (fingerprints), 20 partners, over the last 30 days and a tenth in the last hour. */
async function seedOtherClicks(o: RiskOptions, client: pg.Client, count: number): Promise<void> {
  const program = (await o.api.post('/v1/programs', { name: 'Other merchant' })).data[0];
  await client.query(
    `insert into partners (id, organization_id, program_id, group_id, status, first_name, last_name, email, payout_method, payout_details,
                           completed_onboarding, first_customer_email_active, new_customer_email_active, payout_paid_email_active, created_at, updated_at)
     select 'part_other' || g, $1, $2, $3, 'active', 'Other', 'Partner ' || g, 'p' || g || '@other.example', 'paypal',
            jsonb_build_object('email', 'pay' || g || '@other.example'),
            true, false, false, false, now(), now()
       from generate_series(1, 20) g`,
    [o.organizationId, program.id, program.default_group_id],
  );
  const BATCH = 200_000;
  for (let from = 1; from <= count; from += BATCH) {
    await client.query(
      `insert into clicks (id, organization_id, program_id, partner_id, device, visitor_hash, created_at, updated_at)
       select 'clk_other' || g, $1, $2, 'part_other' || (1 + g % 20), 'desktop', md5((g % 50000)::text),
              case when g % 10 = 0 then now() - (g % 3600) * interval '1 second' else now() - (g % 2592000) * interval '1 second' end, now()
         from generate_series($3::int, $4::int) g`,
      [o.organizationId, program.id, from, Math.min(count, from + BATCH - 1)],
    );
  }
  await client.query('analyze clicks');
}

/**
 * What reads the holds (isHeld), on each program: the approval job's scan once the 30-day delay
 * has passed for every commission (read-only: a count, not the claim), and the balances page
 * (`GET /v1/programs/:id/balances`, its SQL partnerBalances); and the refund rate rule's read of the
 * partner's daily figures of 60 days (refundFigures, from daily_stats), which every refund runs. Each timed three times; the plans
 * of the program with every rule on.
 */
async function holdFigures(o: RiskOptions, db: Db, client: pg.Client, setups: Record<Mode, Setup>): Promise<RiskFigures['holds']> {
  const monthOn = new Date(Date.now() + 31 * 86_400_000);
  const figures = {} as RiskFigures['holds']['programs'];
  const plans: string[] = [];
  const explain = async (name: string, q: CompiledQuery) => {
    plans.push(await explained(client, name, q));
  };
  const thrice = timings;
  for (const mode of ['off', 'on'] as const) {
    const { programId, partnerId } = setups[mode];
    const count = (text: string) => scalar(client, text, [programId]);
    const openEvents = await count(`select count(*)::int as n from risk_events where program_id = $1 and status = 'open'`);
    const commissions = await count('select count(*)::int as n from commissions where program_id = $1');
    const payments = await count('select count(*)::int as n from transactions where program_id = $1');
    const scan = sql<{ n: number }>`
        select count(*)::int as n from commissions
         where program_id = ${programId} and status = 'pending' and approval_type = 'scheduled' and deleted_at is null
           and scheduled_approval_date <= ${monthOn} and not ${isHeld('commissions', 'every program')}`;
    let approvable = -1;
    await timings(async () => {
      approvable = (await scan.execute(db)).rows[0].n;
    }, 1);
    const approvalMs = await thrice(() => scan.execute(db));
    const balancesMs = await thrice(() =>
      fetch(`${o.ingestUrl}/v1/programs/${programId}/balances?limit=100`, { headers: { authorization: `Bearer ${o.apiKey}` } }).then(
        async (r) => {
          if (!r.ok) o.log(`risk: the balances page answered ${r.status}: ${await r.text()}`);
          else await r.arrayBuffer();
        },
      ),
    );
    const since = new Date(Date.now() - 60 * 86_400_000);
    const refundRuleMs = await thrice(() => refundFigures(db, partnerId, since));
    await explain(`the balances page (partnerBalances), rules ${mode}`, await captured(db, (d) => partnerBalances(d, [partnerId], 'USD')));
    if (mode === 'on') {
      await explain('the approval scan a month on, rules on', scan.compile(db));
      await explain('the refund rate rule (refundFigures), rules on', await captured(db, (d) => refundFigures(d, partnerId, since)));
    }
    figures[mode] = { openEvents, commissions, approvable, approvalMs, balancesMs, payments, refundRuleMs };
    o.log(
      `risk: rules ${mode}: ${openEvents} open events; approval scan of ${commissions} commissions ${approvalMs.map(msText).join(', ')} ms (${approvable} approvable); balances ${balancesMs.map(msText).join(', ')} ms; refund rule's read of the daily figures of the partner's ${payments} payments ${refundRuleMs.map(msText).join(', ')} ms`,
    );
  }
  return { programs: figures, plans };
}

/** CPU clock ticks so far of the service's process and of every PostgreSQL backend on the bench's database, by pid. */
async function cpuTicks(client: pg.Client, ingestPid: number): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  const ticks = new Map<number, number>();
  for (const pid of [ingestPid, ...rows.map((r) => r.pid)]) {
    try {
      // utime and stime: fields 14 and 15, counted after the parenthesised command name.
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // a backend that ended meanwhile
    }
  }
  return ticks;
}

/** Runs `run` and answers its CPU time (service and PostgreSQL backends) in ms, with its result. */
async function withCpu<T>(o: RiskOptions, client: pg.Client, run: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const before = await cpuTicks(client, o.ingestPid);
  const result = await run();
  const after = await cpuTicks(client, o.ingestPid);
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return { result, cpuMs: ticks * (1000 / CLOCK_TICKS) };
}

const perRequest = (cpuMs: number, r: LoadResult) => Math.round((cpuMs * 1000) / Math.max(1, r.ok));

/** Linux's USER_HZ (getconf CLK_TCK), 100 on every common build. */
const CLOCK_TICKS = 100;

/** One fingerprint (the HMAC every script click computes, rules on or off), in µs: the best of three rounds of 100,000. */
function fingerprintMicros(userAgent: string): number {
  const salt = randomBytes(32).toString('hex');
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) visitorHash(salt, `203.0.113.${i % 256}`, `${userAgent} browser/${i}`);
    best = Math.min(best, ((performance.now() - started) * 1000) / 100_000);
  }
  return Number(best.toFixed(2));
}

/**
 * Three timings of `run` in ms, or fewer when one takes over 20 s; a run stopped by the statement
 * timeout is recorded as minus the timeout.
 */
async function timings(run: () => Promise<unknown>, times = 3): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times && !(Math.abs(ms[0]) > 20_000); i++) {
    const started = performance.now();
    try {
      await run();
    } catch (err) {
      if ((err as { code?: string }).code !== TIMED_OUT) throw err;
      ms.push(-STATEMENT_TIMEOUT_MS);
      continue;
    }
    ms.push(Math.round(performance.now() - started));
  }
  return ms;
}

const msText = (ms: number) => (ms < 0 ? `over ${-ms / 1000} s` : String(ms));

/** EXPLAIN ANALYZE of a statement, or its plan alone when it runs past the statement timeout. */
async function explained(client: pg.Client, name: string, q: CompiledQuery): Promise<string> {
  const plan = async (analyze: boolean) =>
    (await client.query(`explain ${analyze ? '(analyze, buffers) ' : ''}${q.sql}`, q.parameters as unknown[])).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
  try {
    return `${name}:\n${await plan(true)}`;
  } catch (err) {
    if ((err as { code?: string }).code !== TIMED_OUT) throw err;
    return `${name} (ran past the statement timeout: its plan only):\n${await plan(false)}`;
  }
}

/** The SQL text and parameters of the (last) statement `run` issues. */
async function captured(db: Db, run: (db: Db) => Promise<unknown>): Promise<CompiledQuery> {
  let node: RootOperationNode | undefined;
  let queryId: Parameters<KyselyPlugin['transformQuery']>[0]['queryId'] | undefined;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      node = args.node;
      queryId = args.queryId;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await run(db.withPlugin(plugin));
  return db.getExecutor().compileQuery(node!, queryId!);
}

async function scalar(client: pg.Client, text: string, values: unknown[]): Promise<number> {
  return Number((await client.query<{ n: number }>(text, values)).rows[0].n);
}

/** Rows ≥ answers, and no more than the requests that may still have been in flight. */
function everyAnswerStored(rows: number, r: LoadResult, connections: number): boolean {
  return rows >= r.ok && rows <= r.ok + connections;
}

/** The figures as Markdown: each path's runs, then off against on (mean, spread, cost), then the job and the holds. */
export function riskReport(f: RiskFigures): string {
  const lines: string[] = [];
  const names: Record<keyof RiskFigures['paths'], string> = {
    clicks: 'POST /v1/track/click (script, `ads`, banned referrer)',
    customers: 'POST /v1/customers (with a click)',
    payments: 'POST /v1/transactions (default flow)',
    refunds: 'PUT /v1/transactions/:id/refund (partial)',
  };
  lines.push('| path | rules | req/s (each run, in run order) | mean req/s | p50 ms | p99 ms | CPU µs per request | all stored |');
  lines.push('|---|---|---|---|---|---|---|---|');
  const summary: string[] = [];
  for (const [path, runs] of Object.entries(f.paths) as [keyof RiskFigures['paths'], PathRun[]][]) {
    const by = (mode: Mode) => runs.filter((r) => r.mode === mode);
    for (const mode of ['off', 'on'] as const) {
      const rs = by(mode);
      lines.push(
        `| ${names[path]} | ${mode} | ${rs.map((r) => r.rps).join(', ')} | ${Math.round(mean(rs.map((r) => r.rps)))} | ${rs.map((r) => r.p50).join(', ')} | ${rs.map((r) => r.p99).join(', ')} | ${rs.map((r) => r.cpuMicros).join(', ')} | ${rs.every((r) => r.durable && r.failed === 0)} |`,
      );
    }
    const m = (mode: Mode, k: 'rps' | 'p50' | 'p99' | 'cpuMicros') => mean(by(mode).map((r) => r[k]));
    // Each round's own cost (its on run against its off run): their spread.
    const rounds = [...new Set(runs.map((r) => r.round))].map((round) => {
      const pair = (mode: Mode) => runs.find((r) => r.round === round && r.mode === mode)!.rps;
      return pct(1 - pair('on') / pair('off'));
    });
    const spread = (mode: Mode) => {
      const xs = by(mode).map((r) => r.rps);
      return pct((Math.max(...xs) - Math.min(...xs)) / m(mode, 'rps'));
    };
    summary.push(
      `| ${names[path]} | ${pct(1 - m('on', 'rps') / m('off', 'rps'))} % | ${rounds.join(' / ')} % | ${spread('off')} / ${spread('on')} % | ${pct(m('on', 'cpuMicros') / m('off', 'cpuMicros') - 1)} % | ${m('off', 'p50').toFixed(1)} → ${m('on', 'p50').toFixed(1)} | ${m('off', 'p99').toFixed(1)} → ${m('on', 'p99').toFixed(1)} |`,
    );
  }
  // Clicks: the CPU of the flood checks of a run's clicks that ran after the load, counted too.
  const clickCpu = (mode: Mode) => mean(f.paths.clicks.filter((r) => r.mode === mode).map((r) => r.cpuWithChecksMicros));
  lines.push(
    `| ${names.clicks}, CPU with the click checks after the load | off | | | | | ${f.paths.clicks
      .filter((r) => r.mode === 'off')
      .map((r) => r.cpuWithChecksMicros)
      .join(', ')} | |`,
  );
  lines.push(
    `| ${names.clicks}, CPU with the click checks after the load | on | | | | | ${f.paths.clicks
      .filter((r) => r.mode === 'on')
      .map((r) => r.cpuWithChecksMicros)
      .join(', ')} | |`,
  );
  summary.push(`| ${names.clicks}, with the click checks after the load | | | | ${pct(clickCpu('on') / clickCpu('off') - 1)} % | | |`);
  lines.push('');
  lines.push(
    '| path | throughput cost (mean on against mean off) | per round | spread of the off / on runs | CPU per request, on against off | p50 ms off → on | p99 ms off → on |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  lines.push(...summary);
  lines.push('');
  const on = f.paths.clicks.filter((r) => r.mode === 'on');
  lines.push(
    `Click check (every rule on): the service's job ran during ${on.filter((r) => r.jobRanDuringLoad).length} of ${on.length} click runs (${on.map((r) => r.floodEventsDuringLoad).join(', ')} flood events made during them). Its check still ran after the load: ${f.paths.clicks.map((r) => `${r.jobDrainSeconds} s${r.jobCancelled ? ' (then cancelled)' : ''} (${r.mode})`).join(', ')}. The check run from here after each click run (both programs): ${f.paths.clicks.map((r) => `${r.checkAfterMs === null ? (r.jobCancelled ? 'not run' : 'timed out') : `${r.checkAfterMs} ms`} (${r.mode}, ${r.checkAfterEvents} events)`).join(', ')}.`,
  );
  lines.push(`A click's fingerprint (HMAC-SHA256, paid with the rules on or off): ${f.fingerprintMicros} µs in the benchmark's process.`);
  lines.push(
    `Risk events of the program with every rule on: ${Object.entries(f.events)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; with every rule off: none.`,
  );
  lines.push(
    `Refund runs: ${f.paths.refunds.map((r) => `${r.fullRefunds ?? 0} (${r.mode})`).join(', ')} payments refunded in full by requests the load generator cut off as it stopped.`,
  );
  lines.push('');
  lines.push(`Flood query (floodedVisitors), ${f.flood.clicks} clicks of ${f.flood.browsers} browsers in the program:`);
  for (const w of f.flood.windows) {
    lines.push(
      `- ${w.name} (${w.seconds} s, ${w.clicksInWindow} clicks of the program; ${w.tableClicks} in the table): ${w.ms.map(msText).join(', ')} ms; ${w.flagged} browsers over the limit`,
    );
  }
  lines.push(
    `At the steady state (an hour of clicks in the table), one check every interval costs ${f.flood.steadyMicrosPerClick} µs of PostgreSQL per click of that interval.`,
  );
  lines.push('');
  lines.push('Holds (isHeld) and the refund rule:');
  for (const mode of ['off', 'on'] as const) {
    const h = f.holds.programs[mode];
    lines.push(
      `- rules ${mode}: ${h.openEvents} open events; the approval scan a month on over ${h.commissions} commissions ${h.approvalMs.map(msText).join(', ')} ms (${h.approvable} approvable); the balances page ${h.balancesMs.map(msText).join(', ')} ms; the refund rule's read of the daily figures of the partner's ${h.payments} payments ${h.refundRuleMs.map(msText).join(', ')} ms`,
    );
  }
  lines.push('');
  for (const plan of [...f.checkPlans, ...f.flood.plans, ...f.holds.plans]) {
    lines.push('```');
    lines.push(plan);
    lines.push('```');
  }
  return lines.join('\n');
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (x: number) => (x * 100).toFixed(1);
