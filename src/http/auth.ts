// Authentication of every request: an API key (`Authorization: Bearer ak_<prefix>_<secret>`) or the
// `session` cookie, read fresh from the store each time so that a revocation, a demotion or a
// deactivation takes effect at once. Then the rate limits (counted by user, or by client IP when
// anonymous or when the credentials failed), the signed double-submit CSRF check for mutating
// session requests, and the scope and organization-role part of the route's declared action.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../core/actors.ts';
import { AppError, forbidden, unauthenticated } from '../core/errors.ts';
import { ACTIONS, type Action, decide } from '../security/policy.ts';
import { hmac, randomToken, safeEqual } from '../security/tokens.ts';

export const SESSION_COOKIE = 'session';
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'x-csrf-token';

const API_KEY = /^ak_([0-9A-Za-z]{8})_([0-9A-Za-z]{32,128})$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A CSRF token for a session: a random value and an HMAC binding it to the session id (OWASP's
 * signed double submit). It cannot be forged without the key, nor moved to another session.
 */
export function csrfTokenFor(secretKey: Buffer, sessionId: string): string {
  const nonce = randomToken();
  return `${nonce}.${hmac(secretKey, `csrf:${sessionId}:${nonce}`)}`;
}

function isCsrfTokenOf(secretKey: Buffer, sessionId: string, token: string): boolean {
  const [nonce = '', signature = '', extra] = token.split('.');
  return (
    extra === undefined && nonce !== '' && safeEqual(signature, hmac(secretKey, `csrf:${sessionId}:${nonce}`))
  );
}

/**
 * Who a credential belongs to, read fresh from the store (src/modules/auth/credentials.ts). Each
 * throws `unauthenticated` for a credential that is unknown, expired, revoked or whose owner may not
 * sign in.
 */
export interface CredentialLookup {
  session(token: string, options?: LookupOptions): Promise<Identified>;
  apiKey(prefix: string, secret: string, options?: LookupOptions): Promise<Identified>;
}

export interface LookupOptions {
  /** The route reads the credential epoch with its data: a cached principal may come unconfirmed. */
  deferEpoch?: boolean;
}

/** A principal, and what a route that confirms it itself needs (src/http/confirmed-read.ts). */
export interface Identified {
  principal: Principal;
  /** The epoch a cached principal was cached under, still to be compared; null when confirmed. */
  unconfirmedEpoch: string | null;
  /** Reads the epoch on its own (when the route's query returned no row to carry it). */
  readEpoch(): Promise<string>;
  /** The principal looked up again in the store (throws `unauthenticated` when it is no more). */
  refresh(): Promise<Principal>;
}

export interface AuthDeps {
  credentials: CredentialLookup;
  secretKey: Buffer;
  /** Counts the request once its caller is known, and may answer 429 (src/http/rate-limit.ts). */
  limitRate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export function registerAuthentication(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('identified', null);
  app.decorateRequest('pendingRateLimits', null);
  requireAdminScopeOfDeletes(app);

  app.addHook('onRequest', async (request, reply) => {
    const { auth, action } = request.routeOptions.config;
    // Who calls: a credential failure is held back until the request has been counted (per client
    // IP, like any anonymous call), so that guessing keys or replaying dead sessions is limited too.
    const { identified, failure } =
      auth === 'public' && !action ? { identified: null, failure: null } : await identify(request, deps);
    const principal = identified?.principal ?? null;
    request.principal = principal;
    request.identified = identified;
    // A principal still to confirm carries the plan it was cached with, which a plan change made
    // since (by any process) has made stale; the request is counted once the route's read has
    // confirmed or refreshed it (./confirmed-read.ts), so a new plan counts from the very next
    // request (docs/contract.md §11.3). Everything else is counted now.
    if (identified?.unconfirmedEpoch != null)
      request.pendingRateLimits = () => deps.limitRate(request, reply);
    else await deps.limitRate(request, reply);
    // An unknown route answers 404 whatever the credentials.
    if (request.is404) return;
    if (failure) throw failure;
    if (!principal) {
      if (auth === 'public') return;
      throw unauthenticated();
    }
    if (principal.via === 'session' && MUTATING.has(request.method))
      checkCsrf(request, principal, deps.secretKey);
    if (auth === 'session' && principal.via !== 'session') {
      throw forbidden('This endpoint needs a signed-in session, not an API key');
    }
    enforceAction(principal, action);
  });
  // A request refused before its route's read (a query that does not validate, a 403) is counted
  // all the same, under the cached principal: only its headers can still change, not its answer.
  app.addHook('onError', async (request) => {
    await settleRateLimits(request).catch(() => {});
  });
}

/** Makes the rate-limit charge a request still owes (see the onRequest hook); at most once. */
export async function settleRateLimits(request: FastifyRequest): Promise<void> {
  const pending = request.pendingRateLimits;
  request.pendingRateLimits = null;
  await pending?.();
}

/**
 * Every DELETE is an `admin`-scope action (docs/contract.md §3, fixed). Judged from the route table as routes are
 * registered: a DELETE route that declares no action, or one whose action needs less than `admin`,
 * stops the server from starting. So no DELETE can be added without the rule, and the policy table
 * (ACTIONS, which the services and the authorization matrix read too) stays the one place that
 * says what an action needs, rather than a method check here that it would not know of.
 */
function requireAdminScopeOfDeletes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('DELETE')) return;
    const action = route.config?.action;
    if (action === undefined || ACTIONS[action].scope !== 'admin')
      throw new Error(
        `DELETE ${route.url} must declare an action that needs the admin scope (docs/contract.md §3); it declares ` +
          (action === undefined ? 'none' : `'${action}' (scope '${ACTIONS[action].scope}')`),
      );
  });
}

/** The scope and organization-role part of the route's declared action (403, or 404 where hidden). */
export function enforceAction(principal: Principal, action: Action | undefined): void {
  if (!action) return;
  const decision = decide(principal, action);
  if (!decision.allowed)
    throw new AppError(decision.status === 404 ? 'not_found' : 'forbidden', decision.reason);
}

async function identify(
  request: FastifyRequest,
  deps: AuthDeps,
): Promise<{ identified: Identified | null; failure: AppError | null }> {
  try {
    return { identified: await authenticate(request, deps), failure: null };
  } catch (error) {
    if (error instanceof AppError) return { identified: null, failure: error };
    throw error;
  }
}

async function authenticate(request: FastifyRequest, deps: AuthDeps): Promise<Identified | null> {
  const options = { deferEpoch: request.routeOptions.config.epochInQuery === true };
  const header = request.headers.authorization;
  if (header !== undefined) {
    const [scheme, credential = ''] = header.split(' ', 2);
    const match = scheme?.toLowerCase() === 'bearer' ? API_KEY.exec(credential) : null;
    if (!match) throw unauthenticated('Invalid API key');
    const [, prefix = '', secret = ''] = match;
    return deps.credentials.apiKey(prefix, secret, options);
  }
  const token = request.cookies[SESSION_COOKIE];
  return token ? deps.credentials.session(token, options) : null;
}

function checkCsrf(request: FastifyRequest, principal: Principal, secretKey: Buffer): void {
  const sent = request.headers[CSRF_HEADER];
  const cookie = request.cookies[CSRF_COOKIE];
  const ok =
    typeof sent === 'string' &&
    cookie !== undefined &&
    safeEqual(sent, cookie) &&
    isCsrfTokenOf(secretKey, principal.sessionId ?? '', sent);
  if (!ok) throw forbidden('CSRF token missing or invalid');
}
