/**
 * The shared-state port: everything several ingest processes must agree on (rate limits,
 * idempotency keys, caches, click dedup, cache invalidation) goes through it. Nothing durable lives here;
 * SQL is the system of record.
 */
export interface SharedStore {
  readonly kind: 'memory' | 'redis';
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
}
