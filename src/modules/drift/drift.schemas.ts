import { Type } from 'typebox';
import { DRIFT_STATUSES } from '../../core/vocabulary.ts';
import type { SchemaDiff } from '../../engine/schema/diff.ts';
import { CHANGE_SEVERITY } from '../../engine/schema/severity.ts';
import { Nullable, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { DriftReport } from '../../store/tables.ts';
import { SnapshotSchema, toSnapshotResponse } from '../snapshots/snapshots.schemas.ts';
import type { DriftOverview } from './drift.service.ts';
import type { DriftCheckOutcome } from './drift-check.ts';

export { DRIFT_STATUSES };

const SEVERITIES = ['critical', 'moderate', 'minor', 'cosmetic'] as const;
const CHANGE_KINDS = Object.keys(CHANGE_SEVERITY) as (keyof typeof CHANGE_SEVERITY)[];

const SEVERITY_HELP =
  '`critical`: a table or column dropped. `moderate`: a column type altered; also NOT NULL added, ' +
  'primary key, unique or check constraint added, changed or dropped, foreign key dropped or changed, ' +
  'identity, generation, auto-increment or collation changed, enum values removed or reordered. ' +
  '`minor`: a column, index or table added; also an index dropped or changed, a default changed, ' +
  'nullability relaxed, a foreign key added, a comment changed, a rename, enum values added, a ' +
  "sequence changed. `cosmetic`: a default printed differently with the same meaning (a server's " +
  'reformatting): reported, never counted in the summary, and never alerted on its own.';

const Severity = StringEnum(SEVERITIES, { description: SEVERITY_HELP });

const ChangeSchema = Type.Object(
  {
    kind: StringEnum(CHANGE_KINDS),
    object: Type.String({
      description: 'The column, constraint or index within the table; `schema.name` for enums and sequences',
    }),
    from: Nullable(Type.String()),
    to: Nullable(Type.String()),
    severity: Severity,
  },
  { title: 'DriftChange' },
);

const TableEntrySchema = Type.Object(
  {
    table: Type.String({ description: '`schema.table` on PostgreSQL, `table` on MySQL' }),
    severity: Severity,
  },
  { title: 'DriftTableChanges' },
);

export const DriftDiffSchema = Type.Object(
  {
    tables_added: Type.Array(TableEntrySchema),
    tables_removed: Type.Array(TableEntrySchema),
    tables_modified: Type.Array(
      Type.Object({
        table: Type.String(),
        severity: Type.Unsafe<(typeof SEVERITIES)[number]>({
          ...Severity,
          description: 'The highest severity of its changes',
        }),
        changes: Type.Array(ChangeSchema),
      }),
    ),
  },
  {
    title: 'DriftDiff',
    description:
      'From the baseline to the current snapshot. Tables and columns are matched by name (a rename is ' +
      'a removal and an addition); column order, raw default text, the server version, and views, ' +
      'functions or triggers are not compared. Shadow objects of online schema change tools (gh-ost, ' +
      "pt-online-schema-change, REINDEX CONCURRENTLY, …) and this service's backups are never reported.",
  },
);

export const DriftReportSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    connection_id: Uuid,
    baseline_snapshot_id: Uuid,
    current_snapshot_id: Uuid,
    status: StringEnum(DRIFT_STATUSES),
    severity: Type.Unsafe<(typeof SEVERITIES)[number]>({
      ...Severity,
      description: 'The highest severity of the changes',
    }),
    summary: Type.Object(
      {
        critical: Type.Integer({ minimum: 0 }),
        moderate: Type.Integer({ minimum: 0 }),
        minor: Type.Integer({ minimum: 0 }),
      },
      { description: 'How many changes of each severity (cosmetic ones are not counted)' },
    ),
    diff: DriftDiffSchema,
    created_at: Timestamp,
    acknowledged_at: Nullable(Timestamp),
    acknowledged_by: Nullable(Uuid),
    comment: Nullable(Type.String()),
  },
  { title: 'DriftReport' },
);

export const DriftOverviewSchema = Type.Object(
  {
    baseline: SnapshotSchema,
    latest_report: Nullable(DriftReportSchema),
    open_reports: Type.Integer({ minimum: 0, description: 'Pending reports of the connection' }),
  },
  { title: 'DriftOverview' },
);

export const DriftCheckSchema = Type.Object(
  {
    drift: Type.Boolean({ description: 'Whether the live schema differs from the baseline' }),
    report: Nullable(DriftReportSchema),
    snapshot: SnapshotSchema,
  },
  { title: 'DriftCheck' },
);

export const DriftsQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    project_id: Type.Optional(Uuid),
    connection_id: Type.Optional(Uuid),
    status: Type.Optional(StringEnum(DRIFT_STATUSES)),
  }),
]);

// Nothing is required, so the body may be left out (it reads as `{}`).
export const AcknowledgeBody = Type.Object(
  {
    comment: Type.Optional(
      Nullable(Type.String({ maxLength: 2000, description: 'Why the change is accepted' })),
    ),
  },
  { title: 'AcknowledgeDriftRequest', additionalProperties: false },
);

export function toDriftReportResponse(report: DriftReport) {
  return {
    id: report.id,
    project_id: report.project_id,
    connection_id: report.connection_id,
    baseline_snapshot_id: report.baseline_snapshot_id,
    current_snapshot_id: report.current_snapshot_id,
    status: report.status,
    severity: report.severity,
    summary: report.summary,
    diff: report.diff as SchemaDiff,
    created_at: toTimestamp(report.created_at),
    acknowledged_at: toTimestamp(report.acknowledged_at),
    acknowledged_by: report.acknowledged_by,
    comment: report.comment,
  };
}

export function toDriftOverviewResponse(overview: DriftOverview) {
  return {
    baseline: toSnapshotResponse(overview.baseline),
    latest_report: overview.latestReport && toDriftReportResponse(overview.latestReport),
    open_reports: overview.openReports,
  };
}

export function toDriftCheckResponse(outcome: DriftCheckOutcome) {
  return {
    drift: outcome.drift,
    report: outcome.report && toDriftReportResponse(outcome.report),
    snapshot: toSnapshotResponse(outcome.snapshot),
  };
}
