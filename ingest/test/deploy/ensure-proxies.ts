import { pathToFileURL } from 'node:url';
import { onPath } from '../../../e2e/support/chromium.js';
import { aptGetAsRoot, aptInstall, say } from '../../../e2e/support/install.js';

/**
 * The reverse proxies the deployment test (https.test.ts) runs the repository's files with:
 * Debian's `caddy` (it serves the Caddyfile) and `nginx` (its server block is checked with
 * `nginx -t`). Like e2e/support/ensure-chromium.ts: found on PATH (or /usr/sbin, where Debian puts
 * nginx), else installed with apt-get as root, else one line saying what to install.
 * `tsx ingest/test/deploy/ensure-proxies.ts` is `npm test`'s install step (ingest/test/run-all.ts),
 * a no-op without DATABASE_URL, where the test is skipped.
 */

export type Proxy = 'caddy' | 'nginx';

const SBIN = ['/usr/sbin', '/usr/local/sbin', '/sbin'];

/** The one line printed when a proxy is missing and cannot be installed here. */
export const missingMessage = (name: Proxy) =>
  `No ${name} found: install Debian's ${name} (apt-get install ${name}) to run the deployment test`;

/** The proxy's executable, or undefined when it is not installed. */
export function findProxy(name: Proxy, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return onPath(name, [env.PATH, ...SBIN].filter(Boolean).join(':'));
}

/** Each proxy's executable, installing the missing ones with apt-get when this process is root; undefined for one that stays missing. */
export function ensureProxies(names: Proxy[] = ['caddy', 'nginx']): Record<Proxy, string | undefined> {
  const missing = names.filter((name) => !findProxy(name));
  const aptGet = aptGetAsRoot();
  if (missing.length > 0 && aptGet) {
    say(`Installing Debian's ${missing.join(' and ')} (apt-get install ${missing.join(' ')})…`);
    // The packages start their own services on ports 80 and 443: the test runs the binaries on ports of its own instead.
    aptInstall(aptGet, missing);
  }
  return { caddy: findProxy('caddy'), nginx: findProxy('nginx') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.env.DATABASE_URL) {
    say('Caddy and nginx: not needed (DATABASE_URL unset: the deployment test is skipped)');
  } else {
    const found = ensureProxies();
    for (const name of ['caddy', 'nginx'] as const) {
      if (found[name]) say(`${name}: ${found[name]}`);
      else process.stderr.write(`${missingMessage(name)}\n`);
    }
    // The test skips only its nginx -t check without nginx (with a line); it cannot do without caddy.
    process.exitCode = found.caddy ? 0 : 1;
  }
}
