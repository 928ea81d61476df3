import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BackupFailure } from './errors.js';

/**
 * One process at a time on a PGlite data directory. PGlite is PostgreSQL in single-user mode
 * inside the process that opened it: a second process opening the same directory (a second
 * `npm start`, `svc backup` beside a running service) would write the same files without any
 * coordination. Whoever listens on the Unix socket beside the directory (`pglite.sock`) holds it;
 * a socket that no one answers on is left over from a process that died, and is taken over.
 *
 * The socket is also how `svc backup` reaches a running service: the holder answers
 * `GET /backup` on it with a dump (ingest/docs/backups.md#embedded-pglite). It is a file in the
 * data directory, mode 0600: nothing is exposed on the network.
 */

/** Linux's limit for a socket's path (sun_path, 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH_BYTES = 107;

export const claimSocketPath = (pgliteDir: string): string => `${pgliteDir}.sock`;

export interface DirectoryClaim {
  /** From now on, `GET /backup` on the socket answers `dump()`'s bytes (the running service). */
  answerBackups(dump: () => Promise<Buffer>): void;
  /** Stops listening and removes the socket: another process may open the directory. */
  release(): Promise<void>;
}

/** Holds the directory for this process; null when a live process holds it. */
export async function claimDirectory(pgliteDir: string): Promise<DirectoryClaim | null> {
  const socketPath = claimSocketPath(pgliteDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `SVC_DATA_DIR is too long a path (${socketPath} is over ${MAX_SOCKET_PATH_BYTES} bytes, the limit of the socket that guards the PGlite directory): choose a shorter one`,
    );
  }
  await fs.mkdir(path.dirname(pgliteDir), { recursive: true });
  let backup: (() => Promise<Buffer>) | null = null;
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/backup') return void res.writeHead(404).end('not found');
    if (!backup) return void res.writeHead(503).end('the data directory is held by svc backup or svc restore right now; try again');
    backup().then(
      (bytes) => res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length }).end(bytes),
      (err: Error) => res.writeHead(503).end(`the running service could not dump its database: ${err.message}`),
    );
  });
  if (!(await listen(server, socketPath))) return null;
  await fs.chmod(socketPath, 0o600);
  return {
    answerBackups(dump) {
      backup = dump;
    },
    async release() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Listens on the socket, taking over one that is left over; false when it is live. */
async function listen(server: http.Server, socketPath: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(socketPath, () => {
        server.off('error', resolve);
        resolve(null);
      });
    });
    if (!error) return true;
    if (error.code !== 'EADDRINUSE') throw error;
    if (await answers(socketPath)) return false;
    // Left over by a process that died: no one answers on it.
    await fs.rm(socketPath, { force: true });
  }
  return false;
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Asks the process holding the directory (the running service) for a dump, written to `file`. */
export function backupFromHolder(pgliteDir: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath: claimSocketPath(pgliteDir), path: '/backup' }, (res) => {
      if (res.statusCode === 200) {
        pipeline(res, createWriteStream(file)).then(resolve, (err: Error) =>
          reject(new BackupFailure(`the dump was cut short: ${err.message}`)),
        );
        return;
      }
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => reject(new BackupFailure(text || `the running service answered ${res.statusCode}`)));
    });
    req.on('error', (err) =>
      reject(new BackupFailure(`cannot reach the running service on ${claimSocketPath(pgliteDir)}: ${err.message}`)),
    );
  });
}
