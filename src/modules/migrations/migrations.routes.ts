// Schema migrations (docs/contract.md §8): compare, list, read, edit, apply and roll back.
import { actorOf } from '../../http/context.ts';
import { errors, IdParams, Page, PageQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ProjectParams } from '../projects/projects.schemas.ts';
import { RunSchema, toRunResponse } from '../runs/runs.schemas.ts';
import {
  ApplyBody,
  CompareBody,
  EditBody,
  MigrationSchema,
  RollbackBody,
  toMigrationResponse,
} from './migrations.schemas.ts';
import type { MigrationsService } from './migrations.service.ts';

export function registerMigrationsRoutes(app: App, { migrations }: { migrations: MigrationsService }): void {
  const tags = ['migrations'];

  app.post(
    '/projects/:pid/migrations/compare',
    {
      config: { action: 'migration.compare', heavy: true },
      schema: {
        operationId: 'compareMigration',
        tags,
        summary: 'Plan the DDL that makes the target match the source (the reference)',
        description:
          'Both connections belong to the project and share a dialect (else 422). Both are introspected; ' +
          'the plan is linted against the target statistics. A failing target answers 502. Heavy operation.',
        params: ProjectParams,
        body: CompareBody,
        response: { 201: MigrationSchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          toMigrationResponse(await migrations.compare(actorOf(request), request.params.pid, request.body)),
        ),
  );

  app.get(
    '/projects/:pid/migrations',
    {
      config: { action: 'migration.read' },
      schema: {
        operationId: 'listMigrations',
        tags,
        summary: "The project's migrations, newest first",
        params: ProjectParams,
        querystring: PageQuery,
        response: { 200: Page(MigrationSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const paging = request.query;
      return pageOf(
        paging,
        await migrations.list(actorOf(request), request.params.pid, paging),
        toMigrationResponse,
      );
    },
  );

  app.get(
    '/migrations/:id',
    {
      config: { action: 'migration.read' },
      schema: {
        operationId: 'getMigration',
        tags,
        summary: 'A migration',
        params: IdParams,
        response: { 200: MigrationSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toMigrationResponse(await migrations.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/migrations/:id',
    {
      config: { action: 'migration.edit' },
      schema: {
        operationId: 'editMigration',
        tags,
        summary: 'Edit the SQL: re-parsed, re-linted, rollback regenerated or null',
        description:
          'Only a draft or failed migration (else 409). Voids the pending and unused approvals of the migration.',
        params: IdParams,
        body: EditBody,
        response: { 200: MigrationSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) =>
      toMigrationResponse(
        await migrations.edit(actorOf(request), request.params.id, request.body.generated_sql),
      ),
  );

  app.post(
    '/migrations/:id/apply',
    {
      config: { action: 'migration.apply' },
      schema: {
        operationId: 'applyMigration',
        tags,
        summary: 'Apply the migration to the target, as a run',
        description:
          'Only a draft migration or one whose apply failed (else 409). SQL that is not schema only (stored ' +
          'before the rule) answers 422 naming the statements; a stored lint warning of severity `error` ' +
          'answers 409 naming the rules and statements. SQL that drops a table or column needs ' +
          "`confirm_irreversible: true` and `confirmation` equal to the target connection's name (else 422 " +
          'naming the statements). A target whose schema changed since the compare answers 409. The run ' +
          'waits for approval when the project policy asks for one.',
        params: IdParams,
        body: ApplyBody,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409, 502) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(toRunResponse(await migrations.apply(actorOf(request), request.params.id, request.body ?? {}))),
  );

  app.post(
    '/migrations/:id/rollback',
    {
      config: { action: 'migration.rollback' },
      schema: {
        operationId: 'rollbackMigration',
        tags,
        summary: 'Apply the rollback of an applied migration, as a run',
        description:
          '409 when the migration has no rollback, or is neither applied nor failed in a rollback. A ' +
          'rollback that destroys data (drops a table or a column, or a statement marked destructive in ' +
          '`rollback_statements`) needs `confirm_irreversible: true` and `confirmation` equal to the target ' +
          "connection's name, else 422 naming those statements. The run works under `rolling_back`; once a " +
          'backup has been restored from, the rollback drops it.',
        params: IdParams,
        body: RollbackBody,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          toRunResponse(await migrations.rollback(actorOf(request), request.params.id, request.body ?? {})),
        ),
  );
}
