import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/errors.js';
import { SharedStoreUnavailable } from '../store/store.js';
import { ApiError } from './errors.js';

/** SQL or the shared store is down: nothing is wrong with the request, so it may be retried. */
function fromDependencyFault(err: unknown): ApiError | null {
  if (!isDatabaseUnavailable(err) && !(err instanceof SharedStoreUnavailable)) return null;
  return new ApiError('service_unavailable', 'The service is temporarily unavailable; retry shortly', { headers: { 'Retry-After': '1' } });
}

/** Errors thrown by body-parser carry a `type`; they are the client's fault. */
function fromBodyParser(err: unknown): ApiError | null {
  // The router fails to decode a path parameter such as `/v1/programs/%zz`.
  if (err instanceof URIError) return new ApiError('invalid_request_error', 'Malformed percent-encoding in the request URL');
  const type = (err as { type?: unknown })?.type;
  if (typeof type !== 'string') return null;
  if (type === 'entity.too.large') return new ApiError('payload_too_large', 'Request body is larger than 100 KB');
  if (type === 'entity.parse.failed') return new ApiError('invalid_request_error', 'Malformed JSON in request body');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError('invalid_request_error', 'Unsupported request body encoding; send UTF-8 JSON');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set') {
    return new ApiError('invalid_request_error', 'Could not read the request body');
  }
  return null;
}

/** What the client is told about an error: its own ApiError, or a 503/500 for what went wrong here (logged). */
export function toApiError(err: unknown, req: Request, logger: Logger): ApiError {
  const known = err instanceof ApiError ? err : fromBodyParser(err);
  if (known) return known;
  const fault = fromDependencyFault(err);
  if (fault) {
    // One short line per request: an outage must not flood the log with stack traces.
    logger.warn({ method: req.method, url: req.originalUrl, reason: (err as Error).message }, 'dependency unavailable');
    return fault;
  }
  logger.error({ err, method: req.method, url: req.originalUrl }, 'unhandled error');
  return new ApiError('api_error', 'Internal server error');
}

/** The one place errors become responses. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const apiError = toApiError(err, req, logger);
    if (apiError.options.headers) res.set(apiError.options.headers);
    res.status(apiError.status).json(apiError.toBody());
  };
}

export const unknownRoute: RequestHandler = (req) => {
  throw new ApiError('not_found_error', `Unrecognized request URL (${req.method} ${req.path})`);
};
