// The per-table part of the planner: what changes in a table both sides have (columns, keys,
// checks, indexes, foreign keys, comment). What a table loses on the way (columns dropped after
// their backups, foreign keys stepping aside): ./plan-table-drops.ts.
import {
  describeCheck,
  describeExclusion,
  describeForeignKey,
  describeIndex,
  describePrimaryKey,
  describeTableStorage,
  describeUnique,
} from '../schema/describe.ts';
import type { EngineTraits } from '../schema/engine-traits.ts';
import { type SequenceOptions, type TableModel, tableKey } from '../schema/model.ts';
import { type MigrationOperation, ref } from './operations.ts';
import { columnChanged, columnSteps } from './plan-columns.ts';
import { planLineage } from './plan-lineage.ts';
import type { Phases, PlanNote } from './plan-types.ts';

export type { Phases };

export interface PlanTableOptions {
  /** MySQL: the target database's default collation (what a table without options has). */
  default_collation?: string | undefined;
  backup_drops?: boolean | undefined;
  concurrent_indexes?: boolean | undefined;
}

interface NamedChanges<T> {
  dropped: T[];
  added: T[];
  renamed: [string, string][];
}

/** Objects matched by name; leftovers with the same definition are renames, as the diff pairs them. */
function namedChanges<T extends { name: string }>(
  from: T[],
  to: T[],
  describe: (item: T) => string,
): NamedChanges<T> {
  const out: NamedChanges<T> = { dropped: [], added: [], renamed: [] };
  const after = new Map(to.map((item) => [item.name, item]));
  const before = new Map(from.map((item) => [item.name, item]));
  const removed: T[] = [];
  const added: T[] = to.filter((item) => !before.has(item.name));
  for (const item of from) {
    const counterpart = after.get(item.name);
    if (counterpart === undefined) removed.push(item);
    else if (describe(counterpart) !== describe(item)) {
      out.dropped.push(item);
      out.added.push(counterpart);
    }
  }
  for (const item of removed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const match = added.findIndex((candidate) => describe(candidate) === describe(item));
    if (match >= 0) out.renamed.push([item.name, added.splice(match, 1)[0]!.name]);
    else out.dropped.push(item);
  }
  out.added.push(...added);
  return out;
}

const sameIdentityOptions = (a: SequenceOptions, b: SequenceOptions) =>
  a.start === b.start &&
  a.increment === b.increment &&
  a.min_value === b.min_value &&
  a.max_value === b.max_value &&
  a.cache === b.cache &&
  a.cycle === b.cycle;

/**
 * Checks and foreign keys that stay the same but whose validity differs: VALIDATE CONSTRAINT when
 * the source's is validated, dropped and re-added NOT VALID when the source's is not.
 */
function planValidity(p: Phases, from: TableModel, to: TableModel): void {
  const table = ref(to);
  for (const check of to.check_constraints) {
    const old = from.check_constraints.find((c) => c.name === check.name);
    if (!old || describeCheck(old) !== describeCheck(check) || !!old.not_valid === !!check.not_valid)
      continue;
    if (old.not_valid)
      p.addKeys.push({ kind: 'validate_constraint', table, constraint: { kind: 'check', check } });
    else {
      p.dropKeys.push({ kind: 'drop_check', table, constraint: old });
      p.addKeys.push({ kind: 'add_check', table, constraint: check });
    }
  }
  for (const key of to.foreign_keys) {
    const old = from.foreign_keys.find((k) => k.name === key.name);
    if (!old || describeForeignKey(old) !== describeForeignKey(key) || !!old.not_valid === !!key.not_valid)
      continue;
    if (old.not_valid)
      p.addForeignKeys.push({ kind: 'validate_constraint', table, constraint: { kind: 'foreign_key', key } });
    else {
      p.dropForeignKeys.push({ kind: 'drop_foreign_key', table, key: old });
      p.addForeignKeys.push({ kind: 'add_foreign_key', table, key });
    }
  }
}

/**
 * MySQL/MariaDB: the existing columns moved so that the order matches the source's (new ones are
 * added in place). Simulated on the order after the adds: each source column that does not follow
 * its source predecessor is moved after it (FIRST for the first); columns that go are ignored.
 */
export function columnMoves(from: TableModel, to: TableModel): MigrationOperation[] {
  const wanted = to.columns.map((column) => column.name);
  const kept = new Set(wanted);
  const existing = new Set(from.columns.map((column) => column.name));
  // The order once the adds are in: every added column right after its source predecessor.
  const order = from.columns.map((column) => column.name).filter((name) => kept.has(name));
  wanted.forEach((name, i) => {
    if (existing.has(name)) return;
    order.splice(i === 0 ? 0 : order.indexOf(wanted[i - 1]!) + 1, 0, name);
  });
  const moves: MigrationOperation[] = [];
  wanted.forEach((name, i) => {
    const at = order.indexOf(name);
    const previous = i === 0 ? null : wanted[i - 1]!;
    const current = at === 0 ? null : order[at - 1]!;
    if (current === previous) return;
    order.splice(at, 1);
    order.splice(previous === null ? 0 : order.indexOf(previous) + 1, 0, name);
    moves.push({
      kind: 'move_column',
      table: ref(to),
      column: to.columns[i]!,
      after: previous,
      from: current,
    });
  });
  return moves;
}

