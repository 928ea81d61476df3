import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadChromiumSetting, type FoundChromium, findChromium, NO_CHROMIUM_MESSAGE, onPath } from './chromium.js';

/**
 * `tsx e2e/support/ensure-chromium.ts`, run by `npm test` and `npm run test:e2e` right before
 * `playwright test`: makes sure a Chromium is there (see chromium.ts for the lookup order) and
 * prints one line saying which. When none is, it obtains one:
 *
 *   1. Playwright's installer (`playwright install --no-shell chromium`), only if its download
 *      host answers within a few seconds: a machine whose network blocks it then moves on at once
 *      instead of waiting for the installer's own retries; the installer also runs under a hard
 *      time limit;
 *   2. as root with apt-get (a fresh Debian machine or CI container): Debian's chromium package,
 *      non-interactively;
 *   3. otherwise: one line saying what to install, and exit status 1.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const PROBE_TIMEOUT_MS = 5_000;
const PLAYWRIGHT_INSTALL_TIMEOUT_MS = 5 * 60_000;
const APT_TIMEOUT_MS = 15 * 60_000;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The host Playwright's installer downloads Chromium from (its own environment overrides first). */
function playwrightDownloadHost(): string {
  return process.env.PLAYWRIGHT_CHROMIUM_DOWNLOAD_HOST || process.env.PLAYWRIGHT_DOWNLOAD_HOST || 'https://cdn.playwright.dev';
}

/** Any HTTP answer counts: the point is whether a connection can be made, quickly. */
async function reachable(url: string): Promise<boolean> {
  // Node's fetch ignores HTTPS_PROXY while the installer honours it: behind a proxy, leave the
  // verdict to the installer (and its time limit).
  if (process.env.HTTPS_PROXY || process.env.https_proxy) return true;
  try {
    await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return true;
  } catch {
    return false;
  }
}

/** Runs a command quietly; on failure prints why (the end of its output) and returns false. */
function run(command: string, args: string[], timeout: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const result = spawnSync(command, args, {
    cwd: root,
    env,
    timeout,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status === 0) return true;
  const why =
    result.error?.message ??
    (result.signal ? `killed by ${result.signal} (time limit ${timeout / 1000} s)` : `exit status ${result.status}`);
  const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
  process.stderr.write(`${command} ${args.join(' ')}: ${why}\n${tail ? `${tail}\n` : ''}`);
  return false;
}

async function obtainChromium(): Promise<FoundChromium | null> {
  const isRoot = process.getuid?.() === 0;
  const aptGet = process.platform === 'linux' ? onPath('apt-get', process.env.PATH) : undefined;

  const host = playwrightDownloadHost();
  if (await reachable(host)) {
    say(`No Chromium found: downloading Playwright's (playwright install chromium from ${host})…`);
    const playwright = path.join(root, 'node_modules', '.bin', 'playwright');
    // As root on Debian, --with-deps also installs the libraries the downloaded browser links against.
    const args = ['install', ...(isRoot && aptGet ? ['--with-deps'] : []), '--no-shell', 'chromium'];
    if (run(playwright, args, PLAYWRIGHT_INSTALL_TIMEOUT_MS)) {
      const found = findChromium();
      if (found) return found;
    }
  } else {
    say(`No Chromium found, and Playwright's download host (${host}) is not reachable.`);
  }

  if (isRoot && aptGet) {
    say("Installing Debian's chromium (apt-get install chromium)…");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (run(aptGet, ['update', '-qq'], APT_TIMEOUT_MS, env) && run(aptGet, ['install', '-y', '-qq', 'chromium'], APT_TIMEOUT_MS, env))
      return findChromium();
  }
  return null;
}

/** e.g. "Chromium 156.0.8078.79 built on Debian …", or '' when the binary does not say. */
function versionOf(file: string): string {
  const result = spawnSync(file, ['--version'], { timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim().split('\n')[0] : '';
}

async function main(): Promise<void> {
  const found = findChromium() ?? (await obtainChromium());
  if (!found) {
    process.stderr.write(`${NO_CHROMIUM_MESSAGE}\n`);
    process.exit(1);
  }
  const version = versionOf(found.path);
  say(`Chromium: ${found.path} (${found.source}${version ? `, ${version}` : ''})`);
}

main().catch((err) => {
  process.stderr.write(
    `${err instanceof BadChromiumSetting ? err.message : `ensure-chromium: ${err instanceof Error ? err.stack : err}`}\n`,
  );
  process.exit(1);
});
