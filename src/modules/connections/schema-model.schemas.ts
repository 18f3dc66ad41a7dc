// The schema model (src/engine/schema/model.ts) as a TypeBox schema: the answer of GET
// /connections/{id}/schema and the `schema_json` of snapshots, documented field by field in the
// OpenAPI description. The compiler checks below fail when the model and this schema part ways, so
// a field added to the model cannot be silently dropped from answers.
import { type Static, Type } from 'typebox';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { Nullable, StringEnum } from '../../http/schemas.ts';

const Names = Type.Array(Type.String());
const Deferral = {
  deferrable: Type.Boolean(),
  initially_deferred: Type.Boolean(),
};

const ColumnRefSchema = Type.Object({
  schema: Nullable(Type.String()),
  table: Type.String(),
  column: Type.String(),
});

const FOREIGN_KEY_ACTIONS = ['no action', 'restrict', 'cascade', 'set null', 'set default'] as const;

const ColumnSchema = Type.Object({
  name: Type.String(),
  ordinal_position: Type.Integer({ description: 'Recorded, not compared' }),
  type: Type.String({
    description: 'Canonical type: PostgreSQL format_type(); MySQL COLUMN_TYPE without display widths',
  }),
  nullable: Type.Boolean(),
  default: Nullable(Type.String({ description: 'As the catalog returns it (recorded, not compared)' })),
  default_normalized: Nullable(Type.String({ description: 'After normalisation (compared)' })),
  identity: Nullable(StringEnum(['always', 'by_default'] as const)),
  auto_increment: Type.Boolean(),
  generated: Nullable(
    Type.Object({
      expression: Type.String(),
      stored: Type.Boolean({ description: 'STORED (true) or VIRTUAL (false)' }),
    }),
  ),
  on_update: Nullable(Type.String({ description: 'MySQL ON UPDATE expression' })),
  collation: Nullable(Type.String()),
  comment: Nullable(Type.String()),
});

const TableSchema = Type.Object({
  schema: Nullable(Type.String({ description: 'PostgreSQL schema; null on MySQL' })),
  name: Type.String(),
  comment: Nullable(Type.String()),
  columns: Type.Array(ColumnSchema),
  primary_key: Nullable(Type.Object({ name: Type.String(), columns: Names, ...Deferral })),
  unique_constraints: Type.Array(Type.Object({ name: Type.String(), columns: Names, ...Deferral })),
  check_constraints: Type.Array(Type.Object({ name: Type.String(), expression: Type.String() })),
  exclusion_constraints: Type.Array(
    Type.Object({ name: Type.String(), definition: Type.String(), ...Deferral }),
  ),
  foreign_keys: Type.Array(
    Type.Object({
      name: Type.String(),
      columns: Names,
      referenced_schema: Nullable(Type.String()),
      referenced_table: Type.String(),
      referenced_columns: Names,
      on_update: StringEnum(FOREIGN_KEY_ACTIONS),
      on_delete: StringEnum(FOREIGN_KEY_ACTIONS),
      ...Deferral,
    }),
  ),
  indexes: Type.Array(
    Type.Object({
      name: Type.String(),
      columns: Type.Array(Type.String(), { description: 'Column names or expressions, in key order' }),
      include: Names,
      unique: Type.Boolean(),
      method: Type.String(),
      predicate: Nullable(Type.String({ description: 'WHERE clause of a partial index' })),
    }),
    { description: 'Indexes that do not back a primary key, unique or exclusion constraint' },
  ),
});

const UNMANAGED_KINDS = [
  'view',
  'materialized_view',
  'foreign_table',
  'function',
  'procedure',
  'aggregate',
  'trigger',
  'rule',
  'policy',
  'event',
  'extension',
  'domain',
  'type',
  'enum',
  'sequence',
] as const;

export const SchemaModelSchema = Type.Object(
  {
    dialect: StringEnum(['postgresql', 'mysql'] as const),
    flavor: StringEnum(['postgresql', 'mysql', 'mariadb'] as const),
    server_version: Type.String({ description: 'Recorded, not compared' }),
    tables: Type.Array(TableSchema, { description: 'Sorted by schema, then name' }),
    enums: Type.Array(
      Type.Object({
        schema: Type.String(),
        name: Type.String(),
        values: Names,
        used_by: Type.Array(ColumnRefSchema),
      }),
      { description: 'PostgreSQL enum types used by at least one column' },
    ),
    sequences: Type.Array(
      Type.Object({
        schema: Type.String(),
        name: Type.String(),
        data_type: Type.String(),
        start: Type.String(),
        increment: Type.String(),
        min_value: Type.String(),
        max_value: Type.String(),
        cache: Type.String(),
        cycle: Type.Boolean(),
        owned_by: Nullable(ColumnRefSchema),
        used_by: Type.Array(ColumnRefSchema),
      }),
      { description: 'PostgreSQL sequences owned by or used in the default of a column' },
    ),
    unmanaged: Type.Array(
      Type.Object({
        kind: StringEnum(UNMANAGED_KINDS),
        schema: Nullable(Type.String()),
        name: Type.String(),
        table: Nullable(Type.String()),
      }),
      { description: 'Views, functions, triggers, policies…: listed, never altered or dropped' },
    ),
  },
  {
    title: 'SchemaModel',
    description:
      'The neutral schema model of a PostgreSQL or MySQL/MariaDB database: tables, columns, keys, ' +
      'constraints, indexes, and the enums and sequences columns use; other objects are listed as unmanaged.',
  },
);

// Both directions: the schema accepts every model, and every value of the schema is a model.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const modelMatchesSchema: Same<Static<typeof SchemaModelSchema>, SchemaModel> = true;
void modelMatchesSchema;