/**
 * Whether a table gains or loses a parent in the plan: an inheritance parent (INHERIT / NO
 * INHERIT) or a partitioned table (ATTACH / DETACH PARTITION), each of which wants the columns as
 * the table has them on its own.
 */
export function parentChanges(from: TableModel, to: TableModel): { gains: boolean; loses: boolean } {
  // Kept apart: a table moved from inheriting a parent to being its partition changes parent.
  const names = (t: TableModel) => [
    ...(t.inherits ?? []).map((parent) => `inherits ${tableKey(parent)}`),
    ...(t.partitioning?.parent ? [`partition of ${tableKey(t.partitioning.parent)}`] : []),
  ];
  const [before, after] = [names(from), names(to)];
  return {
    gains: after.some((name) => !before.includes(name)),
    loses: before.some((name) => !after.includes(name)),
  };
}

const INTEGER_RANK: Record<string, number> = { smallint: 1, integer: 2, bigint: 3 };

export function planTable(
  p: Phases,
  from: TableModel,
  to: TableModel,
  engine: EngineTraits,
  options: PlanTableOptions,
  notes: PlanNote[] = [],
): void {
  const table = ref(to);
  const existing = new Map(from.columns.map((column) => [column.name, column]));
  const lineage = parentChanges(from, to);
  to.columns.forEach((column, i) => {
    const before = existing.get(column.name);
    // A partition's or child's inherited column changes with its parent's (the server refuses it here),
    // except around INHERIT / NO INHERIT: a table that gains a parent must already have the parent's
    // columns, with its types; one that loses its parent keeps them as its own, to change here.
    const inheritedNow = column.inherited === true && !lineage.gains;
    const inheritedBefore = before?.inherited === true && !lineage.loses;
    if (inheritedNow || inheritedBefore) return;
    // Where columns are placed, a new column goes where the source has it, so the order matches.
    if (!before)
      p.columns.push({
        kind: 'add_column',
        table,
        column,
        ...(engine.placedColumns ? { after: i === 0 ? null : to.columns[i - 1]!.name } : {}),
      });
    else {
      const [a, b] = [before.identity_options, column.identity_options];
      const identity: MigrationOperation[] =
        before.identity !== null && column.identity !== null && a && b && !sameIdentityOptions(a, b)
          ? [{ kind: 'alter_identity', table, column: column.name, before: a, after: b }]
          : [];
      // The bounds go in while they fit the wider type: before a type narrows, after one widens
      // (so the rollback, played backwards, does the same).
      const narrows = INTEGER_RANK[column.type]! < INTEGER_RANK[before.type]!;
      if (narrows) p.columns.push(...identity);
      if (columnChanged(before, column)) p.columns.push(...columnSteps(table, before, column, engine));
      if (!narrows) p.columns.push(...identity);
    }
  });
  planValidity(p, from, to);
  if (engine.tableLineage) planLineageAndStorage(p, notes, from, to);
  else planTableOptions(p, from, to, options);
  planConstraintsAndIndexes(p, from, to, engine, options);
}

/** A table's parent, partitions and storage parameters, where tables form a lineage. */
function planLineageAndStorage(p: Phases, notes: PlanNote[], from: TableModel, to: TableModel): void {
  const table = ref(to);
  planLineage(p, notes, from, to);
  // After the indexes: REPLICA IDENTITY USING INDEX names one the plan may create.
  if (describeTableStorage(from.table_storage) !== describeTableStorage(to.table_storage))
    p.late.push({
      kind: 'set_table_storage',
      table,
      before: from.table_storage ?? null,
      after: to.table_storage ?? null,
    });
}

/** A table's options, partition clause and column order, where a table carries them itself. */
function planTableOptions(p: Phases, from: TableModel, to: TableModel, options: PlanTableOptions): void {
  const table = ref(to);
  if (JSON.stringify(from.table_options ?? null) !== JSON.stringify(to.table_options ?? null)) {
    // No options recorded: the database's defaults, written out so that either way is one ALTER.
    const defaults = {
      engine: 'InnoDB',
      collation: options.default_collation ?? 'utf8mb4_general_ci',
      row_format: null,
    };
    p.late.push({
      kind: 'set_table_options',
      table,
      before: from.table_options ?? defaults,
      after: to.table_options ?? defaults,
    });
  }
  const [a, b] = [from.partitioning?.key ?? null, to.partitioning?.key ?? null];
  if (a !== b) p.late.push({ kind: 'set_partitioning', table, before: a, after: b });
  p.late.push(...columnMoves(from, to));
}

