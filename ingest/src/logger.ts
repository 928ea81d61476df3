import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** Service logs go to stdout; the CLI sends them to stderr so that its stdout stays machine-readable. */
export function createLogger(level: Config['logLevel'], stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino({ level, base: { service: 'svc' } }, pino.destination(stream === 'stdout' ? 1 : 2));
}
