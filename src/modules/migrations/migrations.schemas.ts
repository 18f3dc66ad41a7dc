// Migrations (API §8): request bodies and the Migration resource.
import { type Static, Type } from 'typebox';
import { MIGRATION_STATUSES } from '../../core/vocabulary.ts';
import { Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { SchemaMigration } from '../../store/tables.ts';

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

export const ApplyBody = Type.Object(
  {
    confirm_irreversible: Type.Optional(Type.Boolean()),
    confirmation: Type.Optional(Type.String({ maxLength: 200, description: "The target connection's name" })),
  },
  { title: 'ApplyMigrationRequest', additionalProperties: false },
);
export type ApplyBody = Static<typeof ApplyBody>;

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

export const MigrationSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    source_connection_id: Uuid,
    target_connection_id: Uuid,
    status: StringEnum(MIGRATION_STATUSES),
    generated_sql: Type.String(),
    statements: Type.Array(StatementSchema),
    lint_warnings: Type.Array(LintWarningSchema),
    rollback_sql: Nullable(Type.String({ description: 'Null when no rollback can be generated' })),
    source_schema_hash: Type.String(),
    target_schema_hash: Type.String(),
    applied_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Migration' },
);

export function toMigrationResponse(migration: SchemaMigration) {
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
    source_schema_hash: migration.source_schema_hash,
    target_schema_hash: migration.target_schema_hash,
    applied_at: toTimestamp(migration.applied_at),
    created_at: toTimestamp(migration.created_at),
    updated_at: toTimestamp(migration.updated_at),
  };
}
