// The neutral operations of a migration plan: what must change in the target so that it matches the
// source, one schema change each, in the order they run. Every operation carries the whole state it
// changes from and to (not only the new value), because its rollback is computed from it
// (invert.ts) and the dialect renders both directions from the same data (DdlRenderer).
import type {
  CheckConstraintModel,
  ColumnModel,
  ColumnRef,
  EnumModel,
  ExclusionConstraintModel,
  ForeignKeyModel,
  IndexModel,
  PolicyModel,
  PrimaryKeyModel,
  SequenceModel,
  SequenceOptions,
  TableModel,
  TableOptions,
  TableStorage,
  UniqueConstraintModel,
} from '../schema/model.ts';
import type {
  CollationModel,
  NamespaceModel,
  RoutineModel,
  TriggerModel,
  TriggerState,
  UserTypeModel,
  ViewModel,
} from '../schema/objects.ts';

/** An object COMMENT ON can name, other than tables and columns. */
export interface CommentTarget {
  type:
    | 'schema'
    | 'view'
    | 'materialized_view'
    | 'function'
    | 'procedure'
    | 'trigger'
    | 'constraint'
    | 'index'
    | 'sequence'
    | 'type';
  schema: string | null;
  /** Routines: `name(argument types)`. */
  name: string;
  /** The table of a trigger or a constraint. */
  table: string | null;
}

export interface TableRef {
  schema: string | null;
  name: string;
}

/**
 * One step of a column change. PostgreSQL renders each step as its own statement, in the order the
 * planner emits them (a default must go before the type changes, NOT NULL before an identity is
 * added); MySQL folds all steps of a column into one MODIFY COLUMN with the final definition.
 */
export type ColumnChange =
  | 'drop_identity'
  | 'identity_kind'
  | 'drop_default'
  | 'type'
  | 'set_default'
  | 'set_not_null'
  | 'add_identity'
  | 'drop_not_null'
  | 'drop_expression'
  | 'replace_generated'
  | 'on_update'
  | 'auto_increment'
  | 'comment'
  /** PostgreSQL SET STORAGE / SET COMPRESSION. */
  | 'storage'
  | 'compression';

/** A column whose type is an enum being recreated, with what recreation must put back. */
export interface EnumUse {
  table: TableRef;
  column: ColumnModel;
  /**
   * The default the column takes once the type is swapped, when it stays a column of this type:
   * the source's (its old one may name a value that goes). Absent: the column's own, put back.
   */
  default_after?: string | null;
}

/** Where a dropped column's values are kept, and what restoring them must leave alone. */
export interface ColumnBackup {
  name: string;
  key: ColumnModel[];
  onUpdateColumns: string[];
  disableTriggers: boolean;
}

/** Objects that step aside around a change they block (plan-dependants.ts). */
export interface Dependants {
  /** Dependencies first: created in this order, dropped in the reverse one. */
  views: ViewModel[];
  routines: RoutineModel[];
  triggers: TriggerModel[];
  /** Row-level security policies of the tables whose columns are swapped (absent: none). */
  policies?: { table: TableRef; policy: PolicyModel }[];
}

