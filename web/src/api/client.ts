// The API client: openapi-fetch typed by the generated contract, same origin, session cookies, and
// the CSRF header (a copy of the `csrf_token` cookie) on every mutating request (docs/contract.md §3).
import createClient, { type Middleware } from 'openapi-fetch';
import { readCookie } from '../lib/cookies.ts';
import { detailText } from '../lib/errors.ts';
import type { paths } from './schema';

export class ApiError extends Error {
  readonly status: number;
  /** A target database's failure (502): its classified cause, e.g. `authentication_failed`. */
  readonly targetCause: string | undefined;
  constructor(status: number, message: string, targetCause?: string) {
    super(message);
    this.status = status;
    this.targetCause = targetCause;
  }
}

/** The response header of a 502 naming the target's classified cause (src/dialects/errors.ts). */
const TARGET_ERROR_HEADER = 'X-Target-Error-Cause';

const csrfHeader: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const token = readCookie(document.cookie, 'csrf_token');
      if (token) request.headers.set('X-CSRF-Token', token);
    }
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(csrfHeader);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; otherwise an ApiError carrying the API's `detail` text. */
export async function call<T>(request: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok)
    throw new ApiError(
      response.status,
      detailText(error, response.status),
      response.headers.get(TARGET_ERROR_HEADER) ?? undefined,
    );
  return data as T;
}
