// The rollback of each operation: the operations that undo it, and whether undoing loses something.
// Creations and drops of structure swap; changes swap their before and after. A dropped table or
// column is irreversible (null) unless it was backed up first (`backup_drops`): then its rollback
// recreates it and puts the rows back from the backup; undoing the backup itself drops the backup
// table, after the restore (backup.ts says why).
import { traitsOf } from '../schema/engine-traits.ts';
import type { DialectName, SequenceModel } from '../schema/model.ts';
import type { ColumnChange, Dependants, MigrationOperation } from './operations.ts';
import { columnSteps, plainColumn } from './plan-columns.ts';

export interface Inverse {
  operations: MigrationOperation[];
  /** Why the rollback does not give back exactly what was there (null when it does). */
  lossy: string | null;
}

const exact = (...operations: MigrationOperation[]): Inverse => ({ operations, lossy: null });

const INVERSE_CHANGE: Record<ColumnChange, ColumnChange> = {
  drop_identity: 'add_identity',
  add_identity: 'drop_identity',
  identity_kind: 'identity_kind',
  drop_default: 'set_default',
  set_default: 'set_default',
  type: 'type',
  set_not_null: 'drop_not_null',
  drop_not_null: 'set_not_null',
  drop_expression: 'replace_generated',
  replace_generated: 'replace_generated',
  on_update: 'on_update',
  auto_increment: 'auto_increment',
  comment: 'comment',
  storage: 'storage',
  compression: 'compression',
};

/** `change` with the objects it is refused under dropped before it and created again after it. */
function aroundDependants(
  dependants: Dependants | undefined,
  change: MigrationOperation,
): MigrationOperation[] {
  if (!dependants) return [change];
  const policies = dependants.policies ?? [];
  return [
    ...policies.map(({ table, policy }): MigrationOperation => ({ kind: 'drop_policy', table, policy })),
    ...dependants.triggers.map((trigger): MigrationOperation => ({ kind: 'drop_trigger', trigger })),
    ...[...dependants.views].reverse().map((view): MigrationOperation => ({ kind: 'drop_view', view })),
    ...[...dependants.routines]
      .reverse()
      .map((routine): MigrationOperation => ({ kind: 'drop_routine', routine })),
    change,
    ...dependants.routines.map((routine): MigrationOperation => ({ kind: 'create_routine', routine })),
    ...dependants.views.map((view): MigrationOperation => ({ kind: 'create_view', view })),
    ...dependants.triggers.map((trigger): MigrationOperation => ({ kind: 'create_trigger', trigger })),
    ...policies.map(({ table, policy }): MigrationOperation => ({ kind: 'create_policy', table, policy })),
  ];
}

/**
 * Operations undone by their twin with the same fields: what a create made, its drop removes, and
 * the other way round (views are not here: a materialized view comes back refreshed).
 */
const TWINS = {
  create_extension: 'drop_extension',
  drop_extension: 'create_extension',
  add_primary_key: 'drop_primary_key',
  drop_primary_key: 'add_primary_key',
  add_unique: 'drop_unique',
  drop_unique: 'add_unique',
  add_check: 'drop_check',
  drop_check: 'add_check',
  add_exclusion: 'drop_exclusion',
  drop_exclusion: 'add_exclusion',
  add_foreign_key: 'drop_foreign_key',
  drop_foreign_key: 'add_foreign_key',
  create_index: 'drop_index',
  drop_index: 'create_index',
  create_policy: 'drop_policy',
  drop_policy: 'create_policy',
  attach_partition: 'detach_partition',
  detach_partition: 'attach_partition',
  inherit: 'no_inherit',
  no_inherit: 'inherit',
  create_collation: 'drop_collation',
  drop_collation: 'create_collation',
  create_type: 'drop_type',
  drop_type: 'create_type',
  create_schema: 'drop_schema',
  drop_schema: 'create_schema',
  create_routine: 'drop_routine',
  drop_routine: 'create_routine',
  create_trigger: 'drop_trigger',
  drop_trigger: 'create_trigger',
} as const satisfies Partial<Record<MigrationOperation['kind'], MigrationOperation['kind']>>;
type TwinKind = keyof typeof TWINS;

