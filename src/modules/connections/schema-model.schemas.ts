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

const RefSchema = Type.Object(
  { schema: Nullable(Type.String()), name: Type.String() },
  { title: 'SchemaTableRef' },
);

const SequenceOptionsSchema = Type.Object(
  {
    data_type: Type.String(),
    start: Type.String(),
    increment: Type.String(),
    min_value: Type.String(),
    max_value: Type.String(),
    cache: Type.String(),
    cycle: Type.Boolean(),
  },
  {
    title: 'SchemaSequenceOptions',
    description: 'Numbers as decimal strings (bigint does not fit a JSON number)',
  },
);

/** COMMENT ON a constraint, index, enum or sequence (PostgreSQL); absent when none. */
const ObjectComment = { comment: Type.Optional(Nullable(Type.String())) };
/** PostgreSQL storage parameters of an index (`fillfactor=70`) and NULLS NOT DISTINCT; MySQL visibility. */
const IndexOptions = {
  nulls_not_distinct: Type.Optional(Type.Boolean({ description: 'PostgreSQL NULLS NOT DISTINCT (15+)' })),
  options: Type.Optional(Type.Array(Type.String(), { description: 'Storage parameters (PostgreSQL)' })),
  ignored: Type.Optional(
    Type.Boolean({
      description:
        'MariaDB IGNORED / MySQL INVISIBLE: maintained, not used by the optimizer; absent when used',
    }),
  ),
};

const IndexSchema = Type.Object(
  {
    name: Type.String(),
    columns: Type.Array(Type.String(), { description: 'Column names or expressions, in key order' }),
    include: Names,
    unique: Type.Boolean(),
    method: Type.String(),
    predicate: Nullable(Type.String({ description: 'WHERE clause of a partial index' })),
    ...IndexOptions,
    ...ObjectComment,
  },
  { title: 'SchemaIndex' },
);

const PartitioningSchema = Type.Object(
  {
    key: Nullable(
      Type.String({
        description:
          'PostgreSQL: pg_get_partkeydef (null for a partition that is not partitioned); MySQL: the whole clause with its partitions',
      }),
    ),
    parent: Nullable(RefSchema),
    bound: Nullable(Type.String({ description: 'The bound of a partition: `FOR VALUES …`, `DEFAULT`' })),
  },
  { title: 'SchemaPartitioning' },
);

const TableOptionsSchema = Type.Object(
  {
    engine: Type.String(),
    collation: Type.String(),
    row_format: Nullable(Type.String({ description: 'An explicit ROW_FORMAT, upper case' })),
  },
  {
    title: 'SchemaTableOptions',
    description: "MySQL/MariaDB options that differ from the database's defaults",
  },
);

const PolicySchema = Type.Object(
  {
    name: Type.String(),
    command: Type.String({ description: 'ALL, SELECT, INSERT, UPDATE or DELETE' }),
    permissive: Type.Boolean(),
    roles: Type.Array(Type.String(), { description: 'Role names, `public` for every role; sorted' }),
    using: Nullable(Type.String()),
    check: Nullable(Type.String()),
  },
  { title: 'SchemaPolicy' },
);

const DependencySchema = Type.Object(
  {
    kind: StringEnum(['table', 'view', 'materialized_view', 'routine', 'type'] as const),
    schema: Nullable(Type.String()),
    name: Type.String(),
    column: Nullable(Type.String()),
  },
  { title: 'SchemaDependency', description: 'What an object reads (recorded, not compared)' },
);

const NamespaceSchema = Type.Object(
  { name: Type.String(), comment: Nullable(Type.String()) },
  { title: 'SchemaNamespace', description: 'A PostgreSQL schema' },
);

