import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateLimiter } from './store.js';

/** Runs one consume; an adapter passes its own to bound how long a limiter waits on its store. */
export type ConsumeRunner = <T>(consume: () => Promise<T>) => Promise<T>;

const direct: ConsumeRunner = (consume) => consume();

/** Wraps a rate-limiter-flexible limiter (memory or Redis) into the port's shape. */
export function wrapLimiter(limiter: RateLimiterAbstract, points: number, run: ConsumeRunner = direct): RateLimiter {
  return {
    async consume(key) {
      try {
        const res = await run(() => limiter.consume(key));
        return decision(true, points, res);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decision(false, points, err);
        throw err;
      }
    },
    async refund(key) {
      await run(() => limiter.reward(key, 1));
    },
  };
}

function decision(allowed: boolean, limit: number, res: RateLimiterRes): RateDecision {
  return { allowed, limit, remaining: Math.max(0, res.remainingPoints), resetMs: Math.max(0, res.msBeforeNext) };
}
