// The error model of API §2. Services throw AppError with a code from a closed set; the HTTP layer
// maps the code to a status through one table the compiler checks, and writes `{detail}`.
// Framework errors (validation, JSON, body size, media type) are translated here to the same shapes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUniqueViolation } from '../store/errors.ts';
import { type ValidationItem, validationItems } from './validation.ts';

const STATUS = {
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
} as const satisfies Record<string, number>;

export type AppErrorCode = keyof typeof STATUS;

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
}

export const notFound = (resource: string) => new AppError('not_found', `${resource} not found`);
export const conflict = (detail: string) => new AppError('conflict', detail);
export const forbidden = (detail: string) => new AppError('forbidden', detail);
export const unauthenticated = (detail = 'Not authenticated') =>
  new AppError('unauthenticated', detail, { 'WWW-Authenticate': 'Bearer' });

/** A 422 about one field, in the validation shape: `invalid(['body', 'email'], 'msg', 'value_error')`. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') =>
  new AppError('validation', [{ loc, msg, type }]);

function asAppError(error: FastifyError, request: FastifyRequest): AppError | undefined {
  // Services check for duplicates first; the unique index settles the race between two requests.
  if (isUniqueViolation(error)) return conflict('Conflict with an existing resource');
  if (error.validation) {
    // A body that is not there at all is "missing", as FastAPI says it.
    if (error.validationContext === 'body' && request.body == null) {
      return new AppError('validation', [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    }
    return new AppError('validation', validationItems(error.validation, error.validationContext));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('validation', [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'Request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Unsupported media type: send application/json');
  }
  // JSON.parse failures surface as a 400 SyntaxError from the body parser.
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('validation', [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
  if (error.statusCode === 413) return new AppError('payload_too_large', 'Request body is larger than 1 MiB');
  if (error.statusCode === 415) return new AppError('unsupported_media_type', 'Unsupported media type');
  return undefined;
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.code(error.status).headers(error.headers).send({ detail: error.detail });
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof AppError ? error : asAppError(error, request);
    if (known) return sendError(reply, known);
    // Anything else is a bug or an outage: full details in the log, none in the answer.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new AppError('internal', 'Internal Server Error'));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
}
