// The steps that turn one column into another. Each step is one ALTER on PostgreSQL, in an order the
// server accepts: a default goes before the type changes (it may not cast) and comes back after, NOT
// NULL comes before an identity is added (identity requires it) and goes after one is dropped, and
// a generation expression cannot be added to an existing column before PostgreSQL 17, so the column
// is replaced (dropped and added back computed). MySQL folds the steps into one MODIFY COLUMN.
import type { EngineTraits } from '../schema/engine-traits.ts';
import type { ColumnModel } from '../schema/model.ts';
import type { ColumnChange, MigrationOperation, TableRef } from './operations.ts';
import { classifyTypeChange } from './type-change.ts';

const sameGenerated = (a: ColumnModel, b: ColumnModel) =>
  (a.generated === null && b.generated === null) ||
  (a.generated !== null &&
    b.generated !== null &&
    a.generated.expression === b.generated.expression &&
    a.generated.stored === b.generated.stored);

export function columnChanged(a: ColumnModel, b: ColumnModel): boolean {
  return (
    a.type !== b.type ||
    a.collation !== b.collation ||
    a.nullable !== b.nullable ||
    a.default_normalized !== b.default_normalized ||
    a.identity !== b.identity ||
    a.auto_increment !== b.auto_increment ||
    !sameGenerated(a, b) ||
    a.on_update !== b.on_update ||
    a.comment !== b.comment ||
    !!a.invisible !== !!b.invisible ||
    (a.check ?? null) !== (b.check ?? null) ||
    (a.storage ?? null) !== (b.storage ?? null) ||
    (a.compression ?? null) !== (b.compression ?? null)
  );
}

/** The column with an optional field set, or left out when unset (as introspection leaves it). */
function withOptional(column: ColumnModel, key: 'storage' | 'compression', value: string | undefined) {
  const { [key]: _, ...rest } = column;
  return value === undefined ? rest : { ...rest, [key]: value };
}

/** The alter_column steps from `before` (the target's column) to `after` (the source's). */
export function columnSteps(
  table: TableRef,
  before: ColumnModel,
  after: ColumnModel,
  engine: EngineTraits,
): MigrationOperation[] {
  const steps: MigrationOperation[] = [];
  let current = before;
  const step = (change: ColumnChange, next: ColumnModel) => {
    steps.push({ kind: 'alter_column', change, table, before: current, after: next });
    current = next;
  };

  if (!sameGenerated(before, after)) {
    if (after.generated !== null || !engine.generatedExpressions) {
      // The new column is defined whole: nothing else remains to change.
      step('replace_generated', after);
      return steps;
    }
    step('drop_expression', { ...current, generated: null });
  }

  if (current.identity !== null && after.identity === null)
    step('drop_identity', { ...current, identity: null, identity_options: null });
  else if (current.identity !== null && after.identity !== null && current.identity !== after.identity)
    step('identity_kind', { ...current, identity: after.identity });

  const typeChanged = current.type !== after.type || current.collation !== after.collation;
  const defaultChanged = current.default_normalized !== after.default_normalized;
  const identityAdded = current.identity === null && after.identity !== null;
  // A type widened in place (a longer varchar) keeps a default the source prints the same: the
  // server casts it along, and there is nothing to take away and put back.
  const change = typeChanged ? classifyTypeChange(current.type, after.type, engine) : null;
  const defaultCarries =
    engine.defaultsFollowTypeChanges &&
    change !== null &&
    change.direction === 'widening' &&
    !change.rewrite &&
    current.collation === after.collation &&
    current.default === after.default;
  if (
    current.default !== null &&
    ((typeChanged && !defaultCarries) || identityAdded || (defaultChanged && after.default === null))
  )
    step('drop_default', { ...current, default: null, default_normalized: null });
  if (typeChanged) step('type', { ...current, type: after.type, collation: after.collation });
  if (after.default !== null && current.default_normalized !== after.default_normalized)
    step('set_default', { ...current, default: after.default, default_normalized: after.default_normalized });
  if (current.nullable && !after.nullable) step('set_not_null', { ...current, nullable: false });
  // The new identity's sequence takes the source's options at once (START, MINVALUE…).
  if (identityAdded)
    step('add_identity', {
      ...current,
      identity: after.identity,
      identity_options: after.identity_options ?? null,
    });
  if (!current.nullable && after.nullable) step('drop_not_null', { ...current, nullable: true });
  if (current.on_update !== after.on_update) step('on_update', { ...current, on_update: after.on_update });
  if (current.auto_increment !== after.auto_increment)
    step('auto_increment', { ...current, auto_increment: after.auto_increment });
  if (current.comment !== after.comment) step('comment', { ...current, comment: after.comment });
  // MySQL only (PostgreSQL has no invisible columns): folded into the column's MODIFY.
  if (!!current.invisible !== !!after.invisible) step('comment', { ...current, invisible: after.invisible });
  // MariaDB only: a column-level CHECK is part of the definition, folded into the MODIFY as well.
  if ((current.check ?? null) !== (after.check ?? null)) step('comment', { ...current, check: after.check });
  // PostgreSQL only (MySQL columns have neither).
  if ((current.storage ?? null) !== (after.storage ?? null))
    step('storage', withOptional(current, 'storage', after.storage));
  if ((current.compression ?? null) !== (after.compression ?? null))
    step('compression', withOptional(current, 'compression', after.compression));
  return steps;
}

/**
 * The column as the rollback of a drop adds it back before its values are restored: nullable and
 * without default, identity or AUTO_INCREMENT (those would number the rows anew), so that the
 * restored values land as they were; the steps to the full column follow the restore.
 */
export function plainColumn(column: ColumnModel): ColumnModel {
  return {
    ...column,
    nullable: true,
    default: null,
    default_normalized: null,
    identity: null,
    auto_increment: false,
    on_update: null,
  };
}
