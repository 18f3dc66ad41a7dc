import { type Static, Type } from 'typebox';
import { RUN_KINDS, RUN_STATUSES } from '../../core/vocabulary.ts';
import {
  DocumentedAs,
  Nullable,
  PageQuery,
  StringEnum,
  Timestamp,
  toTimestamp,
  Uuid,
} from '../../http/schemas.ts';
import type { Run } from '../../store/tables.ts';
import { RunResult } from './run-results.schemas.ts';
import { SubjectSchema, toSubjectResponse } from './subject.schemas.ts';

export { RUN_KINDS, RUN_STATUSES };

export const RunSchema = Type.Object(
  {
    id: Uuid,
    kind: StringEnum(RUN_KINDS),
    project_id: Uuid,
    subject_id: Nullable(Uuid),
    subject: Nullable({
      ...SubjectSchema,
      description:
        'What the run is about, as its approval shows it; null for drift checks and for runs started before ' +
        'subjects were recorded',
    }),
    status: StringEnum(RUN_STATUSES),
    approval_id: Nullable(Uuid),
    progress: Type.Object({
      done: Type.Integer({ minimum: 0 }),
      total: Nullable(Type.Integer({ minimum: 0 })),
      unit: Type.String({ description: 'What is counted: rows, statements, tables, steps' }),
    }),
    started_at: Nullable(Timestamp),
    finished_at: Nullable(Timestamp),
    error: Nullable(Type.String()),
    // Answered as the handler wrote it; the document shows the shape of each kind (run-results.schemas.ts).
    result: DocumentedAs(
      RunResult,
      Nullable(Type.Record(Type.String(), Type.Unknown(), { description: "The operation's own results" })),
    ),
    created_at: Timestamp,
  },
  { title: 'Run' },
);

export const RunsQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    project_id: Type.Optional(Uuid),
    kind: Type.Optional(StringEnum(RUN_KINDS)),
    status: Type.Optional(StringEnum(RUN_STATUSES)),
  }),
]);
export type RunsQuery = Static<typeof RunsQuery>;

export function toRunResponse(run: Run) {
  return {
    id: run.id,
    kind: run.kind,
    project_id: run.project_id,
    subject_id: run.subject_id,
    subject: toSubjectResponse(run.subject),
    status: run.status,
    approval_id: run.approval_id,
    progress: {
      done: Number(run.progress_done),
      total: run.progress_total === null ? null : Number(run.progress_total),
      unit: run.progress_unit,
    },
    started_at: toTimestamp(run.started_at),
    finished_at: toTimestamp(run.finished_at),
    error: run.error,
    result: run.result,
    created_at: toTimestamp(run.created_at),
  };
}
