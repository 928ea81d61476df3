import { LRUCache } from 'lru-cache';
import type { SharedStore } from './store.js';

export interface LocalCache<V> {
  /** The cached value, else what `load` finds (kept when found). */
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
}

export interface LocalCacheOptions {
  /** Names the invalidation channel, `cache:<name>`. */
  name: string;
  max: number;
  /** An upper bound on staleness should an invalidation ever be lost. */
  ttlMs: number;
}

/**
 * A per-process cache of SQL lookups on the hot paths, kept right across processes by
 * invalidations sent through the shared store. Only found values are kept, so unknown keys
 * cannot fill it.
 */
export function createLocalCache<V extends {}>(store: SharedStore, { name, max, ttlMs }: LocalCacheOptions): LocalCache<V> {
  const entries = new LRUCache<string, V>({ max, ttl: ttlMs });
  const channel = channelOf(name);
  // A load that raced an invalidation may hold the old value: it is not kept.
  let generation = 0;
  store.subscribe(channel, (key) => {
    generation++;
    if (key === null) entries.clear();
    else entries.delete(key);
  });

  return {
    async get(key, load) {
      const hit = entries.get(key);
      if (hit !== undefined) return hit;
      const started = generation;
      const value = await load();
      if (value !== undefined && started === generation) entries.set(key, value);
      return value;
    },
  };
}

const channelOf = (name: string) => `cache:${name}`;

/**
 * Forgets `key` in the caches named `name` of every process. Call once the change is committed.
 * This process forgets at once; should the shared store fail to pass it on, the others keep
 * their copy no longer than the cache's TTL, and the change itself stands.
 */
export async function forgetEverywhere(store: SharedStore, name: string, key: string): Promise<void> {
  await store.publish(channelOf(name), key).catch(() => {});
}
