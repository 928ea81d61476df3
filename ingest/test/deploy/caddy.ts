import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { outputOf } from '../../bench/faults/fleet.js';
import { ROOT } from '../../bench/processes.js';

/**
 * Caddy running the repository's Caddyfile (ingest/deploy/Caddyfile) with the test's values for
 * its environment placeholders only: the site on 127.0.0.1 with a certificate from Caddy's own
 * local CA (`tls internal`), high ports, no admin endpoint, the test's ingest processes as
 * upstreams, and a throwaway directory for Caddy's data (its CA and certificates).
 */

export const CADDYFILE = path.join(ROOT, 'ingest/deploy/Caddyfile');

export interface RunningCaddy {
  /** https://127.0.0.1:<port>: the address SVC_PUBLIC_URL names. */
  origin: string;
  /** Caddy's local root CA (PEM), which the test's clients trust. */
  rootCa: string;
  /** SHA-256 of the CA certificates' public keys (base64), for Chromium's --ignore-certificate-errors-spki-list. */
  spkiHashes: string[];
  /** The certificate and key Caddy issued for the site (an nginx -t needs real files). */
  certificate: { cert: string; key: string };
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const spkiHash = (pem: string) =>
  createHash('sha256')
    .update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

export async function startCaddy(options: {
  caddy: string;
  dir: string;
  httpsPort: number;
  httpPort: number;
  upstreams: string[];
}): Promise<RunningCaddy> {
  const dataHome = path.join(options.dir, 'data');
  const env = {
    ...process.env,
    XDG_DATA_HOME: dataHome,
    XDG_CONFIG_HOME: path.join(options.dir, 'config'),
    SVC_DOMAIN: '127.0.0.1',
    CADDY_TLS: 'internal',
    CADDY_HTTPS_PORT: String(options.httpsPort),
    CADDY_HTTP_PORT: String(options.httpPort),
    CADDY_ADMIN: 'off',
    SVC_UPSTREAMS: options.upstreams.join(' '),
  };
  const child: ChildProcess = spawn(options.caddy, ['run', '--adapter', 'caddyfile', '--config', CADDYFILE], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = outputOf(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));

  const origin = `https://127.0.0.1:${options.httpsPort}`;
  const authority = path.join(dataHome, 'caddy/pki/authorities/local');
  const issued = path.join(dataHome, 'caddy/certificates/local/127.0.0.1/127.0.0.1');
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited before serving:\n${output()}`);
    if (fs.existsSync(`${issued}.crt`)) {
      const rootCa = fs.readFileSync(path.join(authority, 'root.crt'), 'utf8');
      const answered = await new Promise<boolean>((resolve) => {
        https
          .get(`${origin}/healthz`, { ca: rootCa, agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode === 200);
          })
          .on('error', () => resolve(false));
      });
      if (answered) {
        return {
          origin,
          rootCa,
          spkiHashes: ['root.crt', 'intermediate.crt'].map((f) => spkiHash(fs.readFileSync(path.join(authority, f), 'utf8'))),
          certificate: { cert: `${issued}.crt`, key: `${issued}.key` },
          async stop() {
            if (child.exitCode === null && child.signalCode === null) {
              child.kill('SIGTERM');
              await exited;
            }
          },
        };
      }
    }
    if (Date.now() > deadline) throw new Error(`caddy did not serve ${origin} within 20 s:\n${output()}`);
    await sleep(100);
  }
}
