// What a run's `result` holds, per kind, for the OpenAPI document. The handlers write these shapes
// (patch-execute.ts, patch-rollback.ts, migration-runs.ts, drift-check.ts); the result of a failed
// run holds what is known at the failure, so fields a failure may lack are optional. Kinds whose
// module does not exist yet (seeds, anonymization, bridge) share the rows report of docs/contract.md §9.
import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

const Count = Type.Integer({ minimum: 0 });

export const PatchExecuteResult = Type.Object(
  {
    affected_rows: Type.Optional(Type.Array(Count, { description: 'Rows each statement changed, by index' })),
    total_affected_rows: Type.Optional(Count),
    expected_rows: Type.Optional(Count),
    changed: Type.Optional(
      Type.Boolean({ description: 'false on failure: the transaction was rolled back' }),
    ),
    backups: Type.Optional(
      Type.Array(
        Type.Object({
          index: Count,
          tables: Type.Array(Type.String(), { description: 'Backup tables holding the before-images' }),
          rows: Count,
          reversible: Type.Boolean(),
        }),
      ),
    ),
    snapshot_id: Type.Optional(Nullable(Uuid)),
  },
  { title: 'PatchExecuteResult', description: 'The result of a patch_execute run' },
);

export const PatchRollbackResult = Type.Object(
  {
    restored: Type.Union(
      [
        Type.Array(
          Type.Object({
            index: Count,
            rows: Count,
            unequal_rows: Type.Integer({
              minimum: 0,
              description: 'Rows still not as before the patch (0 unless a trigger changed them)',
            }),
          }),
        ),
        Type.Literal(false),
      ],
      { description: 'The statements restored, or false when nothing was' },
    ),
    conflicts: Type.Optional(
      Type.Array(
        Type.Object({
          index: Count,
          table: Type.String(),
          keys: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
            description: 'Keys of rows changed since the patch (at most 100)',
          }),
        }),
      ),
    ),
    forced: Type.Optional(Type.Boolean()),
    exact: Type.Optional(Type.Boolean()),
    warnings: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'PatchRollbackResult', description: 'The result of a patch_rollback run' },
);

export const MigrationRunResult = Type.Object(
  {
    applied: Type.Array(Count, { description: 'Statements that took effect, in the order they ran' }),
    not_applied: Type.Array(Count),
    failed: Nullable(
      Type.Object({
        index: Count,
        sql: Nullable(Type.String()),
        error: Type.Object({
          cause: Type.String(),
          kind: Type.String(),
          code: Nullable(Type.String({ description: 'SQLSTATE (PostgreSQL) or the MySQL error symbol' })),
          message: Type.String(),
        }),
      }),
    ),
    rolled_back: Type.Boolean({
      description: 'PostgreSQL rolls a failed transaction back; MySQL keeps what ran',
    }),
    in_flight: Type.Optional(
      Nullable(
        Type.Object(
          {
            index: Count,
            sql: Type.String(),
            started_at: Timestamp,
            session: Type.String({ description: "The target's server session that ran it" }),
            applied: Type.Optional(
              Nullable(
                Type.Boolean({
                  description:
                    'Set when the run was interrupted: whether the target shows its effect (null: it cannot tell); ' +
                    'the statement is then listed in `applied` or `not_applied`, or in neither when null',
                }),
              ),
            ),
            evidence: Type.Optional(Type.String({ description: 'What the classification rests on' })),
          },
          {
            description:
              'MySQL: the statement running. While the run runs, `applied` lists the statements that ended and ' +
              '`not_applied` those not started; after a kill of the process, the in-flight statement is classified ' +
              'by introspecting the target',
          },
        ),
      ),
    ),
    schema_hash: Type.Optional(Type.String()),
    residual_diff: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'apply: what still differs from the source',
      }),
    ),
    residual_empty: Type.Optional(Type.Boolean()),
    restored: Type.Optional(
      Type.Boolean({ description: "rollback: the target's schema hash is the one before the migration" }),
    ),
  },
  { title: 'MigrationRunResult', description: 'The result of a migration_apply or migration_rollback run' },
);

export const DriftCheckResult = Type.Object(
  {
    drift: Type.Boolean(),
    report_id: Nullable(Uuid),
    new_report: Type.Boolean(),
    snapshot_id: Uuid,
    baseline_created: Type.Boolean(),
  },
  { title: 'DriftCheckResult', description: 'The result of a drift_check run' },
);

export const RowsRunResult = Type.Object(
  {
    tables: Type.Array(Type.Object({ table: Type.String(), rows: Count })),
    rows_total: Count,
    tables_done: Type.Optional(Type.Array(Type.String(), { description: 'anonymize_run, bridge_run' })),
    tables_not_done: Type.Optional(
      Type.Array(Type.String(), { description: 'anonymize_run, bridge_run: tables left as they were' }),
    ),
    tables_not_known: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'anonymize_run interrupted on MySQL during a commit: tables that may or may not be anonymised',
      }),
    ),
    committing: Type.Optional(
      Type.Object(
        {
          tables: Type.Optional(Type.Array(Type.Object({ table: Type.String(), rows: Count }))),
          transaction: Nullable(Type.String()),
        },
        {
          description:
            'anonymize_run and seed_run while running: the target transaction (id) being committed and, ' +
            'for anonymize_run, its tables; asked about when the run is interrupted',
        },
      ),
    ),
  },
  { title: 'RowsRunResult', description: 'The result of a seed_run, anonymize_run or bridge_run' },
);

/** Every kind's result, or null while the run has none. */
export const RunResult = Type.Union(
  [PatchExecuteResult, PatchRollbackResult, MigrationRunResult, DriftCheckResult, RowsRunResult, Type.Null()],
  {
    description:
      "The operation's own results, by kind: patch_execute → PatchExecuteResult, patch_rollback → " +
      'PatchRollbackResult, migration_apply and migration_rollback → MigrationRunResult, drift_check → ' +
      'DriftCheckResult, seed_run, anonymize_run and bridge_run → RowsRunResult; null until there is one',
  },
);
