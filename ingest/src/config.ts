import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { isTrustProxySetting, parseTrustProxy, type TrustProxy, unworkableProxySetup } from './proxy-setup.js';

/** SVC_DATA_DIR for a database in the process's memory only (PGlite's `memory://`): nothing on disk. */
export const MEMORY = 'memory://';

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\//.test(v), 'must be a redis:// URL')
    .optional(),
  SVC_DATA_DIR: z.string().min(1).default('./.data'),
  SVC_OUTBOX_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SMTP_URL: z.string().url().optional(),
  SMTP_FROM: z.string().min(3).default('svc <no-reply@localhost>'),
  SVC_API_RATE_LIMIT: z.coerce.number().int().min(1).default(25),
  SVC_TRACK_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  SVC_STRIPE_RATE_LIMIT: z.coerce.number().int().min(1).default(100),
  SVC_BOT_FILTER: z.enum(['on', 'off']).default('on'),
  SVC_APPROVAL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  SVC_RISK_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  SVC_DB_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  SVC_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  SVC_TRUST_PROXY: z
    .string()
    .refine(
      isTrustProxySetting,
      'must be true, false, a hop count, or addresses and CIDR ranges separated by commas (loopback, linklocal, uniquelocal name ranges)',
    )
    .optional(),
  SVC_COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
    .optional(),
  SVC_TEST_HOOKS: z.enum(['0', '1']).default('0'),
  SVC_WEBHOOKS_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  SVC_WEBHOOK_DELIVERY: z.enum(['on', 'off']).default('on'),
  // At least 10 s: an attempt's 5 s and the clocks' slack must fit between two renewals' worth of lease.
  SVC_WEBHOOK_LEASE_SECONDS: z.coerce.number().int().min(10).max(3600).default(20),
  SVC_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SVC_PUBLIC_URL: z
    .string()
    .refine(isPublicOrigin, 'must be an http:// or https:// origin with no path, query or credentials, e.g. https://svc.example.com')
    .optional(),
  NODE_ENV: z.string().optional(),
});

export type Config = {
  port: number;
  /**
   * The address partners and merchants reach svc at (`https://svc.example.com`), the only source
   * of the absolute URLs svc writes (e-mails, API answers, pages, the script tag) and the origin
   * its forms must come from. Never taken from a request: `Host` and `X-Forwarded-*` are the
   * sender's to choose (README.md#configuration).
   */
  publicUrl: string;
  /** Whether SVC_PUBLIC_URL was set (else publicUrl is http://localhost:PORT, for local use). */
  publicUrlSet: boolean;
  host: string;
  database: { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string | typeof MEMORY };
  redisUrl?: string;
  /** Directory for durable local files (PGlite data, bootstrap.json); null when running in memory. */
  dataDir: string | null;
  outboxDir: string;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  smtp: { url?: string; from: string };
  /** Requests per second allowed for one secret API key. */
  apiRateLimit: number;
  /** Requests per second allowed from one IP address on the script's public endpoints. */
  trackRateLimit: number;
  /** Stripe webhook deliveries per second from one address (Stripe sends from a few). */
  stripeRateLimit: number;
  /** Whether the public endpoints ignore clicks from bot User-Agents. */
  botFilter: boolean;
  /** How often each process approves the scheduled commissions that are due. */
  approvalIntervalSeconds: number;
  /** How often each process checks the clicks made since the last check for click flooding (ingest/docs/risk.md). */
  riskIntervalSeconds: number;
  /** How long start-up waits for PostgreSQL to answer before giving up. */
  databaseWaitSeconds: number;
  /** Failed secret-key authentications allowed per client address and minute. */
  authFailureLimit: number;
  trustProxy: TrustProxy;
  /** Request header set by a trusted CDN with the visitor's country (e.g. cf-ipcountry); off when unset. */
  countryHeader?: string;
  /** The browser tests' routes under /__test (e.g. aging a click); never in production. */
  testHooks: boolean;
  /** Webhook endpoints may be plain http and private or loopback addresses (local development). */
  webhooksAllowPrivate: boolean;
  /** Whether this process delivers webhooks (every process does by default; any number may). */
  webhookDelivery: boolean;
  /** How long a claim on a webhook delivery lasts unrenewed: the longest a dead process's deliveries wait for another. */
  webhookLeaseSeconds: number;
  /** The port of `GET /metrics` (Prometheus), on `host`; unset: no metrics (ingest/docs/metrics.md). */
  metricsPort?: number;
};