/** Operations undone by themselves with `before` and `after` exchanged. */
const SWAPPED_KINDS = [
  'set_sequence_owner',
  'set_table_comment',
  'alter_extension',
  'comment_object',
  'set_trigger_state',
  'alter_identity',
  'rebuild_table',
  'set_table_storage',
  'set_partitioning',
  'set_row_security',
] as const satisfies readonly MigrationOperation['kind'][];
const SWAPPED: ReadonlySet<string> = new Set(SWAPPED_KINDS);
type SwappedOperation = Extract<MigrationOperation, { kind: (typeof SWAPPED_KINDS)[number] }>;

const isTwin = (op: MigrationOperation): op is Extract<MigrationOperation, { kind: TwinKind }> =>
  op.kind in TWINS;
const isSwapped = (op: MigrationOperation): op is SwappedOperation => SWAPPED.has(op.kind);

/** The inverse of one operation, or null when it cannot be undone. */
export function invertOperation(op: MigrationOperation, dialect: DialectName): Inverse | null {
  if (isTwin(op)) return exact({ ...op, kind: TWINS[op.kind] } as MigrationOperation);
  if (isSwapped(op)) return exact({ ...op, before: op.after, after: op.before } as MigrationOperation);
  switch (op.kind) {
    case 'create_enum':
      return exact({ kind: 'drop_enum', enum: op.enum });
    case 'drop_enum':
      return exact({ kind: 'create_enum', enum: op.enum });
    case 'add_enum_value':
      return removeAddedEnumValue(op);
    case 'recreate_enum': {
      const removing = op.values.filter((value) => !op.enum.values.includes(value));
      // Backwards, a column's default goes from the one set with the swap back to its own.
      const uses = op.uses.map((use) =>
        use.default_after === undefined
          ? use
          : {
              ...use,
              column: { ...use.column, default: use.default_after },
              default_after: use.column.default,
            },
      );
      return {
        operations: [{ ...op, enum: { ...op.enum, values: op.values }, values: op.enum.values, uses }],
        lossy:
          removing.length > 0 ? `fails while a row holds one of the values ${removing.join(', ')}` : null,
      };
    }
    case 'create_sequence':
      return exact({ kind: 'drop_sequence', sequence: op.sequence });
    case 'drop_sequence':
      return {
        operations: [
          { kind: 'create_sequence', sequence: { ...op.sequence, owned_by: null } },
          ...(op.sequence.owned_by === null
            ? []
            : [
                {
                  kind: 'set_sequence_owner' as const,
                  sequence: op.sequence,
                  before: null,
                  after: op.sequence.owned_by,
                },
              ]),
        ],
        lossy: 'the sequence starts again at its START value',
      };
    case 'alter_sequence':
      return exact({ kind: 'alter_sequence', before: op.after, after: op.before });
    case 'ensure_backup_schema':
      return exact();
    case 'backup_column':
    case 'backup_table':
      // Undoing the backup is dropping it: the rollback runs this after the restore that read it.
      return exact({
        kind: 'drop_backup',
        table: { schema: op.table.schema, name: op.table.name },
        backup: op.backup,
      });
    case 'drop_backup':
    case 'restore_column':
    case 'restore_table':
      // Only ever part of a rollback.
      return null;
    case 'create_table':
      return exact({ kind: 'drop_table', table: op.table, backup: null, sequences: [] });
    case 'drop_table': {
      if (op.backup === null) return null;
      const sequences = op.sequences.map((sequence) => ({ ...sequence, owned_by: null }));
      return exact(
        ...sequences.map((sequence): MigrationOperation => ({ kind: 'create_sequence', sequence })),
        { kind: 'create_table', table: { ...op.table, foreign_keys: [] } },
        { kind: 'restore_table', table: op.table, backup: op.backup, sequences: op.sequences },
        ...ownersBack(op.sequences),
      );
    }
    case 'add_column':
      return exact({ kind: 'drop_column', table: op.table, column: op.column, backup: null, sequences: [] });
    case 'drop_column':
      return restoreDroppedColumn(op, dialect);
    case 'alter_column': {
      const inverse: MigrationOperation = {
        kind: 'alter_column',
        change:
          op.change === 'set_default' && op.before.default === null
            ? 'drop_default'
            : INVERSE_CHANGE[op.change],
        table: op.table,
        before: op.after,
        after: op.before,
      };
      return { operations: [inverse], lossy: alterLossy(op) };
    }
    case 'rename_index':
    case 'rename_constraint':
    case 'rename_column':
      return exact({ ...op, from: op.to, to: op.from });
    case 'rename_table':
      return exact({
        kind: 'rename_table',
        table: { schema: op.table.schema, name: op.to },
        to: op.table.name,
      });
    case 'outside_transaction':
      // The rollback runs in the transaction.
      return invertOperation(op.op, dialect);
    case 'set_table_options':
      return {
        operations: [{ ...op, before: op.after, after: op.before }],
        lossy:
          op.before.system_versioning && !op.after.system_versioning
            ? 'the history of a table whose system versioning was dropped is gone'
            : null,
      };
    case 'move_column':
      return exact({ ...op, after: op.from, from: op.after });
    case 'alter_type':
      return exact({ kind: 'alter_type', before: op.after, after: op.before });
    case 'create_view':
      return exact({ ...op, kind: 'drop_view' });
    case 'drop_view':
      return {
        operations: [{ ...op, kind: 'create_view' }],
        lossy: op.view.materialized
          ? 'the materialized view is refreshed: it holds the data of the time of the rollback'
          : null,
      };
    case 'replace_view':
      return exact({ kind: 'replace_view', before: op.after, after: op.before });
    case 'replace_routine':
      return exact({ kind: 'replace_routine', before: op.after, after: op.before });
    case 'validate_constraint': {
      // A validated constraint cannot be made NOT VALID again: it is dropped and re-added so.
      const c = op.constraint;
      if (c.kind === 'check')
        return exact(
          { kind: 'drop_check', table: op.table, constraint: c.check },
          { kind: 'add_check', table: op.table, constraint: { ...c.check, not_valid: true } },
        );
      return exact(
        { kind: 'drop_foreign_key', table: op.table, key: c.key },
        { kind: 'add_foreign_key', table: op.table, key: { ...c.key, not_valid: true } },
      );
    }
    default: {
      const unhandled: never = op;
      throw new Error(`No inverse for ${JSON.stringify(unhandled)}`);
    }
  }
}

