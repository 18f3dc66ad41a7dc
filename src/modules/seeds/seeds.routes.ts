// Seed scenarios (docs/contract.md §9.1): create, list, read, edit, delete, preview and run.
import { actorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { RunSchema, toRunResponse } from '../runs/runs.schemas.ts';
import {
  CreateScenarioBody,
  EditScenarioBody,
  PreviewSchema,
  ScenarioListQuery,
  ScenarioSchema,
  toScenarioResponse,
} from './seeds.schemas.ts';
import type { SeedsService } from './seeds.service.ts';

const CHECKED =
  'The definition is checked against the live schema of the connection: an unknown table or column, an ' +
  'unknown generator kind, a generator that does not fit the column (type, NOT NULL, length, enum labels, ' +
  'a CHECK its values break), options out of range (min above max, from after to, weights of another ' +
  'length than values), a template naming an unknown column, a unique column its generator cannot fill ' +
  'with enough distinct values, a parent table (by foreign key) that is neither in the scenario nor holds ' +
  'rows, and a cycle of NOT NULL foreign keys answer 422 naming them. A faker generator names a data method ' +
  'of the allow-list (see SeedGenerator) with `args` within bounds (JSON; strings ≤ 1,000 characters, ' +
  'numbers ≤ 10^9 in size, lengths and counts ≤ 10,000, at most 10 arguments); it is called once when ' +
  'saved, and arguments it refuses or a value over 64 KiB answer 422 naming the column, as does a constant ' +
  'or choice value over 64 KiB. Columns without a generator are ' +
  'inferred from their name and type (see the README for the rule table).';

export function registerSeedRoutes(app: App, { seeds }: { seeds: SeedsService }): void {
  const tags = ['seeds'];

  app.post(
    '/seed/scenarios',
    {
      config: { action: 'seed.create' },
      schema: {
        operationId: 'createSeedScenario',
        tags,
        summary: 'Save a seed scenario for a connection of the project',
        description: `${CHECKED} A duplicate name in the project: 409.`,
        body: CreateScenarioBody,
        response: { 201: ScenarioSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toScenarioResponse(await seeds.create(actorOf(request), request.body))),
  );

  app.get(
    '/seed/scenarios',
    {
      config: { action: 'seed.read' },
      schema: {
        operationId: 'listSeedScenarios',
        tags,
        summary: "The project's seed scenarios, newest first",
        querystring: ScenarioListQuery,
        response: { 200: Page(ScenarioSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size, project_id } = request.query;
      const { rows, total } = await seeds.list(actorOf(request), project_id, { page, page_size });
      return { items: rows.map(toScenarioResponse), total, page, page_size };
    },
  );

  app.get(
    '/seed/scenarios/:id',
    {
      config: { action: 'seed.read' },
      schema: {
        operationId: 'getSeedScenario',
        tags,
        summary: 'A seed scenario',
        params: IdParams,
        response: { 200: ScenarioSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toScenarioResponse(await seeds.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/seed/scenarios/:id',
    {
      config: { action: 'seed.edit' },
      schema: {
        operationId: 'editSeedScenario',
        tags,
        summary: 'Rename, replace the definition or the seed',
        description: `${CHECKED} A new definition or seed voids the pending and unused approvals of its runs.`,
        params: IdParams,
        body: EditScenarioBody,
        response: { 200: ScenarioSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request) =>
      toScenarioResponse(await seeds.edit(actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/seed/scenarios/:id',
    {
      config: { action: 'seed.delete' },
      schema: {
        operationId: 'deleteSeedScenario',
        tags,
        summary: 'Delete a seed scenario',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await seeds.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/seed/scenarios/:id/preview',
    {
      config: { action: 'seed.preview', heavy: true },
      schema: {
        operationId: 'previewSeedScenario',
        tags,
        summary: 'The first rows (up to 10 a table) a run would write; nothing is written',
        description:
          'The same values a run with this seed writes first (keys above the current maximum of each table, as ' +
          'now), references closed after a cycle with the values the closing UPDATE writes. At most 1,000 rows and ' +
          '1 MiB of values (as JSON) in all: past either, the later rows and tables are left out and `truncated` ' +
          'is true. A generated value over 64 KiB answers 422 naming its table and column. Heavy operation.',
        params: IdParams,
        response: { 200: PreviewSchema, ...errors(401, 403, 404, 422, 502) },
      },
    },
    async (request) => seeds.preview(actorOf(request), request.params.id),
  );

  app.post(
    '/seed/scenarios/:id/run',
    {
      config: { action: 'seed.run', heavy: true },
      schema: {
        operationId: 'runSeedScenario',
        tags,
        summary: "Seed the scenario's connection, as a run",
        description:
          'Answers 202 with a run of kind `seed_run` (progress in rows; result `{tables: [{table, rows}], ' +
          'rows_total}`). Every table is written in one transaction of the target, in foreign-key order, with ' +
          'COPY (PostgreSQL) or LOAD DATA LOCAL INFILE from a stream (MySQL); references broken at a cycle are ' +
          'filled after by set-based UPDATEs; sequences and AUTO_INCREMENT are moved past the written keys; the ' +
          "seeded tables' foreign keys are checked before the commit. A generated value over 64 KiB fails the " +
          'run naming its table and column. A failure or a cancellation writes nothing. A definition that no longer fits the schema answers 422; a run of the scenario already ' +
          'queued, waiting or running answers 409 naming it. A connection the policy lists ' +
          '(default: production) or a protected one waits for approval, bound to the definition and the seed. ' +
          'Heavy operation.',
        params: IdParams,
        response: { 202: RunSchema, ...errors(401, 403, 404, 409, 422, 502) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(toRunResponse(await seeds.run(actorOf(request), request.params.id))),
  );
}
