// Data patches (docs/contract.md §9): create, list, read, edit, delete, dry-run, execute and roll back.
import { actorOf } from '../../http/context.ts';
import { ENDPOINT_LIMITS } from '../../http/rate-limit.ts';
import { errors, IdParams, NoContent, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { RunSchema, toRunResponse } from '../runs/runs.schemas.ts';
import {
  CreatePatchBody,
  DryRunSchema,
  EditPatchBody,
  ExecuteBody,
  PatchListQuery,
  PatchSchema,
  RollbackBody,
  toPatchResponse,
} from './patches.schemas.ts';
import type { PatchesService } from './patches.service.ts';

export function registerPatchesRoutes(app: App, { patches }: { patches: PatchesService }): void {
  const tags = ['patches'];

  app.post(
    '/patches',
    {
      config: { action: 'patch.create' },
      schema: {
        operationId: 'createPatch',
        tags,
        summary: 'Save DML for a connection of the project, parsed into statements',
        description:
          'Only UPDATE, DELETE and INSERT, one table each, are accepted. DDL or any other statement, a WITH ' +
          'clause, a multi-table statement, SQL that does not parse, and UPDATE or DELETE without WHERE ' +
          '(unless `allow_full_table: true`) answer 422 naming the statement. The statements are keyed on ' +
          "the target's schema, read live: an unreachable target answers 502.",
        body: CreatePatchBody,
        response: { 201: PatchSchema, ...errors(401, 403, 404, 422, 502) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toPatchResponse(await patches.create(actorOf(request), request.body))),
  );

  app.get(
    '/patches',
    {
      config: { action: 'patch.read' },
      schema: {
        operationId: 'listPatches',
        tags,
        summary: "The project's patches, newest first",
        querystring: PatchListQuery,
        response: { 200: Page(PatchSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size, project_id } = request.query;
      const paging = { page, page_size };
      return pageOf(paging, await patches.list(actorOf(request), project_id, paging), toPatchResponse);
    },
  );

  app.get(
    '/patches/:id',
    {
      config: { action: 'patch.read' },
      schema: {
        operationId: 'getPatch',
        tags,
        summary: 'A patch',
        params: IdParams,
        response: { 200: PatchSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toPatchResponse(await patches.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/patches/:id',
    {
      config: { action: 'patch.edit' },
      schema: {
        operationId: 'editPatch',
        tags,
        summary: 'Edit the title, SQL or full-table allowance; the SQL is parsed again',
        description:
          'Only a draft or failed patch (else 409). A change of the SQL or of `allow_full_table` voids the ' +
          "pending and unused approvals of the patch. New SQL is keyed on the target's schema, read live: an " +
          'unreachable target answers 502.',
        params: IdParams,
        body: EditPatchBody,
        response: { 200: PatchSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request) => toPatchResponse(await patches.edit(actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/patches/:id',
    {
      config: { action: 'patch.delete' },
      schema: {
        operationId: 'deletePatch',
        tags,
        summary:
          'Delete a patch (not while it executes or a run of it is queued, nor while its backups are kept: 409)',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await patches.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
  registerPatchRunRoutes(app, patches, tags);
}

/** What a patch does to its target: a dry-run that changes nothing, and the runs that execute and roll it back. */
function registerPatchRunRoutes(app: App, patches: PatchesService, tags: string[]): void {
  app.post(
    '/patches/:id/dry-run',
    {
      config: { action: 'patch.dry_run', heavy: true },
      schema: {
        operationId: 'dryRunPatch',
        tags,
        summary: 'What the statements would do, computed by reads: rows affected and samples',
        description:
          'Nothing is changed, whatever the SQL: the statements are never run; each is computed as reads in a ' +
          'read-only transaction, over the rows as the earlier statements of the patch leave them. Each reports ' +
          'the rows it affects and up to 20 rows before and after it; values only a write would produce (the ' +
          'next value of a sequence, what triggers or cascades would change) are null and named in `notes`. ' +
          'A violation a read can see (NOT NULL, CHECK, unique, foreign key) or a statement the target cannot ' +
          'compute answers 422 `statement_failed` naming it; a table without transactions, a call reaching ' +
          'outside the database or a sequence move 422 too. Only a draft or failed patch (else 409). An ' +
          'unreachable target answers 502. Heavy operation.',
        params: IdParams,
        response: { 200: DryRunSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request) => patches.dryRun(actorOf(request), request.params.id),
  );

  app.post(
    '/patches/:id/execute',
    {
      config: { action: 'patch.execute', heavy: true, rateLimit: ENDPOINT_LIMITS.patchExecute },
      schema: {
        operationId: 'executePatch',
        tags,
        summary: 'Execute the patch on its connection, as a run',
        description:
          'Only a draft or failed patch (a failed execute changed nothing), and not while a run of the patch ' +
          'is queued, waiting for approval or running (409 naming that run). The run saves the before-images of the rows each UPDATE ' +
          'and DELETE touches, then runs every statement in one transaction; when `expected_rows` is given ' +
          'and the total differs, everything is rolled back and the run fails. A snapshot of the connection ' +
          'is taken after success. The run waits for approval when the project policy asks for one. ' +
          'The run is bound to the target schema read at the request: an unreachable target answers 502. ' +
          'Heavy operation, 10 per minute per user.',
        params: IdParams,
        body: ExecuteBody,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409, 502) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(toRunResponse(await patches.execute(actorOf(request), request.params.id, request.body ?? {}))),
  );

  app.post(
    '/patches/:id/rollback',
    {
      config: { action: 'patch.rollback', heavy: true },
      schema: {
        operationId: 'rollbackPatch',
        tags,
        summary: 'Restore the before-images of an executed patch, as a run',
        description:
          'Only an executed patch whose statements can all be rolled back and whose backups are kept, and not ' +
          'while a run of the patch is in flight (else 409, naming the run). The run restores the saved rows ' +
          'by their rollback key in one transaction. Rows changed since the patch are conflicts: the run fails ' +
          'listing them and nothing is restored, unless `force: true`. The run waits for approval when ' +
          'the project policy asks for one. The run is bound to the target schema read at the request: an ' +
          'unreachable target answers 502. Heavy operation.',
        params: IdParams,
        body: RollbackBody,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409, 502) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(toRunResponse(await patches.rollback(actorOf(request), request.params.id, request.body ?? {}))),
  );
}
