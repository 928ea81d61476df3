import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { wrapLimiter } from './rate-limit-decision.js';
import type { SharedStore } from './store.js';

/** Redis adapter: shared by every ingest process pointed at the same Redis. */
export function createRedisStore(url: string, keyPrefix = 'svc:'): SharedStore {
  const redis = new Redis(url, { keyPrefix, maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  // Connection errors surface on the commands that need Redis (and on /readyz); this keeps the
  // client's background reconnect noise from crashing the process.
  redis.on('error', () => {});

  return {
    kind: 'redis',
    async get(key) {
      return redis.get(key);
    },
    async set(key, value, ttlMs) {
      await redis.set(key, value, 'PX', ttlMs);
    },
    async setIfAbsent(key, value, ttlMs) {
      return (await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async delete(key) {
      await redis.del(key);
    },
    createRateLimiter({ name, points, windowSeconds }) {
      // The client adds `keyPrefix` to every key the limiter touches.
      return wrapLimiter(new RateLimiterRedis({ storeClient: redis, keyPrefix: `rl:${name}`, points, duration: windowSeconds }), points);
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