export type MigrationOperation =
  | {
      kind: 'create_extension' | 'drop_extension';
      name: string;
      schema: string | null;
      /** Null: the server's default version (an extension a column type needs). */
      version?: string | null;
    }
  | { kind: 'alter_extension'; name: string; before: string; after: string }
  | { kind: 'create_schema' | 'drop_schema'; schema: NamespaceModel }
  /** Domains and composite types. */
  | { kind: 'create_type' | 'drop_type'; type: UserTypeModel }
  | { kind: 'create_collation' | 'drop_collation'; collation: CollationModel }
  /** Its default, NOT NULL, checks, attributes or comment: the dialect writes the steps between. */
  | { kind: 'alter_type'; before: UserTypeModel; after: UserTypeModel }
  | { kind: 'comment_object'; target: CommentTarget; before: string | null; after: string | null }
  /** Views and materialized views; a materialized view with its indexes. */
  | { kind: 'create_view' | 'drop_view'; view: ViewModel }
  /** CREATE OR REPLACE VIEW: the same columns, another query or options. */
  | { kind: 'replace_view'; before: ViewModel; after: ViewModel }
  | { kind: 'create_routine' | 'drop_routine'; routine: RoutineModel }
  /** CREATE OR REPLACE: the same arguments and result, another body or attributes. */
  | { kind: 'replace_routine'; before: RoutineModel; after: RoutineModel }
  | { kind: 'create_trigger' | 'drop_trigger'; trigger: TriggerModel }
  | { kind: 'set_trigger_state'; trigger: TriggerModel; before: TriggerState; after: TriggerState }
  /** A NOT VALID check or foreign key validated (its inverse drops and re-adds it NOT VALID). */
  | {
      kind: 'validate_constraint';
      table: TableRef;
      constraint:
        | { kind: 'check'; check: CheckConstraintModel }
        | { kind: 'foreign_key'; key: ForeignKeyModel };
    }
  /** The sequence options of an identity column (its type follows the column's). */
  | {
      kind: 'alter_identity';
      table: TableRef;
      column: string;
      before: SequenceOptions;
      after: SequenceOptions;
    }
  | { kind: 'create_enum'; enum: EnumModel }
  /**
   * `enum.values` are the values before this one is added; `uses` are the columns of the type, which
   * the rollback (a recreation without the value) must move.
   */
  | {
      kind: 'add_enum_value';
      enum: EnumModel;
      value: string;
      before: string | null;
      after: string | null;
      uses: EnumUse[];
      /**
       * What reads the type or its columns (views, routines, their triggers): the rollback's swap
       * of the type, which the server refuses under them, drops them before and creates them after.
       */
      dependants?: Dependants;
    }
  /** Values removed or reordered: rename the type away, create it anew, move the columns over. */
  | { kind: 'recreate_enum'; enum: EnumModel; values: string[]; uses: EnumUse[] }
  | { kind: 'drop_enum'; enum: EnumModel }
  | { kind: 'create_sequence'; sequence: SequenceModel }
  | { kind: 'alter_sequence'; before: SequenceModel; after: SequenceModel }
  | { kind: 'set_sequence_owner'; sequence: SequenceModel; before: ColumnRef | null; after: ColumnRef | null }
  | { kind: 'drop_sequence'; sequence: SequenceModel }
  /** PostgreSQL: `CREATE SCHEMA IF NOT EXISTS dbops_backup`; nothing on MySQL. */
  | { kind: 'ensure_backup_schema' }
  /** Copies the key and the column into the backup table `backup`, before the column is dropped. */
  | { kind: 'backup_column'; table: TableRef; column: ColumnModel; key: ColumnModel[]; backup: string }
  /**
   * Puts the column's values back from its backup (the column exists again, plain and nullable).
   * The UPDATE must not touch anything else: MySQL columns with ON UPDATE are set to themselves, and
   * PostgreSQL user triggers of the table (`disableTriggers`) are switched off around it.
   */
  | {
      kind: 'restore_column';
      table: TableRef;
      column: ColumnModel;
      key: ColumnModel[];
      backup: string;
      onUpdateColumns: string[];
      disableTriggers: boolean;
    }
  /** Copies every row of the table into the backup table `backup`, before the table is dropped. */
  | { kind: 'backup_table'; table: TableModel; backup: string }
  /** Puts the rows back into the recreated table and moves its sequences past the restored values. */
  | { kind: 'restore_table'; table: TableModel; backup: string; sequences: SequenceModel[] }
  /**
   * Drops the backup table `backup` of `table` once the rollback has put its rows back: only ever
   * part of a rollback (the undoing of backup_column or backup_table), after the restore.
   */
  | { kind: 'drop_backup'; table: TableRef; backup: string }
  /** Columns, primary key, unique, check and exclusion constraints and indexes; never foreign keys. */
  | { kind: 'create_table'; table: TableModel }
  /** `sequences`: the ones owned by its columns, which go with it (for the rollback to recreate). */
  | { kind: 'drop_table'; table: TableModel; backup: string | null; sequences: SequenceModel[] }
  /**
   * `after`: MySQL places the column after that one, or FIRST (null); absent: at the end (always on
   * PostgreSQL, which cannot place a column).
   */
  | { kind: 'add_column'; table: TableRef; column: ColumnModel; after?: string | null }
  | {
      kind: 'drop_column';
      table: TableRef;
      column: ColumnModel;
      backup: ColumnBackup | null;
      sequences: SequenceModel[];
      /** Where its rollback puts the column back (as add_column's `after`). */
      after?: string | null;
      /** PostgreSQL: the parent's column only; its inheritance children keep theirs as their own. */
      only?: boolean;
      /**
       * PostgreSQL: an inheritance child's copy of a column its parent has just dropped ONLY; the
       * parent's rollback adds it back here too, so its own rollback has nothing to do.
       */
      after_parent?: boolean;
    }
  | { kind: 'alter_column'; change: ColumnChange; table: TableRef; before: ColumnModel; after: ColumnModel }
  | { kind: 'add_primary_key' | 'drop_primary_key'; table: TableRef; key: PrimaryKeyModel }
  | { kind: 'add_unique' | 'drop_unique'; table: TableRef; constraint: UniqueConstraintModel }
  | { kind: 'add_check' | 'drop_check'; table: TableRef; constraint: CheckConstraintModel }
  | { kind: 'add_exclusion' | 'drop_exclusion'; table: TableRef; constraint: ExclusionConstraintModel }
  | { kind: 'add_foreign_key' | 'drop_foreign_key'; table: TableRef; key: ForeignKeyModel }
  | { kind: 'create_index' | 'drop_index'; table: TableRef; index: IndexModel; concurrently: boolean }
  | { kind: 'rename_index'; table: TableRef; from: string; to: string }
  /** Never planned (the diff matches tables and columns by name): only to undo an edited rename. */
  | { kind: 'rename_table'; table: TableRef; to: string }
  | { kind: 'rename_column'; table: TableRef; from: string; to: string }
  | { kind: 'rename_constraint'; table: TableRef; from: string; to: string }
  | { kind: 'set_table_comment'; table: TableRef; before: string | null; after: string | null }
  /** PostgreSQL: the table becomes (or stops being) a partition of `parent` with `bound`. */
  | { kind: 'attach_partition' | 'detach_partition'; table: TableRef; parent: TableRef; bound: string }
  /** PostgreSQL: the table starts (or stops) inheriting from `parent`. */
  | { kind: 'inherit' | 'no_inherit'; table: TableRef; parent: TableRef }
  /** An online plan's step that runs after the transaction, on its own (plan-online.ts). */
  | { kind: 'outside_transaction'; op: MigrationOperation }
  | { kind: 'set_row_security'; table: TableRef; before: RowSecurity; after: RowSecurity }
  | { kind: 'create_policy' | 'drop_policy'; table: TableRef; policy: PolicyModel }
  /**
   * PostgreSQL: the table rebuilt because its partitioning key changes (plain → partitioned, another
   * key): renamed away with its indexes, created anew, its own rows copied over, the sequences its
   * columns own handed to the new columns, the old one dropped. `before` and `after` are without
   * foreign keys (those are dropped and added around it).
   */
  | { kind: 'rebuild_table'; before: TableModel; after: TableModel; sequences: SequenceModel[] }
  /** MySQL: ENGINE, default collation, ROW_FORMAT (null: the database's defaults). */
  | { kind: 'set_table_options'; table: TableRef; before: TableOptions; after: TableOptions }
  /**
   * MySQL/MariaDB: an existing column put where the source has it (after the named column, or
   * FIRST for null), with its final definition; `from` is where it was, for the rollback.
   */
  | { kind: 'move_column'; table: TableRef; column: ColumnModel; after: string | null; from: string | null }
  /** PostgreSQL storage parameters, UNLOGGED, REPLICA IDENTITY (null: every one the default). */
  | { kind: 'set_table_storage'; table: TableRef; before: TableStorage | null; after: TableStorage | null }
  /** MySQL: PARTITION BY the clause, or REMOVE PARTITIONING (null). */
  | { kind: 'set_partitioning'; table: TableRef; before: string | null; after: string | null };

