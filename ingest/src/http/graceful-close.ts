import type { Server } from 'node:http';

const IDLE_SWEEP_MS = 100;

/**
 * Stops accepting connections and calls `closed` once every open one has ended. server.close()
 * alone waits for keep-alive connections that a proxy keeps using: one that was busy when the stop
 * began (a health check every few seconds, ingest/deploy/Caddyfile) stays open as long as the proxy
 * sends on it, and the stop hangs until its deadline. So from now on every response ends its
 * connection (Connection: close), and connections are closed as soon as they fall idle.
 *
 * The header is set before the app sees the request (a listener put first): a route that answers
 * at once, as /healthz does, has sent its headers by the time a listener added after the app's
 * runs, and setting one then throws, which ended the process with status 1 mid-stop.
 */
export function closeGracefully(server: Server, closed: () => void): void {
  server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  server.close(() => {
    clearInterval(sweep);
    closed();
  });
  server.closeIdleConnections();
}
