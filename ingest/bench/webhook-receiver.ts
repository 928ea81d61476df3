import http from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * The benchmark's webhook receiver, a process of its own: it verifies every request's signature
 * with the `standardwebhooks` package, as a merchant's receiver would, and counts them.
 * `POST /secret` (the endpoint's secret) sets it up; `GET /count` answers what arrived.
 */
let verifier: Webhook | undefined;
const count = { received: 0, verified: 0, ids: new Set<string>() };

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && req.url === '/secret') {
      verifier = new Webhook(JSON.parse(body).secret);
      return res.end('{}');
    }
    if (req.method === 'GET' && req.url === '/count') {
      return res.end(JSON.stringify({ received: count.received, verified: count.verified, distinct: count.ids.size }));
    }
    count.received++;
    try {
      verifier?.verify(body, req.headers as Record<string, string>);
      count.verified++;
      count.ids.add(String(req.headers['webhook-id']));
    } catch {
      // Counted as received, not verified.
    }
    res.end('ok');
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