export interface RowSecurity {
  enabled: boolean;
  forced: boolean;
}

export type OperationKind = MigrationOperation['kind'];

/** Operations that lose data when they run: a table or a column (or a column's stored values) goes. */
export function isDestructive(op: MigrationOperation): boolean {
  if (op.kind === 'outside_transaction') return isDestructive(op.op);
  return (
    op.kind === 'drop_table' ||
    op.kind === 'drop_column' ||
    (op.kind === 'alter_column' && op.change === 'replace_generated') ||
    // Dropping system versioning deletes the table's history (MariaDB).
    (op.kind === 'set_table_options' && op.before.system_versioning === true && !op.after.system_versioning)
  );
}

export function ref(table: { schema: string | null; name: string }): TableRef {
  return { schema: table.schema, name: table.name };
}

/** The table an operation acts on, or null for enums, sequences and other schema-level objects. */
export function operationTable(op: MigrationOperation): TableRef | null {
  switch (op.kind) {
    case 'outside_transaction':
      return operationTable(op.op);
    case 'create_extension':
    case 'drop_extension':
    case 'create_enum':
    case 'add_enum_value':
    case 'recreate_enum':
    case 'drop_enum':
    case 'create_sequence':
    case 'alter_sequence':
    case 'set_sequence_owner':
    case 'drop_sequence':
    case 'ensure_backup_schema':
    case 'alter_extension':
    case 'create_schema':
    case 'drop_schema':
    case 'create_type':
    case 'drop_type':
    case 'alter_type':
    case 'create_collation':
    case 'drop_collation':
    case 'comment_object':
    case 'create_view':
    case 'drop_view':
    case 'replace_view':
    case 'create_routine':
    case 'drop_routine':
    case 'replace_routine':
      return null;
    case 'create_trigger':
    case 'drop_trigger':
    case 'set_trigger_state':
      return { schema: op.trigger.schema, name: op.trigger.table };
    case 'backup_table':
    case 'restore_table':
    case 'create_table':
    case 'drop_table':
      return ref(op.table);
    case 'rebuild_table':
      return ref(op.after);
    default:
      return op.table;
  }
}

