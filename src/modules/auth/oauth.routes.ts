// OAuth sign-in routes: a redirect to the provider, and the callback that ends in the web application
// (signed in, or at the 2FA step). The transient state travels in a sealed, HttpOnly cookie limited to
// these paths; the callback clears it whatever happens.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../core/errors.ts';
import { anonymousActorOf } from '../../http/context.ts';
import { errors } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { NewSession } from './auth.service.ts';
import { OAuthCallbackQuery, OAuthProviderParams, Redirect } from './oauth.schemas.ts';
import { OAUTH_STATE_TTL_SECONDS, type OAuthService } from './oauth.service.ts';

export const OAUTH_STATE_COOKIE = 'oauth_state';
const STATE_COOKIE_PATH = '/api/v1/auth/oauth';

export interface OAuthRoutesDeps {
  oauth: OAuthService;
  /** The web application: where a finished sign-in lands. */
  publicUrl: string;
  cookieSecure: boolean;
  setSessionCookies: (reply: FastifyReply, session: NewSession) => void;
}

const errorResponse = (status: 403 | 404 | 502, description: string) => ({
  [status]: Type.Ref('Error', { description }),
});

/** A 502 is the operator's business: the failing step goes to the log (never a token or a code). */
function logProviderFailure(request: FastifyRequest, error: unknown): never {
  if (error instanceof AppError && error.code === 'target_unavailable') {
    const failure = error.cause instanceof Error ? error.cause : undefined;
    const cause = failure?.cause instanceof Error ? failure.cause.message : undefined;
    request.log.warn({ step: failure?.message, cause }, 'OAuth provider failure');
  }
  throw error;
}

/**
 * The request line of a callback carries a one-time code and the state: log the path only.
 * Otherwise like Fastify's default request serializer.
 */
const logWithoutQuery = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: request.url.split('?')[0],
    host: request.host,
    remoteAddress: request.ip,
  }),
};

export function registerOAuthRoutes(app: App, deps: OAuthRoutesDeps): void {
  const { oauth, publicUrl, cookieSecure, setSessionCookies } = deps;
  const tags = ['auth'];
  const stateCookie = {
    path: STATE_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: cookieSecure,
  } as const;

  app.get(
    '/auth/oauth/:provider/authorize',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'oauthAuthorize',
        tags,
        summary: 'Start signing in with an external provider: a redirect to it',
        description:
          'Answers 302 to the provider with state, PKCE (S256) and, for OpenID Connect, a nonce. ' +
          `The check values travel in the encrypted, HttpOnly \`${OAUTH_STATE_COOKIE}\` cookie, valid ` +
          `${OAUTH_STATE_TTL_SECONDS / 60} minutes. Open this URL in the browser (a link or ` +
          'window.location), not with fetch.',
        security: [],
        params: OAuthProviderParams,
        response: {
          302: Redirect('To the provider'),
          ...errors(),
          ...errorResponse(404, 'OAuth provider not configured'),
          ...errorResponse(502, 'Provider unreachable or answering an invalid response'),
        },
      },
    },
    async (request, reply) => {
      const { url, sealedState } = await oauth
        .start(request.params.provider)
        .catch((error: unknown) => logProviderFailure(request, error));
      reply.setCookie(OAUTH_STATE_COOKIE, sealedState, { ...stateCookie, maxAge: OAUTH_STATE_TTL_SECONDS });
      return reply.redirect(url, 302);
    },
  );

  app.get(
    '/auth/oauth/:provider/callback',
    {
      config: { auth: 'public' },
      logSerializers: logWithoutQuery,
      schema: {
        operationId: 'oauthCallback',
        tags,
        summary: 'Where the provider sends the browser back: signs in and redirects to the web application',
        description:
          'Signed in: the `session` and `csrf_token` cookies (as `POST /auth/login`) and 302 to the web ' +
          'application. A user with 2FA gets no cookie and 302 to `/login/2fa#partial_token=…` (in the ' +
          'fragment, so the token reaches no server log), for `POST /auth/login/2fa`. The account is ' +
          'found by the provider identity; a first sign-in links to an existing user with the same ' +
          'provider-verified e-mail, or creates a new organization with the user as owner when signup ' +
          'is open. Refusals are 403: missing or expired state, state mismatch, consent denied, no ' +
          'verified e-mail, signup closed, deactivated or deleted user.',
        security: [],
        params: OAuthProviderParams,
        querystring: OAuthCallbackQuery,
        response: {
          302: Redirect('To the web application, signed in, or to its 2FA step'),
          ...errors(),
          ...errorResponse(
            403,
            'Sign-in refused: state missing, expired or mismatched, consent denied, code rejected, no ' +
              'verified e-mail, signup closed, or user deactivated or deleted',
          ),
          ...errorResponse(404, 'OAuth provider not configured'),
          ...errorResponse(502, 'Provider unreachable or answering an invalid response'),
        },
      },
    },
    async (request, reply) => {
      // A state is good for one callback, whatever its outcome.
      reply.clearCookie(OAUTH_STATE_COOKIE, stateCookie);
      const result = await oauth
        .finish(
          anonymousActorOf(request),
          request.params.provider,
          request.query,
          request.cookies[OAUTH_STATE_COOKIE],
        )
        .catch((error: unknown) => logProviderFailure(request, error));
      if (result.kind === 'needs_2fa') {
        return reply.redirect(
          `${publicUrl}/login/2fa#partial_token=${encodeURIComponent(result.partialToken)}`,
          302,
        );
      }
      setSessionCookies(reply, result.session);
      return reply.redirect(`${publicUrl}/`, 302);
    },
  );
}