const ViewSchema = Type.Object(
  {
    schema: Nullable(Type.String({ description: 'PostgreSQL schema; null on MySQL' })),
    name: Type.String(),
    materialized: Type.Boolean(),
    definition: Type.String({ description: 'The SELECT as the server prints it' }),
    columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    options: Names,
    indexes: Type.Array(IndexSchema, { description: 'Indexes of a materialized view' }),
    comment: Nullable(Type.String()),
    depends_on: Type.Array(DependencySchema),
  },
  { title: 'SchemaView' },
);

const RoutineSchema = Type.Object(
  {
    schema: Nullable(Type.String()),
    name: Type.String({ description: '`name(identity argument types)` on PostgreSQL; the name on MySQL' }),
    kind: StringEnum(['function', 'procedure'] as const),
    arguments: Type.String(),
    result: Nullable(Type.String({ description: 'Null for procedures' })),
    definition: Type.String({ description: 'The complete CREATE statement as the server prints it' }),
    comment: Nullable(Type.String()),
    depends_on: Type.Array(DependencySchema),
  },
  { title: 'SchemaRoutine' },
);

const TriggerSchema = Type.Object(
  {
    schema: Nullable(Type.String()),
    table: Type.String(),
    name: Type.String(),
    definition: Type.String({ description: 'CREATE TRIGGER as the server prints it' }),
    state: StringEnum(['O', 'D', 'R', 'A'] as const, {
      description: 'O fires (origin), D disabled, R replica only, A always',
    }),
    comment: Nullable(Type.String()),
    depends_on: Type.Array(DependencySchema),
  },
  { title: 'SchemaTrigger' },
);

const ExtensionSchema = Type.Object(
  { name: Type.String(), schema: Type.String(), version: Type.String() },
  { title: 'SchemaExtension' },
);

const UserTypeSchema = Type.Object(
  {
    schema: Type.String(),
    name: Type.String(),
    kind: StringEnum(['domain', 'composite'] as const),
    base: Nullable(Type.String()),
    default: Nullable(Type.String()),
    collation: Nullable(Type.String()),
    not_null: Type.Boolean(),
    checks: Type.Array(Type.Object({ name: Type.String(), definition: Type.String() })),
    attributes: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    comment: Nullable(Type.String()),
  },
  { title: 'SchemaUserType', description: 'A PostgreSQL domain or composite type' },
);

const CollationSchema = Type.Object(
  {
    schema: Type.String(),
    name: Type.String(),
    provider: Type.String({ description: '`libc` or `icu`' }),
    locale: Nullable(Type.String()),
    lc_collate: Nullable(Type.String()),
    lc_ctype: Nullable(Type.String()),
    deterministic: Type.Boolean(),
  },
  { title: 'SchemaCollation', description: 'A collation created in a user schema (PostgreSQL)' },
);

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
  identity_options: Type.Optional(Nullable(SequenceOptionsSchema)),
  inherited: Type.Optional(
    Type.Boolean({ description: 'Inherited from a parent and not declared locally (PostgreSQL)' }),
  ),
  invisible: Type.Optional(Type.Boolean({ description: 'MySQL/MariaDB INVISIBLE' })),
  check: Type.Optional(Type.String({ description: 'MariaDB: the CHECK declared with the column' })),
  storage: Type.Optional(
    Type.String({
      description: "PostgreSQL storage where it is not the type's own (plain, external, main, …)",
    }),
  ),
  compression: Type.Optional(Type.String({ description: 'PostgreSQL compression method (pglz, lz4)' })),
});

const TableStorageSchema = Type.Object(
  {
    parameters: Names,
    unlogged: Type.Boolean(),
    replica_identity: Type.String({ description: 'default, full, nothing, or index <name>' }),
  },
  {
    title: 'SchemaTableStorage',
    description: 'PostgreSQL storage, set only when one differs from the default',
  },
);

