// What a statement does, in neutral terms (see ./facts.ts for where the facts come from).
import type { TableRef } from './operations.ts';

export type ObjectChangeKind =
  | 'drop_view'
  | 'drop_materialized_view'
  | 'create_materialized_view'
  | 'replace_routine'
  | 'drop_routine'
  | 'detach_partition'
  | 'disable_row_security';

export type ConstraintKind = 'primary_key' | 'unique' | 'check' | 'foreign_key' | 'exclusion';

export type StatementFact =
  | {
      action: 'create_table';
      table: TableRef;
      /** The partitioned table it is a partition of (a bounded one, not a DEFAULT partition). */
      partition_of?: TableRef;
    }
  | { action: 'drop_table'; table: TableRef; backed_up: boolean }
  | { action: 'rename_table'; table: TableRef; to: string }
  | {
      action: 'add_column';
      table: TableRef;
      column: string;
      not_null: boolean;
      has_default: boolean;
      volatile_default: boolean;
      /** Values are computed for every row (stored generated, identity, AUTO_INCREMENT, serial). */
      computed: boolean;
    }
  | { action: 'drop_column'; table: TableRef; column: string; backed_up: boolean }
  | { action: 'rename_column'; table: TableRef; column: string; to: string }
  /** `from` is null when the statement does not say (edited SQL): lint looks it up in the target. */
  | {
      action: 'alter_column_type';
      table: TableRef;
      column: string;
      from: string | null;
      to: string;
      /** The SQL converts with its own USING expression (more than a cast of the column). */
      custom_using?: boolean;
    }
  /**
   * MySQL MODIFY/CHANGE COLUMN: the whole new definition. Lint compares it with the target's column
   * to tell a type change or a NOT NULL added from a restated definition.
   */
  | { action: 'modify_column'; table: TableRef; column: string; type: string; not_null: boolean }
  | { action: 'set_not_null'; table: TableRef; column: string }
  | { action: 'drop_not_null'; table: TableRef; column: string }
  | { action: 'set_default'; table: TableRef; column: string; volatile: boolean }
  | { action: 'drop_default'; table: TableRef; column: string }
  /** Identity, generation, comment, collation, ON UPDATE: no data or lock hazard of its own. */
  | { action: 'alter_column_other'; table: TableRef; column: string; what: string }
  | {
      action: 'add_constraint';
      table: TableRef;
      constraint: ConstraintKind;
      name: string | null;
      columns: string[];
      not_valid: boolean;
    }
  | { action: 'drop_constraint'; table: TableRef; constraint: ConstraintKind | null; name: string | null }
  | { action: 'validate_constraint'; table: TableRef; name: string }
  | {
      action: 'create_index';
      table: TableRef;
      name: string | null;
      unique: boolean;
      concurrently: boolean;
    }
  | { action: 'drop_index'; table: TableRef | null; name: string; concurrently: boolean }
  | { action: 'rename_index'; table: TableRef | null; name: string; to: string }
  | { action: 'rename_constraint'; table: TableRef; name: string; to: string }
  | { action: 'set_lock_timeout' }
  | { action: 'transaction_control' }
  | { action: 'data_change'; table: TableRef | null }
  /**
   * Enums, sequences, extensions, schemas, comments, and the objects beyond tables. For views,
   * routines and partitions, `change` and `key` (the object as the model keys it) let lint look up
   * who depends on the object in the target.
   */
  | {
      action: 'schema_object';
      object: string;
      change?: ObjectChangeKind;
      key?: string;
    }
  | { action: 'other'; statement: string };
