import http from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * The benchmark's webhook receiver, a process of its own: it verifies every request's signature
 * with the `standardwebhooks` package, as a merchant's receiver would, and counts them. Each
 * path is an endpoint of its own (`/hooks`, `/hooks/2`, …) with its own secret.
 * `POST /secret {secret, path?}` sets an endpoint's secret up (path `/hooks` when left out);
 * `GET /count` answers what arrived: requests, verified ones, distinct deliveries (an event at
 * an endpoint), when the last new one arrived (ms since the epoch) and how many are held;
 * `GET /deliveries` lists the distinct deliveries as "path event-id". `POST /pause {after?}`
 * holds the answers to the requests that arrive from then on, past the next `after` ones (they
 * are counted as they arrive), so that a fault can strike senders in the middle of an attempt;
 * `POST /resume` answers them.
 */
const verifiers = new Map<string, Webhook>();
const count = { received: 0, verified: 0, deliveries: new Set<string>(), lastNewAt: 0 };
let held: http.ServerResponse[] | null = null;
/** While paused: how many requests still get their answer before the others are held. */
let passing = 0;

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  // An answer to a sender that died meanwhile goes nowhere.
  res.on('error', () => {});
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && req.url === '/secret') {
      const { secret, path = '/hooks' } = JSON.parse(body) as { secret: string; path?: string };
      verifiers.set(path, new Webhook(secret));
      return res.end('{}');
    }
    if (req.method === 'GET' && req.url === '/count') {
      const { received, verified, deliveries, lastNewAt } = count;
      return res.end(JSON.stringify({ received, verified, distinct: deliveries.size, last_new_at: lastNewAt, held: held?.length ?? 0 }));
    }
    if (req.method === 'GET' && req.url === '/deliveries') return res.end(JSON.stringify([...count.deliveries]));
    if (req.method === 'POST' && req.url === '/pause') {
      passing = (JSON.parse(body || '{}') as { after?: number }).after ?? 0;
      held ??= [];
      return res.end('{}');
    }
    if (req.method === 'POST' && req.url === '/resume') {
      for (const r of held ?? []) r.end('ok');
      held = null;
      return res.end('{}');
    }
    count.received++;
    const verifier = verifiers.get(req.url ?? '');
    try {
      if (!verifier) throw new Error(`no secret for ${req.url}`);
      verifier.verify(body, req.headers as Record<string, string>);
      count.verified++;
      const delivery = `${req.url} ${req.headers['webhook-id']}`;
      if (!count.deliveries.has(delivery)) {
        count.deliveries.add(delivery);
        count.lastNewAt = Date.now();
      }
    } catch {
      // Counted as received, not verified.
    }
    if (held && passing-- <= 0) held.push(res);
    else res.end('ok');
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
