// The error model of docs/contract.md §2, without a framework: services throw AppError with a code from a closed
// set; the HTTP layer (src/http/errors.ts) maps the code to a status through the table below, which
// the compiler checks, and writes `{detail}`.

const STATUS = {
  /** A request this service cannot read at all (a payment provider's call with a bad signature). */
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  target_unavailable: 502,
  /** The service's own store is down or unreachable: transient, the client retries (Retry-After). */
  store_unavailable: 503,
} as const satisfies Record<string, number>;

export type AppErrorCode = keyof typeof STATUS;

/** One item of a 422 answer: `{loc: ["body", "name"], msg, type}` (FastAPI's shape). */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly detail: string | ValidationItem[];
  readonly headers: Record<string, string>;

  constructor(code: AppErrorCode, detail: string | ValidationItem[], headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : 'Validation failed');
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }

  get status(): number {
    return STATUS[this.code];
  }

  /** The detail as one line of text (a CLI answer, a run's error). */
  get text(): string {
    return typeof this.detail === 'string' ? this.detail : this.detail.map((item) => item.msg).join('\n');
  }
}

export const notFound = (resource: string) => new AppError('not_found', `${resource} not found`);
export const conflict = (detail: string) => new AppError('conflict', detail);
export const forbidden = (detail: string) => new AppError('forbidden', detail);
export const unauthenticated = (detail = 'Not authenticated') =>
  new AppError('unauthenticated', detail, { 'WWW-Authenticate': 'Bearer' });

/** A 422 about one field, in the validation shape: `invalid(['body', 'email'], 'msg', 'value_error')`. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') =>
  new AppError('validation', [{ loc, msg, type }]);