/** An added enum value goes by swapping the type for one without it, its dependants set aside. */
function removeAddedEnumValue(op: Extract<MigrationOperation, { kind: 'add_enum_value' }>): Inverse {
  const values = [...op.enum.values];
  values.splice(op.after === null ? 0 : values.indexOf(op.after) + 1, 0, op.value);
  return {
    operations: aroundDependants(op.dependants, {
      kind: 'recreate_enum',
      enum: { ...op.enum, values },
      values: op.enum.values,
      uses: op.uses,
    }),
    lossy: `fails while a row holds the added value '${op.value}'`,
  };
}

/** A dropped column comes back from its backup (a generated one is computed again); without a backup it cannot. */
function restoreDroppedColumn(
  op: Extract<MigrationOperation, { kind: 'drop_column' }>,
  dialect: DialectName,
): Inverse | null {
  if (op.after_parent) return exact();
  const place = op.after === undefined ? {} : { after: op.after };
  if (op.column.generated !== null)
    return exact({ kind: 'add_column', table: op.table, column: op.column, ...place });
  if (op.backup === null) return null;
  const plain = plainColumn(op.column);
  const sequences = op.sequences.map((sequence) => ({ ...sequence, owned_by: null }));
  return exact(
    ...sequences.map((sequence): MigrationOperation => ({ kind: 'create_sequence', sequence })),
    { kind: 'add_column', table: op.table, column: plain, ...place },
    {
      kind: 'restore_column',
      table: op.table,
      column: op.column,
      key: op.backup.key,
      backup: op.backup.name,
      onUpdateColumns: op.backup.onUpdateColumns,
      disableTriggers: op.backup.disableTriggers,
    },
    ...columnSteps(op.table, plain, op.column, traitsOf(dialect)),
    ...ownersBack(op.sequences),
  );
}

function ownersBack(sequences: SequenceModel[]): MigrationOperation[] {
  return sequences
    .filter((sequence) => sequence.owned_by !== null)
    .map((sequence) => ({ kind: 'set_sequence_owner', sequence, before: null, after: sequence.owned_by }));
}

function alterLossy(op: Extract<MigrationOperation, { kind: 'alter_column' }>): string | null {
  switch (op.change) {
    case 'type':
      if (op.before.type === op.after.type) return null; // only the collation changes
      return `changing ${op.after.type} back to ${op.before.type} can cut or refuse values written since`;
    case 'drop_expression':
      return 'the column is computed again: values written into it since are replaced';
    case 'replace_generated':
      return op.before.generated === null
        ? 'the column is added back empty: its former values were dropped'
        : 'the column is recomputed from its former expression';
    default:
      return null;
  }
}
