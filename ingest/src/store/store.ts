/**
 * The shared-state port: everything several ingest processes must agree on (rate limits,
 * idempotency keys, later caches and click dedup) goes through it. Nothing durable lives here;
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
