import http from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';

/**
 * Serves `GET /metrics` (Prometheus' text format) on its own port, apart from the public one,
 * so the figures are never public by accident (ingest/docs/metrics.md#the-port). Anything else
 * is a 404; a failure to render is a 503, never a crash.
 */
export async function listenForMetrics(metrics: Metrics, port: number, host: string, logger: Logger): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(res, 404, 'text/plain; charset=utf-8', 'Not found: metrics are at GET /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n');
    }
    metrics.registry.metrics().then(
      (text) => answer(res, 200, metrics.registry.contentType, req.method === 'HEAD' ? '' : text),
      (err: Error) => {
        logger.warn({ reason: err.message }, 'rendering the metrics failed');
        answer(res, 503, 'text/plain; charset=utf-8', 'Metrics unavailable\n');
      },
    );
  });
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err) => reject(new Error(`SVC_METRICS_PORT ${port} on ${host}: ${err.message}`, { cause: err })));
  });
  return server;
}

function answer(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}
