import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { SharedStore } from './store.js';

export type { RateDecision, RateLimiter, SharedStore } from './store.js';
export { SharedStoreUnavailable, STORE_COMMAND_TIMEOUT_MS } from './store.js';

export function openStore(redisUrl: string | undefined): SharedStore {
  return redisUrl ? createRedisStore(redisUrl) : createMemoryStore();
}
