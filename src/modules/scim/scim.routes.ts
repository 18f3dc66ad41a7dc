// /scim/v2 (docs/contract.md §12): its own authentication (the organization's bearer token, never a session or an
// API key), its own content type (`application/scim+json`, `application/json` accepted), its own error
// envelope and its own rate limit (300 a minute per organization). Registered as an encapsulated
// plugin outside /api/v1, so none of that API's hooks apply here.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.ts';
import { bodyDepthError } from '../../http/body-depth.ts';
import { allowanceCharges, createRateLimiter, ipSubject, orgScimSubject } from '../../http/rate-limit.ts';
import type { RateLimitStore } from '../../http/rate-limit-store.ts';
import type { App } from '../../http/types.ts';
import type { Db } from '../../store/db.ts';
import { listOf, resourceTypes, schemas, serviceProviderConfig } from './scim.discovery.ts';
import { MAX_LIST_NUMBER, SCIM_CONTENT_TYPE, SCIM_ROUTES } from './scim.document.ts';
import { ScimError, scimInvalid, scimNotFound } from './scim.errors.ts';
import type { ScimGroups } from './scim.groups.ts';
import { groupResource, listResponse, userResource } from './scim.resources.ts';
import { orgOfScimToken } from './scim.tokens.ts';
import type { ScimUsers } from './scim.users.ts';

declare module 'fastify' {
  interface FastifyRequest {
    scimOrgId: string | null;
  }
}

interface ScimRouteDeps {
  db: Db;
  users: ScimUsers;
  groups: ScimGroups;
  rateLimits: RateLimitStore;
  now: () => Date;
  /** The public address of /scim/v2, for `location`. */
  baseUrl: string;
}

type Params = { id: string };
type ListQuery = { filter?: string; startIndex?: string; count?: string };

function listQuery(query: ListQuery) {
  const number = (raw: string | undefined, name: string) => {
    if (raw === undefined) return undefined;
    if (!/^-?\d+$/.test(raw)) throw scimInvalid(`${name} must be an integer`);
    const value = Number(raw);
    if (Math.abs(value) > MAX_LIST_NUMBER) throw scimInvalid(`${name} must be at most ${MAX_LIST_NUMBER}`);
    return value;
  };
  return {
    filter: query.filter,
    startIndex: number(query.startIndex, 'startIndex'),
    count: number(query.count, 'count'),
  };
}

function toScimError(error: FastifyError | Error): ScimError {
  if (error instanceof ScimError) return error;
  if (error instanceof AppError) {
    if (error.status === 429) return new ScimError(429, error.text, undefined, error.headers);
    if (error.status === 404) return scimNotFound('Resource');
    return new ScimError(error.status, error.text);
  }
  const status = (error as FastifyError).statusCode;
  if (status === 415) return new ScimError(415, `Send ${SCIM_CONTENT_TYPE} or application/json`);
  if (status === 413) return new ScimError(413, 'The request body is too large');
  if (error instanceof SyntaxError || (status !== undefined && status < 500))
    return new ScimError(400, 'The request body is not valid JSON', 'invalidSyntax');
  return new ScimError(500, 'Internal Server Error');
}

