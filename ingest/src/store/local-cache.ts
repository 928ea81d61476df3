import { LRUCache } from 'lru-cache';
import { afterCommit, inRequestTransaction } from '../db/request-transaction.js';
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
 * cannot fill it. Nothing is kept while the shared store cannot deliver invalidations (every
 * lookup then reads SQL), nor what a request read inside its own uncommitted transaction.
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
      if (value !== undefined && started === generation && store.broadcasting && !inRequestTransaction()) entries.set(key, value);
      return value;
    },
  };
}

const channelOf = (name: string) => `cache:${name}`;

/** Calls `listener` with each key forgotten in the caches named `name`, and with null when some may have been missed. */
export function onForget(store: SharedStore, name: string, listener: (key: string | null) => void): () => void {
  return store.subscribe(channelOf(name), listener);
}

/**
 * Forgets `key` in the caches named `name` of every process, once the change is committed
 * (after the commit of the request's transaction, when there is one). This process forgets at
 * once; should the shared store fail to pass it on, the others forget everything when their
 * connection to it comes back, and keep nothing meanwhile.
 */
export async function forgetEverywhere(store: SharedStore, name: string, key: string): Promise<void> {
  let sent = Promise.resolve();
  afterCommit(() => {
    sent = store.publish(channelOf(name), key).catch(() => {});
  });
  await sent;
}
