import type { FastifyReply } from 'fastify';
import { CSRF_COOKIE, csrfTokenFor, SESSION_COOKIE } from '../../http/auth.ts';
import { actorOf, anonymousActorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page, PageQuery } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { toUserResponse, UserSchema } from '../users/users.schemas.ts';
import { LoginBody, LoginResponse, SessionSchema, toSessionResponse, UpdateMeBody } from './auth.schemas.ts';
import type { AuthService, NewSession } from './auth.service.ts';

export interface AuthRoutesDeps {
  auth: AuthService;
  secretKey: Buffer;
  cookieSecure: boolean;
}

export function registerAuthRoutes(app: App, { auth, secretKey, cookieSecure }: AuthRoutesDeps): void {
  const tags = ['auth'];

  function setSessionCookies(reply: FastifyReply, session: NewSession): void {
    const common = { path: '/', sameSite: 'lax', secure: cookieSecure, expires: session.expiresAt } as const;
    reply.setCookie(SESSION_COOKIE, session.token, { ...common, httpOnly: true });
    // Readable by the web application's scripts, which echo it in X-CSRF-Token.
    reply.setCookie(CSRF_COOKIE, csrfTokenFor(secretKey, session.sessionId), { ...common, httpOnly: false });
  }

  app.post(
    '/auth/login',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'login',
        tags,
        summary: 'Sign in with e-mail and password; sets the session and csrf_token cookies',
        security: [],
        body: LoginBody,
        response: { 200: LoginResponse, ...errors(401) },
      },
    },
    async (request, reply) => {
      const result = await auth.login(anonymousActorOf(request), request.body.email, request.body.password);
      if (result.kind !== 'session') throw new Error('The 2FA step is not wired yet');
      setSessionCookies(reply, result.session);
      return { user: toUserResponse(result.session.user) };
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
      const { page, page_size } = request.query;
      const { rows, total } = await auth.sessions(actor, { page, page_size });
      return {
        items: rows.map((s) => toSessionResponse(s, actor.principal.sessionId)),
        total,
        page,
        page_size,
      };
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
