// Snapshots (docs/contract.md §6): take one (a heavy operation), list a connection's, read one with its schema.
import { actorOf } from '../../http/context.ts';
import { errors, IdParams, Page, PageQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  ConnectionParams,
  SnapshotSchema,
  SnapshotSummarySchema,
  TakeSnapshotQuery,
  toSnapshotResponse,
  toSnapshotSummary,
} from './snapshots.schemas.ts';
import type { SnapshotsService } from './snapshots.service.ts';

export function registerSnapshotsRoutes(app: App, { snapshots }: { snapshots: SnapshotsService }): void {
  const tags = ['snapshots'];

  app.post(
    '/connections/:cid/snapshots',
    {
      config: { action: 'snapshot.create', heavy: true },
      schema: {
        operationId: 'takeSnapshot',
        tags,
        summary: 'Introspect the connection now and store the schema (project developers and admins)',
        description:
          'With `baseline=true` (project admins) the snapshot becomes the only baseline of the ' +
          'connection. Counts as a heavy operation. A target that fails answers 502 and nothing is stored.',
        params: ConnectionParams,
        querystring: TakeSnapshotQuery,
        response: { 201: SnapshotSchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request, reply) => {
      const snapshot = await snapshots.create(actorOf(request), request.params.cid, {
        baseline: request.query.baseline,
      });
      return reply.code(201).send(toSnapshotResponse(snapshot));
    },
  );

  app.get(
    '/connections/:cid/snapshots',
    {
      config: { action: 'connection.read' },
      schema: {
        operationId: 'listSnapshots',
        tags,
        summary: "The connection's snapshots, newest first, without their schema",
        params: ConnectionParams,
        querystring: PageQuery,
        response: { 200: Page(SnapshotSummarySchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const paging = request.query;
      return pageOf(
        paging,
        await snapshots.list(actorOf(request), request.params.cid, paging),
        toSnapshotSummary,
      );
    },
  );

  app.get(
    '/snapshots/:id',
    {
      config: { action: 'connection.read' },
      schema: {
        operationId: 'getSnapshot',
        tags,
        summary: 'A snapshot with its schema',
        params: IdParams,
        response: { 200: SnapshotSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toSnapshotResponse(await snapshots.get(actorOf(request), request.params.id)),
  );
}
