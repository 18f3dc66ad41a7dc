// Anonymization (docs/contract.md §9.2): configs (create, list, read, edit, delete), the PII scan and the preview.
import { actorOf } from '../../http/context.ts';
import { ENDPOINT_LIMITS } from '../../http/rate-limit.ts';
import { errors, IdParams, NoContent, Page } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { RunSchema, toRunResponse } from '../runs/runs.schemas.ts';
import {
  ConfigListQuery,
  ConfigSchema,
  CreateConfigBody,
  EditConfigBody,
  PiiScanSchema,
  PreviewBody,
  PreviewSchema,
  toConfigResponse,
} from './anonymize.schemas.ts';
import type { AnonymizeService } from './anonymize.service.ts';

const CHECKED =
  'The rules are checked against the live schema of the connection: an unknown table, column or ' +
  'transformer, a transformer that does not fit the column (type, NOT NULL, length), options out of ' +
  'range, a rule on a generated column, `unique: true` on a transformer that cannot keep values ' +
  'distinct, a table without a primary key or a unique key on NOT NULL columns, and a key referenced by ' +
  'columns that cannot hold its transformed values answer 422 naming the rule. A rule on a key that ' +
  'other tables reference applies to the referencing columns too (`propagated`).';

export function registerAnonymizeRoutes(app: App, { anonymize }: { anonymize: AnonymizeService }): void {
  const tags = ['anonymize'];

  app.post(
    '/anonymize/configs',
    {
      config: { action: 'anonymize.create' },
      schema: {
        operationId: 'createAnonymizeConfig',
        tags,
        summary: 'Save anonymization rules for a connection of the project',
        description: `${CHECKED} The key is generated when absent, sealed and never returned (\`has_key\`). A duplicate name in the project: 409.`,
        body: CreateConfigBody,
        response: { 201: ConfigSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toConfigResponse(await anonymize.create(actorOf(request), request.body))),
  );

  app.get(
    '/anonymize/configs',
    {
      config: { action: 'anonymize.read' },
      schema: {
        operationId: 'listAnonymizeConfigs',
        tags,
        summary: "The project's anonymization configs, newest first",
        querystring: ConfigListQuery,
        response: { 200: Page(ConfigSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size, project_id } = request.query;
      const { rows, total } = await anonymize.list(actorOf(request), project_id, { page, page_size });
      return { items: rows.map(toConfigResponse), total, page, page_size };
    },
  );

  app.get(
    '/anonymize/configs/:id',
    {
      config: { action: 'anonymize.read' },
      schema: {
        operationId: 'getAnonymizeConfig',
        tags,
        summary: 'An anonymization config (never its key)',
        params: IdParams,
        response: { 200: ConfigSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toConfigResponse(await anonymize.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/anonymize/configs/:id',
    {
      config: { action: 'anonymize.edit' },
      schema: {
        operationId: 'editAnonymizeConfig',
        tags,
        summary: 'Rename, replace the rules, the key or strict mode',
        description: `${CHECKED} New rules or a new key void the pending and unused approvals of the config's runs.`,
        params: IdParams,
        body: EditConfigBody,
        response: { 200: ConfigSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request) =>
      toConfigResponse(await anonymize.edit(actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/anonymize/configs/:id',
    {
      config: { action: 'anonymize.delete' },
      schema: {
        operationId: 'deleteAnonymizeConfig',
        tags,
        summary: 'Delete an anonymization config',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await anonymize.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/anonymize/configs/:id/pii-scan',
    {
      config: { action: 'anonymize.read', heavy: true },
      schema: {
        operationId: 'scanAnonymizeConfig',
        tags,
        summary: 'Columns of the connection that look personal, and whether a rule covers them',
        description:
          'By column name (patterns in several languages) and by a sample of at most 1,000 rows a table of ' +
          'its text and JSON columns (e-mail, phone, card numbers passing Luhn, IBANs passing their check ' +
          'digits, IP addresses, and longer free text containing any of them). Only categories are ' +
          'returned, never values. With `strict`, a run refuses while an uncovered column remains. Heavy operation.',
        params: IdParams,
        response: { 200: PiiScanSchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request) => anonymize.piiScan(actorOf(request), request.params.id),
  );

  app.post(
    '/anonymize/configs/:id/preview',
    {
      config: { action: 'anonymize.preview', heavy: true },
      schema: {
        operationId: 'previewAnonymizeConfig',
        tags,
        summary: "Sampled values of each rule's column, before and after; nothing is written",
        description:
          'Up to `rows` non-null values a rule (default 10, at most 100), transformed with the config key as ' +
          'a run would. Shows personal data as it is: developers only. Heavy operation.',
        params: IdParams,
        body: PreviewBody,
        response: { 200: PreviewSchema, ...errors(401, 403, 404, 422, 502) },
      },
    },
    async (request) => anonymize.preview(actorOf(request), request.params.id, request.body ?? {}),
  );

  app.post(
    '/anonymize/configs/:id/run',
    {
      config: { action: 'anonymize.run', heavy: true, rateLimit: ENDPOINT_LIMITS.anonymizeRun },
      schema: {
        operationId: 'runAnonymizeConfig',
        tags,
        summary: "Anonymise the config's connection in place, as a run",
        description:
          'Answers 202 with a run of kind `anonymize_run` (progress in rows; result `{tables: [{table, rows}], ' +
          'rows_total, tables_done, tables_not_done}`). Each group of tables linked by a propagated key is ' +
          'rewritten in one transaction of the target with its rows locked against writes: rows stream out, ' +
          'are transformed, stream into a staging table and are written back by one set-based UPDATE by key ' +
          '(never row by row); the foreign keys among the group are set aside and validated before it commits, ' +
          'so each table ends untouched or fully anonymised. Rules that no longer match the schema answer 422; ' +
          'with `strict`, a column the PII scan finds and no rule covers answers 409 naming it, as does a run ' +
          'of the config already queued, waiting or running. A connection ' +
          'the policy lists (default: production) or a protected one waits for approval, bound to the rules, ' +
          'the key and the schema. 5 per minute per user. Heavy operation.',
        params: IdParams,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(toRunResponse(await anonymize.run(actorOf(request), request.params.id))),
  );
}
