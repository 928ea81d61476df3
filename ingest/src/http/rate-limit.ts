import type { RequestHandler, Response } from 'express';
import type { RateDecision, RateLimiter } from '../store/index.js';
import { ApiError } from './errors.js';

/** The window of the per-second limits (the API's per key, the script's endpoints' per address). */
export const RATE_WINDOW_SECONDS = 1;

/** IETF RateLimit header fields, plus Retry-After when refused. */
export function setRateLimitHeaders(res: Response, d: RateDecision, windowSeconds: number): void {
  res.set('RateLimit-Policy', `${d.limit};w=${windowSeconds}`);
  res.set('RateLimit-Limit', String(d.limit));
  res.set('RateLimit-Remaining', String(d.remaining));
  res.set('RateLimit-Reset', String(Math.ceil(d.resetMs / 1000)));
}

/** 429 with Retry-After: the whole seconds until `resetMs` has passed, at least 1. */
export function tooManyRequests(
  resetMs: number,
  message = 'Too many requests; slow down and retry after the time in Retry-After',
): ApiError {
  return new ApiError('rate_limit_error', message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(resetMs / 1000))) } });
}

export function rateLimit(limiter: RateLimiter, windowSeconds: number, keyOf: (res: Response) => string): RequestHandler {
  return async (_req, res, next) => {
    const decision = await limiter.consume(keyOf(res));
    setRateLimitHeaders(res, decision, windowSeconds);
    if (!decision.allowed) throw tooManyRequests(decision.resetMs);
    next();
  };
}
