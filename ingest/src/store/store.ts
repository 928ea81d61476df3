/**
 * The shared-state port: everything several ingest processes must agree on (rate limits,
 * caches, click dedup, cache invalidation) goes through it. Nothing durable lives here; SQL is
 * the system of record, so every caller has an answer for a store that cannot be reached.
 *
 * Faults: while the backing store is down or not answering, `get`, `set`, `setIfAbsent`,
 * `delete`, `publish` and `ping` reject with `SharedStoreUnavailable`, at once when the
 * connection is known to be down and within `STORE_COMMAND_TIMEOUT_MS` otherwise, so no request
 * waits on the store for longer than that. Once a command has timed out, the next ones fail at
 * once until the store answers again. (Commands issued while the first connection is still being
 * made wait for it, up to `STORE_COMMAND_TIMEOUT_MS` after the store was opened.) Rate limiters
 * never fail because of the store, nor wait on it longer than a command: they fall back to a
 * per-process limit. Once the store answers again, everything works again by itself.
 */
export interface SharedStore {
  readonly kind: 'memory' | 'redis';
  /**
   * True while a published message reaches every process. While false (the connection that
   * hears invalidations is down), per-process caches must not keep what they load.
   */
  readonly broadcasting: boolean;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets the key only when it does not exist; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  createRateLimiter(options: RateLimiterOptions): RateLimiter;
  /**
   * Sends `message` to every subscriber of `channel`, in every process: this client's own
   * subscribers before it returns, the others' as soon as the shared store delivers it.
   */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `listener` with each message published on `channel`, and with null when messages may
   * have been missed (the connection to the shared store dropped): drop everything derived then.
   * Returns the unsubscribe function.
   */
  subscribe(channel: string, listener: (message: string | null) => void): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  /** Namespace of the limiter, e.g. "api". */
  name: string;
  /** Requests allowed per window. */
  points: number;
  windowSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateDecision>;
  /** Gives back a point `consume` took (a limit on failures: every attempt takes one, a success returns it). */
  refund(key: string): Promise<void>;
}

/** The longest a store command may take before it counts as failed. */
export const STORE_COMMAND_TIMEOUT_MS = 500;

/** The shared store could not answer (down, unreachable, or too slow); see `SharedStore`. */
export class SharedStoreUnavailable extends Error {
  constructor(message = 'The shared store is unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SharedStoreUnavailable';
  }
}
