import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError } from './errors.js';

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

/** The one place errors become responses. Unknown errors are logged and answered with a generic 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    let apiError = err instanceof ApiError ? err : fromBodyParser(err);
    if (!apiError) {
      logger.error({ err, method: req.method, url: req.originalUrl }, 'unhandled error');
      apiError = new ApiError('api_error', 'Internal server error');
    }
    if (apiError.options.headers) res.set(apiError.options.headers);
    res.status(apiError.status).json(apiError.toBody());
  };
}

export const unknownRoute: RequestHandler = (req) => {
  throw new ApiError('not_found_error', `Unrecognized request URL (${req.method} ${req.path})`);
};
