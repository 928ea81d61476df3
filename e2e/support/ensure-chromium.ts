import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadChromiumSetting, type FoundChromium, findChromium, NO_CHROMIUM_MESSAGE } from './chromium.js';
import { aptGetAsRoot, aptInstall, run, say } from './install.js';

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

async function obtainChromium(): Promise<FoundChromium | null> {
  const aptGet = aptGetAsRoot();

  const host = playwrightDownloadHost();
  if (await reachable(host)) {
    say(`No Chromium found: downloading Playwright's (playwright install chromium from ${host})…`);
    const playwright = path.join(root, 'node_modules', '.bin', 'playwright');
    // As root on Debian, --with-deps also installs the libraries the downloaded browser links against.
    const args = ['install', ...(aptGet ? ['--with-deps'] : []), '--no-shell', 'chromium'];
    if (run(playwright, args, PLAYWRIGHT_INSTALL_TIMEOUT_MS)) {
      const found = findChromium();
      if (found) return found;
    }
  } else {
    say(`No Chromium found, and Playwright's download host (${host}) is not reachable.`);
  }

  if (aptGet) {
    say("Installing Debian's chromium (apt-get install chromium)…");
    if (aptInstall(aptGet, ['chromium'])) return findChromium();
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
