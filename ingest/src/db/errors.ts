/** True when a statement failed on a unique index (optionally a given one). Works for pg and PGlite. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code !== '23505') return false;
  return !constraint || e.constraint === constraint || (e.message ?? '').includes(constraint);
}

/** Whether PostgreSQL aborted the work to break a deadlock (its transaction was rolled back whole). */
export const isDeadlock = (err: unknown): boolean => (err as { code?: string } | null)?.code === '40P01';

// Class 08 (connection exception), and the server going away or refusing new sessions:
// admin_shutdown (what pg_terminate_backend and a fast shutdown send), crash_shutdown,
// cannot_connect_now (starting up or shutting down), too_many_connections; and query_canceled
// (a statement_timeout or pg_cancel_backend): nothing wrong with the request, worth a retry.
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|53300|57014)$/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);
// What pg and pg-pool say, without a code, when a connection drops, cannot be had in time, or
// is used after it broke; and Kysely once the pool is closed during shutdown.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'driver has already been destroyed',
];

/**
 * True when a statement failed because the database could not be reached or dropped the
 * connection, not because of the statement: the request can be retried once it is back.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || NETWORK_CODES.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  }
  return false;
}

/**
 * The one way a unique violation becomes a conflict (409): runs `write`; when it fails on one
 * of `constraints`, the error `conflict()` gives is thrown instead. `conflict` may read the
 * record that won (the 409 carries it); when it finds none (that record is gone again), the
 * original error stands.
 */
export async function conflictOnUnique<T>(
  constraints: string[],
  conflict: () => Error | undefined | Promise<Error | undefined>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (constraints.some((constraint) => isUniqueViolation(err, constraint))) {
      const instead = await conflict();
      if (instead) throw instead;
    }
    throw err;
  }
}