/** Keys, checks, exclusions, foreign keys and indexes of a table that both sides have. */
function planConstraintsAndIndexes(
  p: Phases,
  from: TableModel,
  to: TableModel,
  engine: EngineTraits,
  options: PlanTableOptions,
): void {
  const table = ref(to);
  const pkFrom = from.primary_key;
  const pkTo = to.primary_key;
  const pkSame = pkFrom && pkTo && describePrimaryKey(pkFrom) === describePrimaryKey(pkTo);
  if (pkFrom && !pkSame) p.dropKeys.push({ kind: 'drop_primary_key', table, key: pkFrom });
  if (pkTo && !pkSame) p.addKeys.push({ kind: 'add_primary_key', table, key: pkTo });
  if (pkFrom && pkTo && pkSame && pkFrom.name !== pkTo.name)
    p.renames.push({ kind: 'rename_constraint', table, from: pkFrom.name, to: pkTo.name });

  // Where a check constraint or a foreign key cannot be renamed, it is dropped and added again.
  const constraintRenames = (
    changes: NamedChanges<{ name: string }>,
    add: (name: string) => void,
    drop: (name: string) => void,
  ) => {
    for (const [oldName, newName] of changes.renamed) {
      if (!engine.renamesConstraints) {
        drop(oldName);
        add(newName);
      } else p.renames.push({ kind: 'rename_constraint', table, from: oldName, to: newName });
    }
  };

  const unique = namedChanges(from.unique_constraints, to.unique_constraints, describeUnique);
  for (const constraint of unique.dropped) p.dropKeys.push({ kind: 'drop_unique', table, constraint });
  for (const constraint of unique.added) p.addKeys.push({ kind: 'add_unique', table, constraint });
  for (const [oldName, newName] of unique.renamed)
    p.renames.push({ kind: 'rename_constraint', table, from: oldName, to: newName });

  const checks = namedChanges(from.check_constraints, to.check_constraints, describeCheck);
  for (const constraint of checks.dropped) p.dropKeys.push({ kind: 'drop_check', table, constraint });
  for (const constraint of checks.added) p.addKeys.push({ kind: 'add_check', table, constraint });
  const checkNamed = (list: TableModel['check_constraints'], name: string) =>
    list.find((c) => c.name === name)!;
  constraintRenames(
    checks,
    (name) =>
      p.addKeys.push({ kind: 'add_check', table, constraint: checkNamed(to.check_constraints, name) }),
    (name) =>
      p.dropKeys.push({ kind: 'drop_check', table, constraint: checkNamed(from.check_constraints, name) }),
  );

  const exclusions = namedChanges(from.exclusion_constraints, to.exclusion_constraints, describeExclusion);
  for (const constraint of exclusions.dropped) p.dropKeys.push({ kind: 'drop_exclusion', table, constraint });
  for (const constraint of exclusions.added) p.addKeys.push({ kind: 'add_exclusion', table, constraint });
  for (const [oldName, newName] of exclusions.renamed)
    p.renames.push({ kind: 'rename_constraint', table, from: oldName, to: newName });

  const keys = namedChanges(from.foreign_keys, to.foreign_keys, describeForeignKey);
  for (const key of keys.dropped) p.dropForeignKeys.push({ kind: 'drop_foreign_key', table, key });
  for (const key of keys.added) p.addForeignKeys.push({ kind: 'add_foreign_key', table, key });
  const keyNamed = (list: TableModel['foreign_keys'], name: string) => list.find((k) => k.name === name)!;
  constraintRenames(
    keys,
    (name) => p.addForeignKeys.push({ kind: 'add_foreign_key', table, key: keyNamed(to.foreign_keys, name) }),
    (name) =>
      p.dropForeignKeys.push({ kind: 'drop_foreign_key', table, key: keyNamed(from.foreign_keys, name) }),
  );

  const indexes = namedChanges(from.indexes, to.indexes, describeIndex);
  const replaced = new Set(indexes.added.map((index) => index.name));
  const concurrent = engine.concurrentIndexes && options.concurrent_indexes === true;
  for (const index of indexes.dropped)
    p.dropKeys.push({
      kind: 'drop_index',
      table,
      index,
      concurrently: concurrent && !index.unique && !replaced.has(index.name),
    });
  for (const index of indexes.added)
    p.indexes.push({ kind: 'create_index', table, index, concurrently: concurrent && !index.unique });
  for (const [oldName, newName] of indexes.renamed)
    p.renames.push({ kind: 'rename_index', table, from: oldName, to: newName });

  if (from.comment !== to.comment)
    p.late.push({ kind: 'set_table_comment', table, before: from.comment, after: to.comment });
}
