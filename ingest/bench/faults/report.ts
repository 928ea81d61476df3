import fs from 'node:fs';
import os from 'node:os';
import { startPrivateRedis } from './private-servers.js';
import { DEFAULT_TIMING, type FaultReport, killProcess, killRedis, restartPostgres, terminateConnections } from './scenarios.js';
import { killDuringDelivery, TAKEOVER_LOAD, type TakeoverReport } from './webhook-takeover.js';

/**
 * `npm run bench -- --faults`: every fault scenario under load, and a Markdown table of what
 * clients saw (answers by status, the longest request, time to recover) and what SQL holds
 * (records lost and recorded twice, both must be 0); then a process killed while delivering
 * webhooks, and a table of how fast its deliveries resumed and what arrived twice.
 * `--only-webhooks` runs that last scenario alone. See ingest/bench/README.md#fault-benchmark.
 */
export async function runFaultBench(options: { adminUrl: string; json?: string; onlyWebhooks?: boolean }): Promise<void> {
  const redis = await startPrivateRedis();
  const reports: FaultReport[] = [];
  let takeover: TakeoverReport;
  try {
    if (!options.onlyWebhooks) {
      reports.push(await restartPostgres(redis.url));
      reports.push(await terminateConnections(options.adminUrl, redis.url));
      reports.push(await killRedis(options.adminUrl));
      reports.push(await killProcess(options.adminUrl, redis.url));
    }
    takeover = await killDuringDelivery(options.adminUrl, redis.url);
  } finally {
    await redis.close();
  }
  const lines = [...(reports.length ? [...faultTable(reports), ''] : []), ...takeoverTable(takeover)];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (options.json) {
    const withoutLogs = <T extends { logs: string }>({ logs: _logs, ...r }: T) => r;
    const figures = { faults: reports.map(withoutLogs), webhooks: withoutLogs(takeover) };
    fs.writeFileSync(options.json, `${JSON.stringify(figures, null, 2)}\n`);
  }
}

function faultTable(reports: FaultReport[]): string[] {
  const t = DEFAULT_TIMING;
  return [
    `svc fault benchmark — two ingest processes, ${t.concurrency} clients of mixed traffic, fault after ${t.beforeMs / 1000} s, outages of ${t.outageMs / 1000} s, ${os.cpus().length} CPUs, Node ${process.version}`,
    '',
    '| fault | requests | answers by status | longest request (during the fault) | time to recover | records lost | recorded twice | process exits |',
    '|---|---|---|---|---|---|---|---|',
    ...reports.map((r) => {
      const statuses = Object.entries(r.summary.byStatus)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, n]) => `${status}: ${n}`)
        .join(', ');
      const lost = r.audit.clicksLost + r.audit.paymentsLost + r.audit.phantomSignups + r.audit.unsettled;
      return `| ${r.name} | ${r.summary.requests} | ${statuses} | ${r.summary.longestMs} ms (${r.duringFault.longestMs} ms) | ${r.recoveryMs} ms | ${lost} | ${r.audit.duplicates} | ${r.exits.length} |`;
    }),
  ];
}

function takeoverTable(r: TakeoverReport): string[] {
  const t = TAKEOVER_LOAD;
  const seconds = (ms: number | null) => (ms === null ? 'not within the wait' : `${(ms / 1000).toFixed(1)} s`);
  const twice = `${r.duplicates} (${((100 * r.duplicates) / Math.max(1, r.deliveries)).toFixed(2)} %)`;
  return [
    `svc webhook takeover — two ingest processes, ${t.endpoints} endpoint${t.endpoints === 1 ? '' : 's'} subscribed to every event, ${t.events} events made over ${t.loadMs / 1000} s, one process killed (SIGKILL) ${t.killAfterMs / 1000} s in, ${os.cpus().length} CPUs, Node ${process.version}`,
    '',
    '| fault | deliveries | delivered | lost | phantom | sent twice | claims taken over (of those held at the kill) | time to resume after the kill | last delivery after the load | process exits |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| ${r.name} | ${r.deliveries} | ${r.delivered} | ${r.lost} | ${r.phantom} | ${twice} | ${r.takenOver} of ${r.heldAtKill} | ${seconds(r.resumeMs)} | ${seconds(r.lastAfterLoadMs)} | ${r.exits.length} |`,
  ];
}
