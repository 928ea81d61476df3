import { RateLimiterMemory } from 'rate-limiter-flexible';
import { wrapLimiter } from './rate-limit-decision.js';
import type { RateLimiter, SharedStore } from './store.js';

/** In-process adapter: correct for a single ingest process (the embedded default). */
export function createMemoryStore(): SharedStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const limiters = new Map<string, RateLimiter>();
  const channels = new Map<string, Set<(message: string | null) => void>>();

  const live = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  // Expired entries are dropped on read; a periodic sweep bounds memory for keys never read again.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  }, 60_000);
  sweep.unref();

  return {
    kind: 'memory',
    // One process: a published message reaches every subscriber there is.
    broadcasting: true,
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async delete(key) {
      entries.delete(key);
    },
    createRateLimiter({ name, points, windowSeconds }) {
      // Limiters of the same name on one store share their counts, as they do on Redis.
      const id = `${name}\u0000${points}\u0000${windowSeconds}`;
      let limiter = limiters.get(id);
      if (!limiter) {
        limiter = wrapLimiter(new RateLimiterMemory({ keyPrefix: name, points, duration: windowSeconds }), points);
        limiters.set(id, limiter);
      }
      return limiter;
    },
    async publish(channel, message) {
      for (const listener of channels.get(channel) ?? []) listener(message);
    },
    subscribe(channel, listener) {
      const listeners = channels.get(channel) ?? new Set();
      channels.set(channel, listeners.add(listener));
      return () => listeners.delete(listener);
    },
    async ping() {},
    async close() {
      clearInterval(sweep);
      entries.clear();
      limiters.clear();
      channels.clear();
    },
  };
}
