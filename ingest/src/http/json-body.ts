import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type RequestHandler } from 'express';
import { ApiError, badRequest } from './errors.js';

export const BODY_LIMIT = '100kb';

/** Far deeper than any body schema goes (a flow's condition values, the deepest, are at four levels). */
export const MAX_BODY_DEPTH = 32;

/**
 * JSON text is UTF-8 (RFC 8259 §8.1). The decoder would otherwise turn each bad byte into U+FFFD
 * and the service would store text the client never sent. A body declared in another Unicode
 * charset (utf-16…) is decoded as declared.
 */
function verifyUtf8(_req: IncomingMessage, _res: ServerResponse, body: Buffer, charset: string | null): void {
  if (charset === 'utf-8' && !isUtf8(body)) throw badRequest('Request body is not valid UTF-8');
}

/** Whether a parsed JSON value nests more than `limit` levels; iterative, so any depth is safe to check. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * body-parser passes on what the decompression stream reports about a gzip, deflate or br body
 * that does not decompress as a bare 400 without a `type`; it is the client's error like any
 * other malformed body, not an unexpected one.
 */
export function fromDecompression(err: unknown): unknown {
  const e = err as { status?: unknown; type?: unknown };
  if (err instanceof ApiError || e?.status !== 400 || e.type !== undefined) return err;
  return badRequest('Could not decompress the request body; check its Content-Encoding');
}

/**
 * A JSON body parser for the given media types: at most 100 KB, an object or an array at the top,
 * UTF-8, nested at most MAX_BODY_DEPTH levels (recursive code further on, such as the
 * Idempotency-Key fingerprint, must not meet thousands of levels).
 */
export function jsonParser(types: string | string[]): RequestHandler {
  const parse = express.json({ type: types, limit: BODY_LIMIT, strict: true, verify: verifyUtf8 });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (err !== undefined) return next(fromDecompression(err));
      // A request whose client went away while it waited (in the key check, the rate limit) has
      // ended before its body was read: body-parser then passes it on without a body. It must
      // not run as if it had sent none (a refund of part would refund everything).
      if (req.body === undefined && declaresBody(req) && req.is(types)) {
        return next(badRequest('The request body was not received whole; send the request again'));
      }
      if (req.body !== undefined && nestedDeeperThan(req.body, MAX_BODY_DEPTH)) {
        return next(badRequest(`Request body is nested more than ${MAX_BODY_DEPTH} levels deep`));
      }
      next();
    });
  };
}

const parseJson = jsonParser('application/json');

/** Whether the request's headers announce a body. */
const declaresBody = (req: express.Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** JSON bodies only: a body sent with another Content-Type is refused instead of silently ignored. */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (declaresBody(req) && !req.is('application/json')) {
    throw badRequest('Request bodies must be JSON, sent with Content-Type: application/json');
  }
  parseJson(req, res, next);
};