export async function registerScimRoutes(app: App, deps: ScimRouteDeps): Promise<void> {
  const { db, users, groups, baseUrl } = deps;
  const limiter = createRateLimiter({ store: deps.rateLimits, now: deps.now });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(SCIM_CONTENT_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    // The nesting bound of every body (docs/contract.md §1), judged on the text before it is parsed.
    const tooDeep = bodyDepthError(body as string);
    if (tooDeep) return done(tooDeep);
    return parseJson(request, body as string, done);
  });
  app.decorateRequest('scimOrgId', null);
  // The route schemas describe /scim/v2 in /openapi.json; the handlers check bodies and queries
  // themselves so that a refusal is a SCIM error with its scimType, and answers are sent as built.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const scim = toScimError(error);
    if (scim.status >= 500) request.log.error({ err: error }, 'SCIM request failed');
    return reply.code(scim.status).headers(scim.headers).type(SCIM_CONTENT_TYPE).send(scim.body);
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).type(SCIM_CONTENT_TYPE).send(scimNotFound('Resource').body),
  );

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const [scheme, token = ''] = (request.headers.authorization ?? '').split(' ', 2);
    const orgId = scheme?.toLowerCase() === 'bearer' ? await orgOfScimToken(db, token.trim()) : undefined;
    // Counted before it is refused: guessing tokens is limited per client address.
    const subject = orgId ? orgScimSubject(orgId) : ipSubject(request.ip);
    await limiter.charge(request, reply, allowanceCharges(subject, 1));
    if (!orgId)
      throw new ScimError(401, 'A valid SCIM bearer token is required', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    request.scimOrgId = orgId;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (String(reply.getHeader('content-type') ?? '').startsWith('application/json'))
      reply.type(SCIM_CONTENT_TYPE);
    return payload;
  });

  const org = (request: FastifyRequest) => request.scimOrgId as string;

  app.get<{ Querystring: ListQuery }>('/Users', { schema: SCIM_ROUTES.listUsers }, async (request) => {
    const { users: found, total, startIndex } = await users.list(org(request), listQuery(request.query));
    return listResponse(
      found.map((user) => userResource(user, baseUrl)),
      total,
      startIndex,
    );
  });
  app.post('/Users', { schema: SCIM_ROUTES.createUser }, async (request, reply) => {
    const user = await users.create(org(request), request.body);
    return reply
      .code(201)
      .header('location', `${baseUrl}/Users/${user.id}`)
      .send(userResource(user, baseUrl));
  });
  app.get<{ Params: Params }>('/Users/:id', { schema: SCIM_ROUTES.readUser }, async (request) =>
    userResource(await users.get(org(request), request.params.id), baseUrl),
  );
  app.put<{ Params: Params }>('/Users/:id', { schema: SCIM_ROUTES.replaceUser }, async (request) =>
    userResource(await users.replace(org(request), request.params.id, request.body), baseUrl),
  );
  app.patch<{ Params: Params }>('/Users/:id', { schema: SCIM_ROUTES.patchUser }, async (request) =>
    userResource(await users.patch(org(request), request.params.id, request.body), baseUrl),
  );
  app.delete<{ Params: Params }>('/Users/:id', { schema: SCIM_ROUTES.removeUser }, async (request, reply) => {
    await users.remove(org(request), request.params.id);
    return reply.code(204).send();
  });

  app.get<{ Querystring: ListQuery }>('/Groups', { schema: SCIM_ROUTES.listGroups }, async (request) => {
    const { groups: found, total, startIndex } = await groups.list(org(request), listQuery(request.query));
    return listResponse(
      found.map(({ group, members }) => groupResource(group, members, baseUrl)),
      total,
      startIndex,
    );
  });
  app.post('/Groups', { schema: SCIM_ROUTES.createGroup }, async (request, reply) => {
    const { group, members } = await groups.create(org(request), request.body);
    return reply
      .code(201)
      .header('location', `${baseUrl}/Groups/${group.id}`)
      .send(groupResource(group, members, baseUrl));
  });
  app.get<{ Params: Params }>('/Groups/:id', { schema: SCIM_ROUTES.readGroup }, async (request) => {
    const { group, members } = await groups.get(org(request), request.params.id);
    return groupResource(group, members, baseUrl);
  });
  app.put<{ Params: Params }>('/Groups/:id', { schema: SCIM_ROUTES.replaceGroup }, async (request) => {
    const { group, members } = await groups.replace(org(request), request.params.id, request.body);
    return groupResource(group, members, baseUrl);
  });
  app.patch<{ Params: Params }>('/Groups/:id', { schema: SCIM_ROUTES.patchGroup }, async (request) => {
    const { group, members } = await groups.patch(org(request), request.params.id, request.body);
    return groupResource(group, members, baseUrl);
  });
  app.delete<{ Params: Params }>(
    '/Groups/:id',
    { schema: SCIM_ROUTES.removeGroup },
    async (request, reply) => {
      await groups.remove(org(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get('/ServiceProviderConfig', { schema: SCIM_ROUTES.serviceProviderConfig }, async () =>
    serviceProviderConfig(baseUrl),
  );
  app.get('/Schemas', { schema: SCIM_ROUTES.listSchemas }, async () => listOf(schemas(baseUrl)));
  app.get<{ Params: Params }>('/Schemas/:id', { schema: SCIM_ROUTES.readSchema }, async (request) => {
    const found = schemas(baseUrl).find((s) => s.id === request.params.id);
    if (!found) throw scimNotFound('Schema');
    return found;
  });
  app.get('/ResourceTypes', { schema: SCIM_ROUTES.listResourceTypes }, async () =>
    listOf(resourceTypes(baseUrl)),
  );
  app.get<{ Params: Params }>(
    '/ResourceTypes/:id',
    { schema: SCIM_ROUTES.readResourceType },
    async (request) => {
      const found = resourceTypes(baseUrl).find((t) => t.id === request.params.id);
      if (!found) throw scimNotFound('ResourceType');
      return found;
    },
  );
}
