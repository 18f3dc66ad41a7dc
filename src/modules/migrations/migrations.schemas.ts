// Migrations (docs/contract.md §8): request bodies and the Migration resource.
import { type Static, Type } from 'typebox';
import { MIGRATION_STATUSES } from '../../core/vocabulary.ts';
import { Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { StoredRollbackStatement } from '../../store/tables.ts';
import { backupTablesOf } from './migration-backups.ts';
import { MIGRATION_ACTIONS } from './migration-states.ts';
import type { MigrationView } from './migration-views.ts';

export { MIGRATION_STATUSES };

const TablePatterns = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 1000,
  description: '`table` or `schema.table`; `*` matches any run of characters',
});

export const CompareBody = Type.Object(
  {
    source_connection_id: Uuid,
    target_connection_id: Uuid,
    include_tables: Type.Optional(TablePatterns),
    exclude_tables: Type.Optional(TablePatterns),
    backup_drops: Type.Optional(
      Type.Boolean({ description: 'Copy dropped tables and columns first, so the rollback restores data' }),
    ),
    online: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'PostgreSQL: statements that must not hold long locks (CREATE INDEX CONCURRENTLY, VALIDATE CONSTRAINT) ' +
          'are planned after the transaction and marked `transactional: false`; ignored on MySQL',
      }),
    ),
  },
  { title: 'CompareMigrationRequest', additionalProperties: false },
);
export type CompareBody = Static<typeof CompareBody>;

export const EditBody = Type.Object(
  { generated_sql: Type.String({ minLength: 1, maxLength: 1_000_000 }) },
  { title: 'EditMigrationRequest', additionalProperties: false },
);

const confirmationFields = {
  confirm_irreversible: Type.Optional(
    Type.Boolean({ description: 'Must be true when the run drops a table or a column (or destroys data)' }),
  ),
  confirmation: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        "The target connection's name, required with confirm_irreversible when the run destroys data",
    }),
  ),
};

export const ApplyBody = Type.Object(confirmationFields, {
  title: 'ApplyMigrationRequest',
  additionalProperties: false,
});
export type ApplyBody = Static<typeof ApplyBody>;

export const RollbackBody = Type.Object(confirmationFields, {
  title: 'RollbackMigrationRequest',
  additionalProperties: false,
  description:
    'Optional (no body is `{}`; a JSON null is 422). A rollback that destroys data (drops a table or a ' +
    'column the apply created, or any statement marked destructive) needs both fields.',
});
export type RollbackBody = Static<typeof RollbackBody>;

const LintWarningSchema = Type.Object(
  {
    rule: Type.String(),
    severity: StringEnum(['error', 'warning', 'info'] as const),
    statement_index: Type.Integer({ minimum: 0 }),
    object: Type.String(),
    message: Type.String(),
  },
  { title: 'LintWarning' },
);

const StatementSchema = Type.Object(
  {
    sql: Type.String(),
    kind: Type.String(),
    destructive: Type.Boolean(),
    transactional: Type.Boolean(),
    reversible: Type.Boolean(),
  },
  { title: 'MigrationStatement' },
);

const RollbackStatementSchema = Type.Object(
  {
    sql: Type.String(),
    kind: Type.String({
      description:
        'The operation it carries out (`drop_column`, `restore_table`, `drop_backup`…); `unknown` for a ' +
        'rollback stored before its statements were annotated',
    }),
    destructive: Type.Boolean({
      description:
        'It drops a table or a column, or replaces stored values: the rollback then needs the double ' +
        'confirmation. True for every statement of a rollback stored before they were annotated',
    }),
    transactional: Type.Boolean({
      description: 'False for a statement that commits by itself (MySQL DDL) or runs outside the transaction',
    }),
  },
  { title: 'MigrationRollbackStatement' },
);

const BackupTableSchema = Type.Object(
  {
    name: Type.String({
      description:
        'The table in the target: `dbops_backup.<name>` (PostgreSQL) or `_dbops_bak_<name>` (MySQL)',
    }),
    kept_until: Nullable(
      Type.String({
        ...Timestamp,
        description:
          'When backup retention removes it (UTC, YYYY-MM-DDThh:mm:ssZ); null: it stays until a rollback ' +
          'restores from it and drops it, or an operator removes it',
      }),
    ),
  },
  { title: 'MigrationBackupTable' },
);

export const MigrationSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    source_connection_id: Uuid,
    target_connection_id: Uuid,
    status: StringEnum(MIGRATION_STATUSES, {
      description:
        'draft → applying → applied → rolling_back → rolled_back; a failed apply or rollback leaves `failed` ' +
        '(after a failed apply the SQL may be edited and applied again; after a failed rollback only ' +
        'rollback is allowed)',
    }),
    generated_sql: Type.String(),
    statements: Type.Array(StatementSchema),
    lint_warnings: Type.Array(LintWarningSchema),
    rollback_sql: Nullable(Type.String({ description: 'Null when no rollback can be generated' })),
    rollback_statements: Type.Array(RollbackStatementSchema, {
      description:
        'The statements of rollback_sql, annotated like `statements`; empty when there is no rollback',
    }),
    backup_tables: Type.Array(BackupTableSchema, {
      description:
        'The backup tables apply made (`backup_drops`) that are still in the target as this service ' +
        'left them; a successful rollback drops each one after restoring from it',
    }),
    allowed_actions: Type.Array(StringEnum(MIGRATION_ACTIONS), {
      description:
        'What the server would accept now from this caller: the state, the role and the API key scope ' +
        '(a viewer gets none), a lint error (no `apply`), a missing rollback (no `rollback`). The target ' +
        'is not introspected for it: `apply` may still answer 409 when the target changed',
    }),
    source_schema_hash: Type.String(),
    target_schema_hash: Type.String(),
    applied_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Migration' },
);

function rollbackStatementsOf(rollback: StoredRollbackStatement[] | null) {
  return (rollback ?? []).map((s) => ({
    sql: s.sql,
    kind: s.kind ?? 'unknown',
    destructive: s.destructive ?? true,
    transactional: s.transactional,
  }));
}

export function toMigrationResponse(migration: MigrationView) {
  return {
    id: migration.id,
    project_id: migration.project_id,
    source_connection_id: migration.source_connection_id,
    target_connection_id: migration.target_connection_id,
    status: migration.status,
    generated_sql: migration.generated_sql,
    statements: migration.statements.map((s) => ({
      sql: s.sql,
      kind: s.kind,
      destructive: s.destructive,
      transactional: s.transactional,
      reversible: s.reversible,
    })),
    lint_warnings: migration.lint_warnings as Static<typeof LintWarningSchema>[],
    rollback_sql: migration.rollback_sql,
    rollback_statements: rollbackStatementsOf(migration.rollback),
    backup_tables: backupTablesOf(migration.backup_tables).map((table) => ({
      name: table.name,
      kept_until: toTimestamp(table.kept_until),
    })),
    allowed_actions: migration.allowed_actions,
    source_schema_hash: migration.source_schema_hash,
    target_schema_hash: migration.target_schema_hash,
    applied_at: toTimestamp(migration.applied_at),
    created_at: toTimestamp(migration.created_at),
    updated_at: toTimestamp(migration.updated_at),
  };
}
