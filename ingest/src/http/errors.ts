/** The one error table: every error type, its HTTP status, and how it is rendered. */
export const ERROR_STATUS = {
  invalid_request_error: 400,
  authentication_error: 401,
  not_found_error: 404,
  conflict_error: 409,
  payload_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;

export interface ApiErrorOptions {
  param?: string;
  /**
   * Render `error` as the bare message string, as the Partnership Program API does for a few errors
   * (ingest/docs/api.md#errors).
   */
  plainMessage?: boolean;
  /** Extra top-level fields of the body, e.g. `data` holding an existing record. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[type];
  }

  toBody(): Record<string, unknown> {
    const error = this.options.plainMessage
      ? this.message
      : { message: this.message, type: this.type, ...(this.options.param ? { param: this.options.param } : {}) };
    return { success: false, error, ...this.options.extra };
  }
}

export const badRequest = (message: string, param?: string) => new ApiError('invalid_request_error', message, { param });

/** 404 for a missing id; an id of another organization gets the very same answer. */
export const notFound = (resource: string, id: string, param?: string) =>
  new ApiError('not_found_error', `No such ${resource}: '${id}'`, { param });

export const conflict = (message: string, extra?: Record<string, unknown>) => new ApiError('conflict_error', message, { extra });
