import type { RequestHandler, Response } from 'express';
import { sha256 } from '../ids.js';
import type { SharedStore } from '../store/index.js';
import { ApiError, badRequest } from './errors.js';

const DONE_TTL_MS = 24 * 60 * 60 * 1000;
// A request that dies mid-flight must not hold its key for a day.
const RUNNING_TTL_MS = 2 * 60 * 1000;

type Entry =
  | { state: 'running'; fingerprint: string }
  | { state: 'done'; fingerprint: string; status: number; body: unknown };

/** Owns the `idem:` keys of the shared store. */
const keyOf = (organizationId: string, idempotencyKey: string) => `idem:${organizationId}:${sha256(idempotencyKey)}`;

/** JSON with object keys sorted, so the same parameters in another order count as the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * `Idempotency-Key` on POST/PUT/DELETE: the same key and body replays the first response for
 * 24 h; another body → 400; while the first is still running → 409. Server errors are not
 * kept, so the client may retry them.
 */
export function idempotency(store: SharedStore, organizationOf: (res: Response) => string): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('idempotency-key');
    if (header === undefined || req.method === 'GET') return next();
    if (header.length < 1 || header.length > 255) throw badRequest('Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');

    const key = keyOf(organizationOf(res), header);
    const fingerprint = sha256(`${req.method} ${req.originalUrl} ${canonicalJson(req.body ?? null)}`);
    const claimed = await store.setIfAbsent(key, JSON.stringify({ state: 'running', fingerprint } satisfies Entry), RUNNING_TTL_MS);
    if (!claimed) {
      const raw = await store.get(key);
      const entry = raw ? (JSON.parse(raw) as Entry) : null;
      if (!entry) throw new ApiError('conflict_error', 'A request with this Idempotency-Key is being retried too fast; try again');
      if (entry.fingerprint !== fingerprint) {
        throw badRequest('This Idempotency-Key was already used with different request parameters', 'Idempotency-Key');
      }
      if (entry.state === 'running') {
        throw new ApiError('conflict_error', 'A request with this Idempotency-Key is still being processed');
      }
      res.set('Idempotent-Replayed', 'true');
      res.status(entry.status).json(entry.body);
      return;
    }

    const sendJson = res.json.bind(res);
    res.json = (body: unknown) => {
      const done = res.statusCode < 500
        ? store.set(key, JSON.stringify({ state: 'done', fingerprint, status: res.statusCode, body } satisfies Entry), DONE_TTL_MS)
        : store.delete(key);
      // The response waits for the record so that a retry arriving right after it replays.
      done.then(
        () => sendJson(body),
        (err) => res.destroy(err),
      );
      return res;
    };
    next();
  };
}
