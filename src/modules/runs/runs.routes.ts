import { actorOf } from '../../http/context.ts';
import { errors, IdParams, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { RunSchema, RunsQuery, toRunResponse } from './runs.schemas.ts';
import type { RunsService } from './runs.service.ts';

export function registerRunsRoutes(app: App, { runs }: { runs: RunsService }): void {
  const tags = ['runs'];

  app.get(
    '/runs',
    {
      config: { action: 'runs.list' },
      schema: {
        operationId: 'listRuns',
        tags,
        summary: 'Runs of the projects the caller can see, newest first',
        querystring: RunsQuery,
        response: { 200: Page(RunSchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const { page, page_size, ...filter } = request.query;
      const paging = { page, page_size };
      return pageOf(paging, await runs.list(actorOf(request), filter, paging), toRunResponse);
    },
  );

  app.get(
    '/runs/:id',
    {
      config: { action: 'runs.list' },
      schema: {
        operationId: 'getRun',
        tags,
        summary: 'A run, with its progress and, once finished, its result or error',
        params: IdParams,
        response: { 200: RunSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toRunResponse(await runs.get(actorOf(request), request.params.id)),
  );

  app.post(
    '/runs/:id/cancel',
    {
      config: { action: 'run.cancel' },
      schema: {
        operationId: 'cancelRun',
        tags,
        summary: 'Cancel a run',
        description:
          'A queued run, or one awaiting approval, is cancelled at once. A running one is asked to stop ' +
          'and ends as `cancelled` at its next checkpoint (its answer here still says `running`). ' +
          'A finished run answers 409.',
        params: IdParams,
        response: { 200: RunSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => toRunResponse(await runs.cancel(actorOf(request), request.params.id)),
  );
}
