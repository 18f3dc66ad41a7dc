// Connections (docs/contract.md §6): CRUD, a connection test and the live schema. Answers are built from the
// declared schemas, which never include the password.
import { actorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  ConnectionSchema,
  CreateConnectionBody,
  ListConnectionsQuery,
  TestResultSchema,
  toConnectionResponse,
  UpdateConnectionBody,
} from './connections.schemas.ts';
import type { ConnectionsService } from './connections.service.ts';
import { SchemaModelSchema } from './schema-model.schemas.ts';

export function registerConnectionsRoutes(
  app: App,
  { connections }: { connections: ConnectionsService },
): void {
  const tags = ['connections'];

  app.post(
    '/connections',
    {
      config: { action: 'connection.create' },
      schema: {
        operationId: 'createConnection',
        tags,
        summary: 'Register a database connection in a project (project admins)',
        description:
          'Nothing is connected: use POST /connections/{id}/test. The password is stored encrypted and ' +
          'never returned. A host that is, or resolves to, a refused address answers 422 on `host`.',
        body: CreateConnectionBody,
        response: { 201: ConnectionSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toConnectionResponse(await connections.create(actorOf(request), request.body))),
  );

  app.get(
    '/connections',
    {
      config: { action: 'connection.read' },
      schema: {
        operationId: 'listConnections',
        tags,
        summary: 'List connections, newest first: of one project, or of every project the caller sees',
        querystring: ListConnectionsQuery,
        response: { 200: Page(ConnectionSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size, project_id } = request.query;
      const paging = { page, page_size };
      return pageOf(
        paging,
        await connections.list(actorOf(request), { project_id }, paging),
        toConnectionResponse,
      );
    },
  );

  app.get(
    '/connections/:id',
    {
      config: { action: 'connection.read' },
      schema: {
        operationId: 'getConnection',
        tags,
        summary: 'Get a connection (never its password)',
        params: IdParams,
        response: { 200: ConnectionSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toConnectionResponse(await connections.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/connections/:id',
    {
      config: { action: 'connection.update' },
      schema: {
        operationId: 'updateConnection',
        tags,
        summary: 'Change a connection, its password included (project admins)',
        description:
          'Only the fields given change. An edit that would send the stored password to another ' +
          'server must bring the password in the same body, else 422 on `body.password` and nothing ' +
          'changes: another `host` (ASCII letter case aside), `port`, `database` or `username`, a ' +
          'lower `ssl_mode` (`verify-full` > `require` > `disable`), or other CAs (`ca_cert`) while ' +
          '`verify-full` stays. Turning `protected` from true to false, with or without a change of ' +
          '`environment`, is for organization owners and admins (an API key also needs the `admin` ' +
          'scope): 403 for anyone else, project admins included; it is audited as ' +
          '`connection.unprotect`.',
        params: IdParams,
        body: UpdateConnectionBody,
        response: { 200: ConnectionSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) =>
      toConnectionResponse(await connections.update(actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/connections/:id',
    {
      config: { action: 'connection.delete' },
      schema: {
        operationId: 'deleteConnection',
        tags,
        summary: 'Delete a connection and its snapshots (project admins, admin scope)',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await connections.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/connections/:id/test',
    {
      config: { action: 'connection.test' },
      schema: {
        operationId: 'testConnection',
        tags,
        summary: 'Connect once and report (project developers and admins)',
        description:
          'Answers 200 whether or not the connection works: `ok`, the round-trip latency, the server ' +
          'version, and on failure the classified cause (authentication_failed, unknown_database, ' +
          'unreachable, timeout, tls, permission_denied — also for an address this server refuses — ' +
          'connection_lost, other) with a message that never contains the password.',
        params: IdParams,
        response: { 200: TestResultSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => connections.test(actorOf(request), request.params.id),
  );

  app.get(
    '/connections/:id/schema',
    {
      // A live introspection costs what a snapshot costs (docs/contract.md §4: heavy).
      config: { action: 'connection.read', heavy: true },
      schema: {
        operationId: 'getConnectionSchema',
        tags,
        summary: 'The live schema of the connection, introspected now (counts as a heavy operation)',
        description:
          "The same structure as a snapshot's `schema_json`. A target that cannot be reached or fails " +
          'during introspection answers 502 naming the connection and the classified cause.',
        params: IdParams,
        response: { 200: SchemaModelSchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request) => connections.schema(actorOf(request), request.params.id),
  );
}
