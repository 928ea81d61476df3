import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, verified (or not) with the secrets it was told. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The parsed event, when the signature verified with one of the receiver's secrets. */
  event: Record<string, any> | undefined;
  /** Which of the receiver's secrets verified it (indexes into `secrets`). */
  verifiedBy: number[];
  /** The status the receiver answered. */
  status: number;
}

/** What the receiver answers a request: a status, an optional body and headers, or a hang (never answer). */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  url: string;
  /** Every request, in arrival order. */
  received: ReceivedWebhook[];
  /** The events received with a valid signature, in arrival order. */
  events(): Record<string, any>[];
  /** The secrets signatures are checked against (set after creating the endpoint). */
  secrets: string[];
  /** How to answer each request; by default 200 for everything. */
  reply: (req: ReceivedWebhook) => Reply;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 standing for a merchant's webhook endpoint. It checks each
 * request's signature with the official `standardwebhooks` package, as a receiver would.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const sockets = new Set<import('node:net').Socket>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    events: () => receiver.received.filter((r) => r.event).map((r) => r.event!),
    secrets: [],
    reply: () => ({ status: 200, body: 'ok' }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const verifiedBy: number[] = [];
      let event: Record<string, any> | undefined;
      receiver.secrets.forEach((secret, i) => {
        try {
          event = new Webhook(secret).verify(body, headers) as Record<string, any>;
          verifiedBy.push(i);
        } catch {
          // Not signed with this secret.
        }
      });
      const record: ReceivedWebhook = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        headers: req.headers,
        body,
        event,
        verifiedBy,
        status: 0,
      };
      const reply = receiver.reply(record);
      receiver.received.push(record);
      if (reply === 'hang') return;
      record.status = reply.status;
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body ?? '');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
