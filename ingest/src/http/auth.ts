import type { RequestHandler, Response } from 'express';
import type { Db } from '../db/database.js';
import { sha256 } from '../ids.js';
import { createLocalCache, forgetEverywhere } from '../store/local-cache.js';
import type { SharedStore } from '../store/index.js';
import { ApiError } from './errors.js';

export interface AuthContext {
  organizationId: string;
  apiKeyId: string;
}

const invalidKey = () => new ApiError('authentication_error', 'Invalid API key provided');

const KEY_CACHE = { name: 'api-keys', max: 10_000, ttlMs: 60_000 };

/**
 * Bearer secret key → the caller's organization. Keys are looked up by their SHA-256 hash, and
 * known keys are remembered in process until revoked (`forgetApiKey`).
 */
export function authenticateSecretKey(db: Db, store: SharedStore): RequestHandler {
  const known = createLocalCache<AuthContext>(store, KEY_CACHE);
  return async (req, res, next) => {
    // The scheme name is case-insensitive (RFC 9110 §11.1); the key itself is not.
    const match = /^[Bb][Ee][Aa][Rr][Ee][Rr]\s+(sk_[0-9A-Za-z]{1,100})\s*$/.exec(req.get('authorization') ?? '');
    if (!match) throw invalidKey();
    const hash = sha256(match[1]);
    const auth = await known.get(hash, async () => {
      const key = await db
        .selectFrom('api_keys')
        .select(['id', 'organization_id'])
        .where('secret_hash', '=', hash)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return key && { organizationId: key.organization_id, apiKeyId: key.id };
    });
    if (!auth) throw invalidKey();
    res.locals.auth = auth;
    next();
  };
}

/** A revoked key stops working in every process. */
export function forgetApiKey(store: SharedStore, secretHash: string): Promise<void> {
  return forgetEverywhere(store, KEY_CACHE.name, secretHash);
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw invalidKey();
  return auth;
}
