import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress, PrivateAddressError, publicOnlyLookup } from './webhook-address.js';

/** How much of a receiver's answer is read and kept in the delivery log. */
export const RESPONSE_BODY_CAP = 1024;

export interface SendOptions {
  /** The whole exchange (connect, send, answer) must finish within this. */
  timeoutMs: number;
  /** Whether private and loopback destinations are allowed (SVC_WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

export interface SendResult {
  ok: boolean;
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  /** The start of the answer's body (at most RESPONSE_BODY_CAP bytes), as text. */
  body: string | null;
  durationMs: number;
  /** Why the attempt failed, for people; null on success. */
  error: string | null;
}

/**
 * Posts one webhook. Only a 2xx answer counts; redirects are not followed (a 3xx is a failure
 * naming where it pointed); the answer's body is read up to RESPONSE_BODY_CAP bytes and the
 * rest is not read at all. Never throws: every failure is a result.
 */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): void;
}

export function createWebhookSender(options: SendOptions): WebhookSender {
  // Kept-alive connections: a busy endpoint gets its events over a few sockets, not one each.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }),
  };

  async function send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const result = (fields: Omit<SendResult, 'durationMs'>): SendResult => ({
      ...fields,
      durationMs: Math.round(performance.now() - started),
    });
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // An address written in the URL is connected to without a lookup, so it is checked here.
    if (!options.allowPrivate && net.isIP(host) && !isPublicAddress(host)) {
      return result({ ok: false, status: null, body: null, error: `refused: ${host} is not a public address` });
    }
    try {
      const answer = await post(target, headers, body);
      if (answer.status >= 200 && answer.status < 300) return result({ ok: true, status: answer.status, body: answer.body, error: null });
      const error =
        answer.status >= 300 && answer.status < 400
          ? `HTTP ${answer.status}: redirects are not followed${answer.location ? ` (Location: ${answer.location.slice(0, 300)})` : ''}`
          : `HTTP ${answer.status}`;
      return result({ ok: false, status: answer.status, body: answer.body, error });
    } catch (err) {
      return result({ ok: false, status: null, body: null, error: describeFailure(err, options.timeoutMs) });
    }
  }

  function post(target: URL, headers: Record<string, string>, body: string) {
    return new Promise<{ status: number; body: string; location?: string }>((resolve, reject) => {
      const transport = target.protocol === 'https:' ? https : http;
      const req = transport.request(target, {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'svc-webhooks/1',
          ...headers,
        },
        lookup: options.allowPrivate ? undefined : publicOnlyLookup,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      req.once('error', reject);
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_CAP).toString('utf8'),
            location: res.headers.location,
          });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough read: the rest of a large answer is dropped with its connection.
          if (size >= RESPONSE_BODY_CAP) {
            res.destroy();
            finish();
          }
        });
        res.once('end', finish);
        res.once('error', reject);
      });
      req.end(body);
    });
  }

  return {
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/** A failure to reach a receiver, in words (never with a stack or secrets). */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof PrivateAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `timed out after ${timeoutMs / 1000} s`;
  if (e?.code) return `${e.code}: ${e.message}`.slice(0, 500);
  return String(e?.message ?? e).slice(0, 500);
}
