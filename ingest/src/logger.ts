import pino, { type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config.js';

/**
 * What never reaches a log line, at any level: the secret API key (Authorization), the
 * visitor's cookies, and the referral cookies svc sets. Paths of pino-http's request and
 * response objects, and of a request logged as `req` by hand.
 */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

export const loggerOptions = (level: Config['logLevel']): LoggerOptions => ({
  level,
  base: { service: 'svc' },
  redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
});

/** Service logs go to stdout; the CLI sends them to stderr so that its stdout stays machine-readable. */
export function createLogger(level: Config['logLevel'], stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino(loggerOptions(level), pino.destination(stream === 'stdout' ? 1 : 2));
}
