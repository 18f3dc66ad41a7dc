// What a statement does, in neutral terms: the facts lint rules look at and from which the rollback
// of edited SQL is derived. A planned statement gets them from its operations (exact: the planner
// knows the column's former type); an edited one from the dialect's SQL parser (libpg-query,
// node-sql-parser), where what the parser cannot tell (the former type) is looked up in the target.

import { traitsOf } from '../schema/engine-traits.ts';
import type { ColumnModel, DialectName } from '../schema/model.ts';
import { objectFacts } from './facts-objects.ts';
import type { MigrationOperation, TableRef } from './operations.ts';
import type { ConstraintKind, ObjectChangeKind, StatementFact } from './statement-fact.ts';

export type { ConstraintKind, ObjectChangeKind, StatementFact };

// Functions whose value differs per row: a default calling one is evaluated for every existing row
// when the column is added (PostgreSQL 11+ adds a constant or stable default without a rewrite).
const VOLATILE_CALL =
  /\b(nextval|random|gen_random_uuid|uuid_generate_v[14]|clock_timestamp|timeofday|txid_current)\s*\(/i;

export function isVolatileDefault(expression: string | null, dialect: DialectName): boolean {
  return traitsOf(dialect).volatileDefaultsRewrite && expression !== null && VOLATILE_CALL.test(expression);
}

/** The facts of one planned operation. */
export function operationFacts(op: MigrationOperation, dialect: DialectName): StatementFact[] {
  switch (op.kind) {
    case 'create_extension':
    case 'drop_extension':
      return [{ action: 'schema_object', object: `extension ${op.name}` }];
    case 'create_enum':
    case 'drop_enum':
    case 'add_enum_value':
      return [{ action: 'schema_object', object: `enum ${op.enum.schema}.${op.enum.name}` }];
    case 'recreate_enum':
      // Every column of the type is rewritten to the new type.
      return op.uses.map((use) => ({
        action: 'alter_column_type',
        table: use.table,
        column: use.column.name,
        from: use.column.type,
        to: use.column.type,
      }));
    case 'create_sequence':
    case 'drop_sequence':
    case 'set_sequence_owner':
      return [{ action: 'schema_object', object: `sequence ${op.sequence.schema}.${op.sequence.name}` }];
    case 'alter_sequence':
      return [{ action: 'schema_object', object: `sequence ${op.after.schema}.${op.after.name}` }];
    case 'ensure_backup_schema':
      return [{ action: 'schema_object', object: 'schema dbops_backup' }];
    case 'drop_backup':
      // This service's own table, whose rows are back where they came from: no data of the user's.
      return [{ action: 'schema_object', object: `backup ${op.backup}` }];
    case 'backup_column':
    case 'restore_column':
    case 'backup_table':
    case 'restore_table':
      return [{ action: 'data_change', table: { schema: op.table.schema, name: op.table.name } }];
    case 'create_table': {
      const parent = op.table.partitioning?.parent;
      const bounded = parent && op.table.partitioning?.bound?.toUpperCase() !== 'DEFAULT';
      return [
        {
          action: 'create_table',
          table: { schema: op.table.schema, name: op.table.name },
          ...(bounded ? { partition_of: { schema: parent.schema, name: parent.name } } : {}),
        },
      ];
    }
    case 'drop_table':
      return [
        {
          action: 'drop_table',
          table: { schema: op.table.schema, name: op.table.name },
          backed_up: op.backup !== null,
        },
      ];
    case 'add_column':
      return [addColumnFact(op.table, op.column, dialect)];
    case 'drop_column':
      return [
        {
          action: 'drop_column',
          table: op.table,
          column: op.column.name,
          backed_up: op.backup !== null || op.column.generated !== null,
        },
      ];
    case 'alter_column':
      return alterFacts(op, dialect);
    case 'add_primary_key':
      return [addConstraint(op.table, 'primary_key', op.key.name, op.key.columns)];
    case 'drop_primary_key':
      return [{ action: 'drop_constraint', table: op.table, constraint: 'primary_key', name: op.key.name }];
    case 'add_unique':
      return [addConstraint(op.table, 'unique', op.constraint.name, op.constraint.columns)];
    case 'drop_unique':
      return [{ action: 'drop_constraint', table: op.table, constraint: 'unique', name: op.constraint.name }];
    case 'add_check':
      return [addConstraint(op.table, 'check', op.constraint.name, [])];
    case 'drop_check':
      return [{ action: 'drop_constraint', table: op.table, constraint: 'check', name: op.constraint.name }];
    case 'add_exclusion':
      return [addConstraint(op.table, 'exclusion', op.constraint.name, [])];
    case 'drop_exclusion':
      return [
        { action: 'drop_constraint', table: op.table, constraint: 'exclusion', name: op.constraint.name },
      ];
    case 'add_foreign_key':
      return [addConstraint(op.table, 'foreign_key', op.key.name, op.key.columns)];
    case 'drop_foreign_key':
      return [{ action: 'drop_constraint', table: op.table, constraint: 'foreign_key', name: op.key.name }];
    case 'create_index':
      return [
        {
          action: 'create_index',
          table: op.table,
          name: op.index.name,
          unique: op.index.unique,
          concurrently: op.concurrently,
        },
      ];
    case 'drop_index':
      return [{ action: 'drop_index', table: op.table, name: op.index.name, concurrently: op.concurrently }];
    case 'rename_index':
      return [{ action: 'rename_index', table: op.table, name: op.from, to: op.to }];
    case 'rename_constraint':
      return [{ action: 'rename_constraint', table: op.table, name: op.from, to: op.to }];
    case 'rename_table':
      return [{ action: 'rename_table', table: op.table, to: op.to }];
    case 'rename_column':
      return [{ action: 'rename_column', table: op.table, column: op.from, to: op.to }];
    case 'set_table_comment':
      return [{ action: 'schema_object', object: 'comment' }];
    case 'outside_transaction':
      return operationFacts(op.op, dialect);
    case 'validate_constraint':
      return [
        {
          action: 'validate_constraint',
          table: op.table,
          name: op.constraint.kind === 'check' ? op.constraint.check.name : op.constraint.key.name,
        },
      ];
    case 'alter_identity':
      return [{ action: 'alter_column_other', table: op.table, column: op.column, what: 'identity options' }];
    default:
      return objectFacts(op);
  }
}

function addConstraint(
  table: TableRef,
  constraint: ConstraintKind,
  name: string,
  columns: string[],
): StatementFact {
  return { action: 'add_constraint', table, constraint, name, columns, not_valid: false };
}

function addColumnFact(table: TableRef, column: ColumnModel, dialect: DialectName): StatementFact {
  return {
    action: 'add_column',
    table,
    column: column.name,
    not_null: !column.nullable,
    has_default: column.default !== null,
    volatile_default: isVolatileDefault(column.default, dialect),
    computed: column.identity !== null || column.auto_increment || column.generated?.stored === true,
  };
}

function alterFacts(
  op: Extract<MigrationOperation, { kind: 'alter_column' }>,
  dialect: DialectName,
): StatementFact[] {
  const { table } = op;
  const column = op.after.name;
  switch (op.change) {
    case 'type':
      if (op.before.type === op.after.type)
        return [{ action: 'alter_column_other', table, column, what: 'collation' }];
      return [{ action: 'alter_column_type', table, column, from: op.before.type, to: op.after.type }];
    case 'set_not_null':
      return [{ action: 'set_not_null', table, column }];
    case 'drop_not_null':
      return [{ action: 'drop_not_null', table, column }];
    case 'set_default':
      return [
        { action: 'set_default', table, column, volatile: isVolatileDefault(op.after.default, dialect) },
      ];
    case 'drop_default':
      return [{ action: 'drop_default', table, column }];
    case 'replace_generated': {
      const facts: StatementFact[] = [];
      if (op.before.generated === null)
        facts.push({ action: 'drop_column', table, column, backed_up: false });
      facts.push(addColumnFact(table, op.after, dialect));
      return facts;
    }
    default:
      return [{ action: 'alter_column_other', table, column, what: op.change.replace(/_/g, ' ') }];
  }
}