export class ConfigError extends Error {}

/** Reads and checks the environment once; every key is documented in README.md#configuration. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (!e.SVC_PUBLIC_URL && (e.SMTP_URL || e.NODE_ENV === 'production')) {
    const why = e.SMTP_URL ? 'e-mails leave through SMTP_URL' : 'NODE_ENV is production';
    throw new ConfigError(
      `Set SVC_PUBLIC_URL to the address partners and merchants reach svc at (e.g. https://svc.example.com): ${why}, and its links must not point at localhost`,
    );
  }
  if (e.SVC_METRICS_PORT !== undefined && e.SVC_METRICS_PORT !== 0 && e.SVC_METRICS_PORT === e.PORT) {
    throw new ConfigError(
      'Invalid configuration: SVC_METRICS_PORT: must differ from PORT (the metrics are never served on the public port)',
    );
  }
  const unworkable = unworkableProxySetup({
    publicUrl: e.SVC_PUBLIC_URL,
    trustProxy: parseTrustProxy(e.SVC_TRUST_PROXY),
    production: e.NODE_ENV === 'production',
  });
  if (unworkable) throw new ConfigError(unworkable);
  const inMemory = e.SVC_DATA_DIR === MEMORY;
  const dataDir = inMemory ? null : path.resolve(e.SVC_DATA_DIR);
  return {
    port: e.PORT,
    publicUrl: e.SVC_PUBLIC_URL ? new URL(e.SVC_PUBLIC_URL).origin : `http://localhost:${e.PORT}`,
    publicUrlSet: Boolean(e.SVC_PUBLIC_URL),
    host: e.HOST,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'pglite', dataDir: dataDir ? path.join(dataDir, 'pglite') : MEMORY },
    redisUrl: e.REDIS_URL,
    dataDir,
    outboxDir: path.resolve(e.SVC_OUTBOX_DIR ?? path.join(dataDir ?? path.join(os.tmpdir(), 'svc'), 'outbox')),
    logLevel: e.LOG_LEVEL,
    smtp: { url: e.SMTP_URL, from: e.SMTP_FROM },
    apiRateLimit: e.SVC_API_RATE_LIMIT,
    approvalIntervalSeconds: e.SVC_APPROVAL_INTERVAL_SECONDS,
    riskIntervalSeconds: e.SVC_RISK_INTERVAL_SECONDS,
    databaseWaitSeconds: e.SVC_DB_WAIT_SECONDS,
    authFailureLimit: e.SVC_AUTH_FAILURE_LIMIT,
    trackRateLimit: e.SVC_TRACK_RATE_LIMIT,
    stripeRateLimit: e.SVC_STRIPE_RATE_LIMIT,
    botFilter: e.SVC_BOT_FILTER === 'on',
    trustProxy: parseTrustProxy(e.SVC_TRUST_PROXY),
    countryHeader: e.SVC_COUNTRY_HEADER?.toLowerCase(),
    testHooks: e.SVC_TEST_HOOKS === '1',
    webhooksAllowPrivate: e.SVC_WEBHOOKS_ALLOW_PRIVATE === 'true',
    webhookDelivery: e.SVC_WEBHOOK_DELIVERY === 'on',
    webhookLeaseSeconds: e.SVC_WEBHOOK_LEASE_SECONDS,
    metricsPort: e.SVC_METRICS_PORT,
  };
}

/** An origin and nothing else: svc serves its pages at the root, so a path would make links that miss them. */
function isPublicOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    (url.pathname === '/' || url.pathname === '') &&
    url.search === '' &&
    url.hash === ''
  );
}
