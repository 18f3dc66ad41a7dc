// The error model of docs/contract.md §2 on the wire. Services throw AppError (src/core/errors.ts); the HTTP layer
// maps the code to a status through one table the compiler checks, and writes `{detail}`.
// Framework errors (validation, JSON, body size, media type) are translated here to the same shapes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, conflict } from '../core/errors.ts';
import {
  isMissingReference,
  isStillReferenced,
  isStoreUnavailable,
  isUniqueViolation,
} from '../store/errors.ts';
import { validationItems } from './validation.ts';

/** Seconds a client waits before retrying while the store is unavailable (docs/contract.md §2). */
export const STORE_RETRY_AFTER_SECONDS = 5;

function asAppError(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (isStoreUnavailable(error))
    return new AppError('store_unavailable', 'The service store is unavailable: retry later', {
      'retry-after': String(STORE_RETRY_AFTER_SECONDS),
    });
  // Services check for duplicates first; the unique index settles the race between two requests.
  if (isUniqueViolation(error)) return conflict('Conflict with an existing resource');
  // Services check that a parent exists first; its foreign key settles the race with its deletion.
  if (isMissingReference(error))
    return new AppError('not_found', 'Not found: what this request refers to was deleted meanwhile');
  if (isStillReferenced(error)) return conflict('Still referred to by another resource');
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

export type NotFoundHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** `notFound` answers paths no route serves (the web application's fallback); a JSON 404 by default. */
export function registerErrorHandlers(app: FastifyInstance, notFound?: NotFoundHandler): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof AppError ? error : asAppError(error, request);
    if (known) return sendError(reply, known);
    // Anything else is a bug or an outage: full details in the log, none in the answer.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new AppError('internal', 'Internal Server Error'));
  });
  app.setNotFoundHandler(notFound ?? ((_request, reply) => reply.code(404).send({ detail: 'Not Found' })));
}
