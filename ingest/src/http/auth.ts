import type { RequestHandler, Response } from 'express';
import type { Db } from '../db/database.js';
import { sha256 } from '../ids.js';
import { ApiError } from './errors.js';

export interface AuthContext {
  organizationId: string;
  apiKeyId: string;
}

const invalidKey = () => new ApiError('authentication_error', 'Invalid API key provided');

/** Bearer secret key → the caller's organization. Keys are looked up by their SHA-256 hash. */
export function authenticateSecretKey(db: Db): RequestHandler {
  return async (req, res, next) => {
    // The scheme name is case-insensitive (RFC 9110 §11.1); the key itself is not.
    const match = /^[Bb][Ee][Aa][Rr][Ee][Rr]\s+(sk_[0-9A-Za-z]{1,100})\s*$/.exec(req.get('authorization') ?? '');
    if (!match) throw invalidKey();
    const key = await db
      .selectFrom('api_keys')
      .select(['id', 'organization_id'])
      .where('secret_hash', '=', sha256(match[1]))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!key) throw invalidKey();
    res.locals.auth = { organizationId: key.organization_id, apiKeyId: key.id } satisfies AuthContext;
    next();
  };
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw invalidKey();
  return auth;
}