/** How an operation names its object in messages: `table.column`, the constraint, the index… */
export function operationObject(op: MigrationOperation): string {
  if (op.kind === 'outside_transaction') return operationObject(op.op);
  const table = operationTable(op);
  const tableName = table ? qualified(table) : '';
  switch (op.kind) {
    case 'create_extension':
    case 'drop_extension':
    case 'alter_extension':
      return op.name;
    case 'create_schema':
    case 'drop_schema':
      return op.schema.name;
    case 'create_type':
    case 'drop_type':
      return `${op.type.schema}.${op.type.name}`;
    case 'create_collation':
    case 'drop_collation':
      return `${op.collation.schema}.${op.collation.name}`;
    case 'alter_type':
      return `${op.after.schema}.${op.after.name}`;
    case 'comment_object':
      return objectName(op.target);
    case 'create_view':
    case 'drop_view':
      return objectName(op.view);
    case 'replace_view':
      return objectName(op.after);
    case 'create_routine':
    case 'drop_routine':
      return objectName(op.routine);
    case 'replace_routine':
      return objectName(op.after);
    case 'create_trigger':
    case 'drop_trigger':
    case 'set_trigger_state':
      return `${tableName}.${op.trigger.name}`;
    case 'create_policy':
    case 'drop_policy':
      return `${tableName}.${op.policy.name}`;
    case 'validate_constraint':
      return `${tableName}.${op.constraint.kind === 'check' ? op.constraint.check.name : op.constraint.key.name}`;
    case 'alter_identity':
      return `${tableName}.${op.column}`;
    case 'create_enum':
    case 'add_enum_value':
    case 'recreate_enum':
    case 'drop_enum':
      return `${op.enum.schema}.${op.enum.name}`;
    case 'create_sequence':
    case 'drop_sequence':
    case 'set_sequence_owner':
      return `${op.sequence.schema}.${op.sequence.name}`;
    case 'alter_sequence':
      return `${op.after.schema}.${op.after.name}`;
    case 'ensure_backup_schema':
      return 'dbops_backup';
    case 'drop_backup':
      return op.backup;
    case 'backup_column':
    case 'restore_column':
    case 'add_column':
    case 'drop_column':
      return `${tableName}.${op.column.name}`;
    case 'alter_column':
      return `${tableName}.${op.after.name}`;
    case 'add_primary_key':
    case 'drop_primary_key':
    case 'add_foreign_key':
    case 'drop_foreign_key':
      return `${tableName}.${op.key.name}`;
    case 'add_unique':
    case 'drop_unique':
    case 'add_check':
    case 'drop_check':
    case 'add_exclusion':
    case 'drop_exclusion':
      return `${tableName}.${op.constraint.name}`;
    case 'create_index':
    case 'drop_index':
      return `${tableName}.${op.index.name}`;
    case 'rename_index':
    case 'rename_constraint':
    case 'rename_column':
      return `${tableName}.${op.to}`;
    default:
      return tableName;
  }
}

function objectName(item: { schema: string | null; name: string; table?: string | null }): string {
  const base = item.schema === null ? item.name : `${item.schema}.${item.name}`;
  return item.table ? `${base} on ${item.table}` : base;
}

export function qualified(table: TableRef): string {
  return table.schema === null ? table.name : `${table.schema}.${table.name}`;
}
