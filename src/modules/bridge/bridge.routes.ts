// Bridge (docs/contract.md §9.3): POST /projects/{pid}/bridge/run, a copy between two connections as a run.
import { actorOf } from '../../http/context.ts';
import { ENDPOINT_LIMITS } from '../../http/rate-limit.ts';
import { errors } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ProjectParams } from '../projects/projects.schemas.ts';
import { RunSchema, toRunResponse } from '../runs/runs.schemas.ts';
import { BridgeRunBody } from './bridge.schemas.ts';
import type { BridgeService } from './bridge.service.ts';

export function registerBridgeRoutes(app: App, { bridge }: { bridge: BridgeService }): void {
  app.post(
    '/projects/:pid/bridge/run',
    {
      config: { action: 'bridge.run', heavy: true, rateLimit: ENDPOINT_LIMITS.bridgeRun },
      schema: {
        operationId: 'runBridge',
        tags: ['bridge'],
        summary: 'Copy rows from one connection of the project into another, as a run',
        description:
          'Answers 202 with a run of kind `bridge_run` (progress in rows; result `{tables: [{table, rows}], ' +
          'rows_total, tables_done, tables_not_done, skipped_columns, tables_created, load_method, snapshot_id}`). ' +
          'Tables load parents first, each in one transaction of the target; the foreign keys among them are out ' +
          'of the way during the load and restored and validated after, also when the run fails. A new run of ' +
          'the same body skips the tables its failed or cancelled predecessor finished. The same connection or ' +
          'two connections of one database as source and target, a connection of another project, an unknown ' +
          'table, a table the target lacks without `create_tables`, or a filter outside the allow-list answer ' +
          '422; a copy already writing into the target, or the same copy queued, waiting or running, answers 409 ' +
          'naming that run. The caller needs `bridge.run` on both connections: a just-in-time grant on one ' +
          'opens nothing on the other (403 before any run exists). Copying into a connection the policy lists ' +
          '(default: production) or a protected one, or out of a protected one, waits for approval (by someone ' +
          'other than the requester where a connection is protected). 5 per minute per user.',
        params: ProjectParams,
        body: BridgeRunBody,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(toRunResponse(await bridge.run(actorOf(request), request.params.pid, request.body))),
  );
}
