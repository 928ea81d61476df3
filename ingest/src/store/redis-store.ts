import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { wrapLimiter } from './rate-limit-decision.js';
import type { SharedStore } from './store.js';

/** Redis adapter: shared by every ingest process pointed at the same Redis. */
export function createRedisStore(url: string, keyPrefix = 'svc:'): SharedStore {
  // Auto-pipelining sends the commands of one event-loop turn in one write: the click path's
  // rate-limit and repeat-click commands of many requests share a round trip.
  const redis = new Redis(url, { keyPrefix, maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, enableAutoPipelining: true });
  // Connection errors surface on the commands that need Redis (and on /readyz); this keeps the
  // client's background reconnect noise from crashing the process.
  redis.on('error', () => {});

  // Subscriptions need a connection of their own, opened on the first subscribe. ioredis does
  // not prefix channels, so this adapter does. This client's own listeners hear its messages at
  // once, when published, and skip the copy Redis sends back (marked with the sender's id).
  const listeners = new Map<string, Set<(message: string | null) => void>>();
  const sender = randomBytes(8).toString('hex');
  let subscriber: Redis | undefined;
  const deliver = (channel: string, message: string | null) => {
    for (const listener of listeners.get(channel) ?? []) listener(message);
  };
  const everyone = (message: null) => {
    for (const channel of listeners.keys()) deliver(channel, message);
  };
  // Every channel is subscribed anew each time the connection is ready (also when Redis was down
  // at start, which ioredis's own re-subscription would miss); once Redis confirms, listeners
  // are told that messages may have been missed.
  const subscribeAll = (connection: Redis) => {
    const channels = [...listeners.keys()].map((c) => keyPrefix + c);
    if (channels.length) connection.subscribe(...channels).then(() => everyone(null), () => {});
  };
  const subscriberConnection = () => {
    if (subscriber) return subscriber;
    const connection = redis.duplicate({ enableAutoPipelining: false, autoResubscribe: false, maxRetriesPerRequest: null, connectionName: `${keyPrefix}subscriber` });
    connection.on('error', () => {});
    connection.on('message', (channel: string, raw: string) => {
      const cut = raw.indexOf('\n');
      if (raw.slice(0, cut) !== sender) deliver(channel.slice(keyPrefix.length), raw.slice(cut + 1));
    });
    connection.on('close', () => everyone(null));
    connection.on('ready', () => subscribeAll(connection));
    return (subscriber = connection);
  };

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
    async publish(channel, message) {
      deliver(channel, message);
      await redis.publish(keyPrefix + channel, `${sender}\n${message}`);
    },
    subscribe(channel, listener) {
      let set = listeners.get(channel);
      if (!set) {
        listeners.set(channel, (set = new Set()));
        const connection = subscriberConnection();
        if (connection.status === 'ready') connection.subscribe(keyPrefix + channel).catch(() => {});
      }
      set.add(listener);
      return () => set.delete(listener);
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      listeners.clear();
      await Promise.all([redis, subscriber].map((c) => c?.quit().catch(() => c.disconnect())));
    },
  };
}
