// Patches (docs/contract.md §9): request bodies and the Patch resource.
import { type Static, Type } from 'typebox';
import { PATCH_STATUSES } from '../../core/vocabulary.ts';
import { Nullable, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import { PATCH_ACTIONS, type PatchView } from './patch-states.ts';

export { PATCH_STATUSES };

const Sql = Type.String({ minLength: 1, maxLength: 1_000_000 });
const Title = Type.String({ minLength: 1, maxLength: 200 });
const AllowFullTable = Type.Boolean({
  description: 'Allow UPDATE and DELETE without WHERE (refused with 422 otherwise)',
});

export const CreatePatchBody = Type.Object(
  {
    project_id: Uuid,
    connection_id: Uuid,
    title: Title,
    sql: Sql,
    allow_full_table: Type.Optional(AllowFullTable),
  },
  { title: 'CreatePatchRequest', additionalProperties: false },
);
export type CreatePatchBody = Static<typeof CreatePatchBody>;

export const EditPatchBody = Type.Object(
  { title: Type.Optional(Title), sql: Type.Optional(Sql), allow_full_table: Type.Optional(AllowFullTable) },
  { title: 'EditPatchRequest', additionalProperties: false },
);
export type EditPatchBody = Static<typeof EditPatchBody>;

export const ExecuteBody = Type.Object(
  {
    expected_rows: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The total rows the statements must affect; any other total rolls everything back',
      }),
    ),
    allow_irreversible: Type.Optional(
      Type.Boolean({
        description:
          "Execute statements that cannot be rolled back (see each statement's `irreversible_reason`); refused with 422 otherwise",
      }),
    ),
  },
  { title: 'ExecutePatchRequest', additionalProperties: false },
);
export type ExecuteBody = Static<typeof ExecuteBody>;

export const RollbackBody = Type.Object(
  {
    force: Type.Optional(
      Type.Boolean({ description: 'Restore also the rows changed since the patch (the conflicts)' }),
    ),
  },
  { title: 'RollbackPatchRequest', additionalProperties: false },
);
export type RollbackBody = Static<typeof RollbackBody>;

export const PatchListQuery = Type.Intersect([PageQuery, Type.Object({ project_id: Uuid })]);

const PatchStatementSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0 }),
    kind: StringEnum(['update', 'delete', 'insert'] as const),
    table: Type.String(),
    reversible: Type.Boolean(),
    irreversible_reason: Nullable(
      Type.String({
        description: 'Why a rollback cannot restore what the statement changes; null when it can',
      }),
    ),
    sql: Type.String(),
  },
  { title: 'PatchStatement' },
);

export const PatchSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    connection_id: Uuid,
    title: Type.String(),
    sql: Type.String(),
    allow_full_table: Type.Boolean(),
    status: StringEnum(PATCH_STATUSES),
    statements: Type.Array(PatchStatementSchema),
    executed_at: Nullable(Timestamp),
    execute_run_id: Nullable(
      Type.String({
        format: 'uuid',
        description: 'The run that executed the patch: its result lists the backups',
      }),
    ),
    // Set by the backup_retention job (BACKUP_RETENTION_DAYS after the execution): no rollback after it.
    backups_dropped_at: Nullable(Timestamp),
    allowed_actions: Type.Array(StringEnum(PATCH_ACTIONS), {
      description:
        "What the server would accept from this caller now, by the patch's state, the caller's role and key " +
        "scope, and the patch's run in flight: `execute` and `rollback` wait for it to end (409 naming it); " +
        "`edit` and `delete` while it awaits approval void that approval. A viewer's list is empty. A patch " +
        'whose execute failed changed nothing and may be executed again.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Patch' },
);

export function toPatchResponse(patch: PatchView) {
  return {
    id: patch.id,
    project_id: patch.project_id,
    connection_id: patch.connection_id,
    title: patch.title,
    sql: patch.sql,
    allow_full_table: patch.allow_full_table,
    status: patch.status,
    statements: patch.statements.map(({ index, kind, table, reversible, irreversible_reason, sql }) => ({
      index,
      kind,
      table,
      reversible,
      irreversible_reason: irreversible_reason ?? null,
      sql,
    })),
    executed_at: toTimestamp(patch.executed_at),
    execute_run_id: patch.execute_run_id,
    backups_dropped_at: toTimestamp(patch.backups_dropped_at),
    allowed_actions: patch.allowed_actions,
    created_at: toTimestamp(patch.created_at),
    updated_at: toTimestamp(patch.updated_at),
  };
}

const SampleRows = Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 20 });

export const DryRunSchema = Type.Object(
  {
    statements: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        affected_rows: Type.Integer({ minimum: 0 }),
        sample_before: SampleRows,
        sample_after: SampleRows,
      }),
    ),
    total_affected_rows: Type.Integer({ minimum: 0 }),
    notes: Type.Array(
      Type.Object(
        {
          statement_index: Type.Integer({
            minimum: 0,
            description: 'The statement the note is about, from 0',
          }),
          text: Type.String(),
        },
        { title: 'PatchDryRunNote' },
      ),
      {
        description:
          'What a dry-run cannot compute by reads and shows as null or unchanged: values only a write would produce (sequence, identity and AUTO_INCREMENT numbers, ON UPDATE columns), what triggers and cascading foreign keys would change',
      },
    ),
  },
  { title: 'PatchDryRun' },
);
