// An online plan (docs/contract.md §8, `online: true`, PostgreSQL): what would hold a long lock on an existing
// table is split so that the transaction only takes short locks, and the long part runs after it,
// outside any transaction (as pg-schema-diff plans it):
// - a check or foreign key is added NOT VALID in the transaction and validated after it
//   (VALIDATE takes a lock that lets reads and writes go on);
// - SET NOT NULL goes through a NOT VALID check `col IS NOT NULL`, validated after the
//   transaction, which lets SET NOT NULL skip its scan; the check is dropped then;
// - new non-unique indexes are built CONCURRENTLY after the transaction.
// Tables the plan creates are empty: nothing to split for them.

import type { MigrationOperation } from './operations.ts';
import { qualified, type TableRef } from './operations.ts';

const outside = (op: MigrationOperation): MigrationOperation => ({ kind: 'outside_transaction', op });

export function onlineOperations(operations: MigrationOperation[]): MigrationOperation[] {
  const created = new Set(
    operations.flatMap((op) =>
      op.kind === 'create_table' ? [qualified({ schema: op.table.schema, name: op.table.name })] : [],
    ),
  );
  const existing = (table: TableRef) => !created.has(qualified(table));
  const body: MigrationOperation[] = [];
  const tail: MigrationOperation[] = [];
  for (const op of operations) {
    if (op.kind === 'add_check' && existing(op.table) && !op.constraint.not_valid) {
      body.push({ ...op, constraint: { ...op.constraint, not_valid: true } });
      tail.push(
        outside({
          kind: 'validate_constraint',
          table: op.table,
          constraint: { kind: 'check', check: op.constraint },
        }),
      );
    } else if (op.kind === 'add_foreign_key' && existing(op.table) && !op.key.not_valid) {
      body.push({ ...op, key: { ...op.key, not_valid: true } });
      tail.push(
        outside({
          kind: 'validate_constraint',
          table: op.table,
          constraint: { kind: 'foreign_key', key: op.key },
        }),
      );
    } else if (op.kind === 'alter_column' && op.change === 'set_not_null' && existing(op.table)) {
      const check = {
        name: `${op.after.name}_not_null_dbops`.slice(0, 63),
        expression: `${quoteName(op.after.name)} IS NOT NULL`,
      };
      body.push({ kind: 'add_check', table: op.table, constraint: { ...check, not_valid: true } });
      tail.push(
        outside({ kind: 'validate_constraint', table: op.table, constraint: { kind: 'check', check } }),
        outside(op),
        outside({ kind: 'drop_check', table: op.table, constraint: check }),
      );
    } else if (op.kind === 'create_index' && existing(op.table) && !op.index.unique && !op.concurrently) {
      tail.push({ ...op, concurrently: true });
    } else body.push(op);
  }
  return [...body, ...tail];
}

/** A column name as PostgreSQL reads it in an expression. */
function quoteName(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