const TableSchema = Type.Object({
  schema: Nullable(Type.String({ description: 'PostgreSQL schema; null on MySQL' })),
  name: Type.String(),
  comment: Nullable(Type.String()),
  columns: Type.Array(ColumnSchema),
  primary_key: Nullable(Type.Object({ name: Type.String(), columns: Names, ...Deferral, ...ObjectComment })),
  unique_constraints: Type.Array(
    Type.Object({ name: Type.String(), columns: Names, ...Deferral, ...IndexOptions, ...ObjectComment }),
  ),
  check_constraints: Type.Array(
    Type.Object({
      name: Type.String(),
      expression: Type.String(),
      not_valid: Type.Optional(Type.Boolean({ description: 'Added NOT VALID and not validated since' })),
      no_inherit: Type.Optional(Type.Boolean({ description: 'NO INHERIT (PostgreSQL)' })),
      ...ObjectComment,
    }),
  ),
  exclusion_constraints: Type.Array(
    Type.Object({ name: Type.String(), definition: Type.String(), ...Deferral, ...ObjectComment }),
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
      not_valid: Type.Optional(Type.Boolean({ description: 'Added NOT VALID and not validated since' })),
      match_full: Type.Optional(Type.Boolean({ description: 'MATCH FULL (PostgreSQL)' })),
      ...ObjectComment,
    }),
  ),
  indexes: Type.Array(IndexSchema, {
    description: 'Indexes that do not back a primary key, unique or exclusion constraint',
  }),
  partitioning: Type.Optional(Nullable(PartitioningSchema)),
  inherits: Type.Optional(Type.Array(RefSchema, { description: 'PostgreSQL inheritance parents, in order' })),
  table_options: Type.Optional(Nullable(TableOptionsSchema)),
  table_storage: Type.Optional(Nullable(TableStorageSchema)),
  row_security: Type.Optional(
    Nullable(
      Type.Object(
        { enabled: Type.Boolean(), forced: Type.Boolean() },
        { title: 'SchemaRowSecurity', description: 'PostgreSQL row-level security' },
      ),
    ),
  ),
  policies: Type.Optional(Type.Array(PolicySchema)),
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
  'statistics',
] as const;

export const SchemaModelSchema = Type.Object(
  {
    model_version: Type.Optional(
      Type.Integer({ description: 'The version of the model that took it; absent before version 2' }),
    ),
    default_collation: Type.Optional(
      Type.String({
        description: "MySQL/MariaDB: the database's default collation (recorded, not compared)",
      }),
    ),
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
        ...ObjectComment,
      }),
      { description: 'PostgreSQL enum types' },
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
        ...ObjectComment,
      }),
      { description: 'PostgreSQL sequences' },
    ),
    unmanaged: Type.Array(
      Type.Object({
        kind: StringEnum(UNMANAGED_KINDS),
        schema: Nullable(Type.String()),
        name: Type.String(),
        table: Nullable(Type.String()),
      }),
      {
        description: 'Every object that is not a table, by name (the kinds not managed are only listed here)',
      },
    ),
    schemas: Type.Optional(Type.Array(NamespaceSchema)),
    views: Type.Optional(Type.Array(ViewSchema, { description: 'Views and materialized views' })),
    routines: Type.Optional(Type.Array(RoutineSchema, { description: 'Functions and procedures' })),
    triggers: Type.Optional(Type.Array(TriggerSchema)),
    extensions: Type.Optional(Type.Array(ExtensionSchema)),
    types: Type.Optional(Type.Array(UserTypeSchema, { description: 'Domains and composite types' })),
    collations: Type.Optional(Type.Array(CollationSchema)),
  },
  {
    title: 'SchemaModel',
    description:
      'The neutral schema model of a PostgreSQL or MySQL/MariaDB database: tables, columns, keys, ' +
      'constraints, indexes, partitioning, inheritance, row-level security, the enums and sequences columns use, ' +
      'schemas, views, routines, triggers, extensions, types and collations. Fields added after version 1 are ' +
      'optional: a snapshot taken by an older version lacks them.',
  },
);

// Both directions: the schema accepts every model, and every value of the schema is a model.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const modelMatchesSchema: Same<Static<typeof SchemaModelSchema>, SchemaModel> = true;
void modelMatchesSchema;
