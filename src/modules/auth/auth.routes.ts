import type { FastifyReply } from 'fastify';
import { CSRF_COOKIE, csrfTokenFor, SESSION_COOKIE } from '../../http/auth.ts';
import { actorOf, anonymousActorOf } from '../../http/context.ts';
import { ENDPOINT_LIMITS } from '../../http/rate-limit.ts';
import { errors, IdParams, NoContent, Page, PageQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { toUserResponse, UserSchema } from '../users/users.schemas.ts';
import {
  LoginBody,
  LoginResponse,
  SessionSchema,
  SignedInResponse,
  toSessionResponse,
  UpdateMeBody,
} from './auth.schemas.ts';
import type { AuthService, NewSession } from './auth.service.ts';
import { SignupBody } from './signup.schemas.ts';
import type { SignupService } from './signup.service.ts';
import { LoginSecondFactorBody } from './two-factor.schemas.ts';

/**
 * The cookies of a completed login, the same for every way in (password, 2FA step, signup, OAuth):
 * the HttpOnly session token and the csrf_token the web application echoes in X-CSRF-Token.
 */
export function sessionCookieWriter(options: { secretKey: Buffer; cookieSecure: boolean }) {
  return (reply: FastifyReply, session: NewSession): void => {
    const common = {
      path: '/',
      sameSite: 'lax',
      secure: options.cookieSecure,
      expires: session.expiresAt,
    } as const;
    reply.setCookie(SESSION_COOKIE, session.token, { ...common, httpOnly: true });
    // Readable by the web application's scripts, which echo it in X-CSRF-Token.
    const csrf = csrfTokenFor(options.secretKey, session.sessionId);
    reply.setCookie(CSRF_COOKIE, csrf, { ...common, httpOnly: false });
  };
}

export interface AuthRoutesDeps {
  auth: AuthService;
  signup: SignupService;
  secretKey: Buffer;
  cookieSecure: boolean;
}

export function registerAuthRoutes(
  app: App,
  { auth, signup, secretKey, cookieSecure }: AuthRoutesDeps,
): void {
  const tags = ['auth'];
  const setSessionCookies = sessionCookieWriter({ secretKey, cookieSecure });

  app.post(
    '/auth/login',
    {
      config: { auth: 'public', rateLimit: ENDPOINT_LIMITS.login },
      schema: {
        operationId: 'login',
        tags,
        summary: 'Sign in with e-mail and password; sets the session and csrf_token cookies',
        description:
          'For a user with two-factor authentication the answer is `{partial_token, needs_2fa: true}` ' +
          'and no cookie: finish with POST /auth/login/2fa.',
        security: [],
        body: LoginBody,
        response: { 200: LoginResponse, ...errors(401) },
      },
    },
    async (request, reply) => {
      const result = await auth.login(anonymousActorOf(request), request.body.email, request.body.password);
      if (result.kind === 'needs_2fa')
        return { partial_token: result.partialToken, needs_2fa: true as const };
      setSessionCookies(reply, result.session);
      return { user: toUserResponse(result.session.user) };
    },
  );

  app.post(
    '/auth/login/2fa',
    {
      config: { auth: 'public', rateLimit: ENDPOINT_LIMITS.loginTwoFactor },
      schema: {
        operationId: 'loginSecondFactor',
        tags,
        summary: 'Second step of a 2FA login: the partial token and a code; sets the cookies',
        description:
          '`code` is a current 6-digit TOTP code (each accepted once; one 30-second step of clock skew ' +
          'either way) or an unused recovery code. A wrong, replayed or used-up code, or a partial token ' +
          'that expired (5 minutes), was used, or had 5 wrong codes, answers 401.',
        security: [],
        body: LoginSecondFactorBody,
        response: { 200: SignedInResponse, ...errors(401) },
      },
    },
    async (request, reply) => {
      const session = await auth.loginSecondFactor(
        anonymousActorOf(request),
        request.body.partial_token,
        request.body.code,
      );
      setSessionCookies(reply, session);
      return { user: toUserResponse(session.user) };
    },
  );

  app.post(
    '/auth/signup',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'signup',
        tags,
        summary: 'Create an organization (Starter plan) and its owner, and sign in as that owner',
        description: 'Sets the session and csrf_token cookies. 403 when the server runs with SIGNUP=closed.',
        security: [],
        body: SignupBody,
        response: { 201: SignedInResponse, ...errors(403, 409) },
      },
    },
    async (request, reply) => {
      const session = await signup.signup(anonymousActorOf(request), request.body);
      setSessionCookies(reply, session);
      return reply.code(201).send({ user: toUserResponse(session.user) });
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'logout',
        tags,
        summary: 'Sign out: the session is revoked and the cookies cleared',
        response: { 204: NoContent, ...errors(401, 403) },
      },
    },
    async (request, reply) => {
      await auth.logout(actorOf(request));
      reply.clearCookie(SESSION_COOKIE, { path: '/' }).clearCookie(CSRF_COOKIE, { path: '/' });
      return reply.code(204).send();
    },
  );

  app.get(
    '/auth/me',
    {
      config: { action: 'self.read' },
      schema: {
        operationId: 'getMe',
        tags,
        summary: 'The signed-in user',
        response: { 200: UserSchema, ...errors(401) },
      },
    },
    async (request) => toUserResponse(await auth.me(actorOf(request))),
  );

  app.patch(
    '/auth/me',
    {
      config: { action: 'self.update' },
      schema: {
        operationId: 'updateMe',
        tags,
        summary: 'Change your name or password',
        description:
          'A new password needs `current_password` and a signed-in session; it revokes your other sessions.',
        body: UpdateMeBody,
        response: { 200: UserSchema, ...errors(401, 403) },
      },
    },
    async (request) => toUserResponse(await auth.updateMe(actorOf(request), request.body)),
  );

  app.get(
    '/auth/sessions',
    {
      config: { action: 'self.read' },
      schema: {
        operationId: 'listSessions',
        tags,
        summary: 'Your live sessions, newest first',
        querystring: PageQuery,
        response: { 200: Page(SessionSchema), ...errors(401) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const paging = request.query;
      return pageOf(paging, await auth.sessions(actor, paging), (s) =>
        toSessionResponse(s, actor.principal.sessionId),
      );
    },
  );

  app.delete(
    '/auth/sessions/:id',
    {
      config: { action: 'self.sessions.revoke' },
      schema: {
        operationId: 'revokeSession',
        tags,
        summary: 'Revoke one of your sessions; it is refused at once',
        description: 'With an API key this needs the `admin` scope, like every DELETE.',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await auth.revokeSession(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
