import fs from 'node:fs';
import os from 'node:os';
import { startPrivateRedis } from './private-servers.js';
import { DEFAULT_TIMING, type FaultReport, killProcess, killRedis, restartPostgres, terminateConnections } from './scenarios.js';

/**
 * `npm run bench -- --faults`: every fault scenario under load, and one Markdown table of what
 * clients saw (answers by status, the longest request, time to recover) and what SQL holds
 * (records lost and recorded twice, both must be 0). See README, Reliability.
 */
export async function runFaultBench(options: { adminUrl: string; json?: string }): Promise<void> {
  const redis = await startPrivateRedis();
  const reports: FaultReport[] = [];
  try {
    reports.push(await restartPostgres(redis.url));
    reports.push(await terminateConnections(options.adminUrl, redis.url));
    reports.push(await killRedis(options.adminUrl));
    reports.push(await killProcess(options.adminUrl, redis.url));
  } finally {
    await redis.close();
  }
  const t = DEFAULT_TIMING;
  const lines = [
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
  process.stdout.write(`${lines.join('\n')}\n`);
  if (options.json)
    fs.writeFileSync(
      options.json,
      `${JSON.stringify(
        reports.map(({ logs: _logs, ...r }) => r),
        null,
        2,
      )}\n`,
    );
}
