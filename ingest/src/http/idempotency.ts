import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { beginRequestTransaction } from '../db/request-transaction.js';
import { advisoryLockId, sha256 } from '../ids.js';
import { toApiError } from './error-handler.js';
import { ApiError, badRequest } from './errors.js';
import { findRecord, type IdempotencyRecord, type KeyRef, lockKey, saveRecord } from './idempotency-records.js';
import { isSecretBearing, withoutSecrets } from './secrets.js';

/** JSON with object keys sorted, so the same parameters in another order count as the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The advisory lock of a key. */
const lockIdOf = (key: KeyRef) => advisoryLockId(`${key.organizationId}\n${key.keyHash}`);

/** The methods a key applies to; GET and HEAD change nothing, so they are never keyed. */
const KEYED_METHODS = new Set(['POST', 'PUT', 'DELETE']);

const stillRunning = () => new ApiError('conflict_error', 'A request with this Idempotency-Key is still being processed');

/**
 * `Idempotency-Key` on POST/PUT/DELETE: the same key and body replay the first answer for 24 h;
 * another body → 400; while the first is still running → 409. Server errors are not kept, so
 * the client may retry them.
 *
 * The request runs in one SQL transaction (request-transaction.ts) that also writes the key's
 * record, so its changes and its record commit together or not at all: a retry after a crash,
 * a lost connection or a failed commit either replays the answer or runs the request afresh,
 * and never records a change twice. A client error rolls back whatever the request wrote and
 * keeps only the answer. A secret in the answer is not kept: its replay comes without it.
 */
export function idempotency(db: Db, logger: Logger, organizationOf: (res: Response) => string): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('idempotency-key');
    if (header === undefined || !KEYED_METHODS.has(req.method)) return next();
    if (header.length < 1 || header.length > 255) throw badRequest('Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');

    const key: KeyRef = { organizationId: organizationOf(res), keyHash: sha256(header) };
    const fingerprint = sha256(`${req.method} ${req.originalUrl} ${canonicalJson(req.body ?? null)}`);
    const trx = await beginRequestTransaction(db);
    let earlier: IdempotencyRecord | undefined;
    try {
      if (!(await trx.run(() => lockKey(db, key, lockIdOf(key))))) throw stillRunning();
      earlier = await trx.run(() => findRecord(db, key));
      // What the request writes starts here: a client error undoes back to this point and
      // keeps only the record, still under the key's lock.
      if (!earlier) await trx.mark();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    if (earlier) {
      await trx.rollback();
      if (earlier.fingerprint !== fingerprint) {
        throw badRequest('This Idempotency-Key was already used with different request parameters', 'Idempotency-Key');
      }
      res.set('Idempotent-Replayed', 'true');
      res.status(earlier.response_status).json(earlier.response_body);
      return;
    }

    const record = (body: unknown): IdempotencyRecord => ({
      fingerprint,
      response_status: res.statusCode,
      response_body: isSecretBearing(res) ? withoutSecrets(body) : body,
    });
    // The answer is sent once the transaction has ended as it should: a retry arriving right
    // after it then finds the record.
    const finish = async (body: unknown): Promise<unknown> => {
      try {
        if (res.statusCode >= 500) {
          await trx.rollback();
          return body;
        }
        // The record commits in the same transaction as the changes (none after a client
        // error), before the lock is let go: a retry waiting for the key then finds it.
        if (res.statusCode >= 400) await trx.undoToMark();
        await trx.run(() => saveRecord(db, key, record(body)));
        await trx.commit();
        return body;
      } catch (err) {
        // Also a commit that failed: whether it took effect is unknown, and the record tells
        // a retry either way.
        await trx.rollback();
        const apiError = toApiError(err, req, logger);
        res.status(apiError.status);
        if (apiError.options.headers) res.set(apiError.options.headers);
        return apiError.toBody();
      }
    };
    const sendJson = res.json.bind(res);
    res.json = (body: unknown) => {
      res.json = sendJson;
      finish(body)
        .then(sendJson)
        .catch((err) => logger.error({ err, method: req.method, url: req.originalUrl }, 'sending an idempotent answer failed'));
      return res;
    };
    trx.run(() => next());
  };
}
