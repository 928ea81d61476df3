import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/database.js';
import { sha256 } from '../ids.js';
import { findActiveKeyByHash } from '../resources/api-keys/api-keys.repository.js';
import { createKeyDirectory } from '../resources/api-keys/key-directory.js';
import type { SharedStore } from '../store/index.js';
import { createLocalCache, forgetEverywhere, onForget } from '../store/local-cache.js';
import { ApiError } from './errors.js';
import { tooManyRequests } from './rate-limit.js';

export interface AuthContext {
  organizationId: string;
  apiKeyId: string;
}

const invalidKey = () => new ApiError('authentication_error', 'Invalid API key provided');

const KEY_CACHE = { name: 'api-keys', max: 10_000, ttlMs: 60_000 };
const FAILURE_WINDOW_SECONDS = 60;
const tooManyFailures = (resetMs: number) =>
  tooManyRequests(resetMs, 'Too many failed authentication attempts from this address; retry after the time in Retry-After');

/**
 * Bearer secret key → the caller's organization. Keys are looked up by their SHA-256 hash, and
 * known keys are remembered in process until revoked (`forgetApiKey`).
 *
 * Failed attempts are counted per client address across processes (`failureLimit` a minute). Past
 * the limit the address gets 429 for every key that is not valid, decided in process (the refusal
 * is remembered until the window ends, and the key directory says which keys exist), so a throttled
 * address costs neither a shared-store round trip nor a SQL lookup. A valid key is always served,
 * throttled address or not: many callers share one address behind a proxy or NAT, and one of them
 * sending wrong keys must not stop the others (ingest/docs/api.md#rate-limits).
 */
export function authenticateSecretKey(db: Db, store: SharedStore, failureLimit: number): RequestHandler {
  const known = createLocalCache<AuthContext>(store, KEY_CACHE);
  const directory = createKeyDirectory(db);
  onForget(store, KEY_CACHE.name, () => directory.stale());
  const failures = store.createRateLimiter({ name: 'auth-failures', points: failureLimit, windowSeconds: FAILURE_WINDOW_SECONDS });
  const refusedUntil = new LRUCache<string, number>({ max: 100_000, ttl: FAILURE_WINDOW_SECONDS * 1000 });
  const clientOf = (req: Request) => req.ip ?? '';

  const fail = async (client: string): Promise<never> => {
    const until = refusedUntil.get(client);
    if (until !== undefined) throw tooManyFailures(until - Date.now());
    const decision = await failures.consume(client);
    if (decision.allowed) throw invalidKey();
    refusedUntil.set(client, Date.now() + decision.resetMs, { ttl: Math.max(1, decision.resetMs) });
    throw tooManyFailures(decision.resetMs);
  };

  return async (req, res, next) => {
    const client = clientOf(req);
    // The scheme name is case-insensitive (RFC 9110 §11.1); the key itself is not.
    const match = /^[Bb][Ee][Aa][Rr][Ee][Rr]\s+(sk_[0-9A-Za-z]{1,100})\s*$/.exec(req.get('authorization') ?? '');
    if (!match) return fail(client);
    const hash = sha256(match[1]);
    if (refusedUntil.has(client) && !(await directory.has(hash))) return fail(client);
    const auth = await known.get(hash, async () => {
      const key = await findActiveKeyByHash(db, hash);
      return key && { organizationId: key.organization_id, apiKeyId: key.id };
    });
    if (!auth) {
      directory.forget(hash);
      return fail(client);
    }
    res.locals.auth = auth;
    next();
  };
}

/** A key created or revoked: every process forgets what it knew of it (its cached lookup; the key directory reads SQL again). */
export function forgetApiKey(store: SharedStore, secretHash: string): Promise<void> {
  return forgetEverywhere(store, KEY_CACHE.name, secretHash);
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw invalidKey();
  return auth;
}
