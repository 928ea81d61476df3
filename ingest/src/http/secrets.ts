import type { Response } from 'express';

/**
 * Responses that carry a secret (a new API key's `secret`): never stored by a cache on the
 * way, and never kept for an idempotent replay, which answers without the secret.
 */
export function markSecretBearing(res: Response): void {
  res.set('Cache-Control', 'no-store');
  res.locals.secretBearing = true;
}

export const isSecretBearing = (res: Response): boolean => res.locals.secretBearing === true;

/** The body without any `secret` field, at any depth. */
export function withoutSecrets(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withoutSecrets);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body)
      .filter(([key]) => key !== 'secret')
      .map(([key, value]) => [key, withoutSecrets(value)]),
  );
}
