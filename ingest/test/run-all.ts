import { spawn } from 'node:child_process';

/**
 * `npm test`: every check and test suite of the repository, in phases, with the time each took
 * printed at the end (their budgets are in ingest/README.md#time-budget-per-phase).
 *
 * What has no need to wait runs side by side while the cores are free: the browser installs
 * (apt-get, which on a fresh machine takes about a minute of mostly waiting), the type check and
 * lint, and the build with the script's tests. The suites that keep both cores busy (the API
 * suite, the fault tests, Playwright) then run one after another: the fault tests measure
 * recovery times and must not share the machine. The first failure stops the run, as `&&` would.
 */

interface Phase {
  name: string;
  command: string;
}

type Lane = Phase[];

const phase = (name: string, command: string): Phase => ({ name, command });

/** Lanes run side by side; the phases of one lane one after another. Their output is shown per phase. */
const PRELUDE: Lane[] = [
  // apt-get takes one lock: the installs share a lane. Caddy and nginx are for the deployment test, run with the fault tests.
  [
    phase('WebKit install', 'tsx e2e/support/ensure-webkit.ts'),
    phase('Chromium install', 'tsx e2e/support/ensure-chromium.ts'),
    phase('Caddy and nginx install', 'tsx ingest/test/deploy/ensure-proxies.ts'),
  ],
  [phase('type check', 'tsc --noEmit')],
  [phase('type check (script)', 'tsc --noEmit -p script'), phase('lint', 'biome check .')],
  [phase('build', 'rollup -c --silent && node ingest/build.mjs'), phase('script tests', 'vitest run --config script/vitest.config.ts')],
];

/** Then these, one at a time, with their output as it comes. */
const SUITES: Phase[] = [
  phase('WebKit tests', 'vitest run --config e2e/webkit/vitest.config.ts'),
  phase('API suite', 'vitest run --config ingest/vitest.config.ts'),
  phase('fault tests', 'vitest run --config ingest/vitest.faults.config.ts'),
  phase('browser tests', 'playwright test -c e2e/playwright.config.ts'),
];

const times: { name: string; seconds: number; ok: boolean }[] = [];

function run(p: Phase, streamed: boolean): Promise<boolean> {
  const started = performance.now();
  const child = spawn(p.command, { shell: true, stdio: streamed ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d));
  child.stderr?.on('data', (d: Buffer) => (output += d));
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      const ok = code === 0;
      times.push({ name: p.name, seconds: (performance.now() - started) / 1000, ok });
      if (!streamed) process.stdout.write(`\n── ${p.name} (${p.command})\n${output}`);
      if (!ok) process.stderr.write(`\n✗ ${p.name} failed (${signal ?? `exit ${code}`}): ${p.command}\n`);
      resolve(ok);
    });
  });
}

async function runLane(lane: Lane): Promise<boolean> {
  for (const p of lane) if (!(await run(p, false))) return false;
  return true;
}

function report(total: number): void {
  const width = Math.max(...times.map((t) => t.name.length));
  process.stdout.write('\nnpm test, seconds per phase (the first three lanes overlap):\n');
  for (const t of times) process.stdout.write(`  ${t.name.padEnd(width)}  ${t.seconds.toFixed(1).padStart(6)}${t.ok ? '' : '  failed'}\n`);
  process.stdout.write(`  ${'total'.padEnd(width)}  ${total.toFixed(1).padStart(6)}\n`);
}

async function main(): Promise<number> {
  const started = performance.now();
  const finish = (code: number) => {
    report((performance.now() - started) / 1000);
    return code;
  };
  const prelude = await Promise.all(PRELUDE.map(runLane));
  if (prelude.includes(false)) return finish(1);
  for (const p of SUITES) if (!(await run(p, true))) return finish(1);
  return finish(0);
}

process.exitCode = await main();
