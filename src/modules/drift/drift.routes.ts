// Drift detection (docs/contract.md §6, Enterprise only: other plans get 403 "Drift detection requires the
// Enterprise plan" on every route): a connection's status, a check now, reports, acknowledgement.
import { actorOf } from '../../http/context.ts';
import { errors, IdParams, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ConnectionParams } from '../snapshots/snapshots.schemas.ts';
import {
  AcknowledgeBody,
  DriftCheckSchema,
  DriftOverviewSchema,
  DriftReportSchema,
  DriftsQuery,
  toDriftCheckResponse,
  toDriftOverviewResponse,
  toDriftReportResponse,
} from './drift.schemas.ts';
import type { DriftService } from './drift.service.ts';

const ENTERPRISE =
  'Enterprise plan only: other plans get 403 "Drift detection requires the Enterprise plan".';

export function registerDriftRoutes(app: App, { drift }: { drift: DriftService }): void {
  const tags = ['drift'];

  app.get(
    '/connections/:cid/drift',
    {
      config: { action: 'drift.read' },
      schema: {
        operationId: 'getConnectionDrift',
        tags,
        summary: "The connection's drift status: its baseline, newest report and open reports",
        description:
          'On the first visit, when the connection has no baseline, its schema is snapshotted now and ' +
          'that snapshot becomes the baseline (a target that fails then answers 502). ' +
          ENTERPRISE,
        params: ConnectionParams,
        response: { 200: DriftOverviewSchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request) => toDriftOverviewResponse(await drift.overview(actorOf(request), request.params.cid)),
  );

  app.post(
    '/connections/:cid/drift/check',
    {
      config: { action: 'drift.check', heavy: true },
      schema: {
        operationId: 'checkConnectionDrift',
        tags,
        summary: 'Compare the live schema with the baseline now (project developers and admins)',
        description:
          'Runs inline, bounded by the target statement timeout, and is recorded as a finished ' +
          '`drift_check` run (GET /runs?kind=drift_check). Without a baseline the new snapshot becomes ' +
          'it and `drift` is false. A drift gives a report; when a pending report already describes ' +
          'this very schema (same hash), that report is answered and no new report or alert is made. ' +
          'A new report with changes above cosmetic sends `send_drift_alert` to the project admins. ' +
          'Counts as a heavy operation. ' +
          ENTERPRISE,
        params: ConnectionParams,
        response: { 200: DriftCheckSchema, ...errors(401, 403, 404, 502) },
      },
    },
    async (request) => toDriftCheckResponse(await drift.check(actorOf(request), request.params.cid)),
  );

  app.get(
    '/drifts',
    {
      config: { action: 'drifts.list' },
      schema: {
        operationId: 'listDriftReports',
        tags,
        summary: 'Drift reports of the projects the caller can see, newest first',
        description: `A project or connection the caller cannot see answers 404. ${ENTERPRISE}`,
        querystring: DriftsQuery,
        response: { 200: Page(DriftReportSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size, ...filter } = request.query;
      const paging = { page, page_size };
      return pageOf(paging, await drift.list(actorOf(request), filter, paging), toDriftReportResponse);
    },
  );

  app.get(
    '/drifts/:id',
    {
      config: { action: 'drifts.list' },
      schema: {
        operationId: 'getDriftReport',
        tags,
        summary: 'A drift report with its diff',
        description: ENTERPRISE,
        params: IdParams,
        response: { 200: DriftReportSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toDriftReportResponse(await drift.get(actorOf(request), request.params.id)),
  );

  app.post(
    '/drifts/:id/acknowledge',
    {
      config: { action: 'drift.acknowledge' },
      schema: {
        operationId: 'acknowledgeDriftReport',
        tags,
        summary: 'Accept the drift: its current snapshot becomes the baseline (project admins)',
        description:
          "The connection's older pending reports are acknowledged with it: the accepted state " +
          'supersedes them. A report already acknowledged answers 409. The body may be omitted. ' +
          ENTERPRISE,
        params: IdParams,
        body: AcknowledgeBody,
        response: { 200: DriftReportSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) =>
      toDriftReportResponse(
        await drift.acknowledge(actorOf(request), request.params.id, request.body?.comment ?? null),
      ),
  );
}
