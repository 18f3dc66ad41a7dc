// The diff of two schema models, as docs/contract.md §6's DriftReport `diff`: tables added, removed, and
// modified with their changes, each with a kind and a severity (the table of kinds is in
// severity.ts). Pure: compares models, asks no server.
//
// What it compares: everything in the model's managed scope except column order, raw defaults
// (normalised ones are compared), the server version, `used_by` lists and unmanaged objects (see
// `diffUnmanaged` for those). Tables and columns are matched by name: a rename shows as a removal and
// an addition. Constraints and indexes are matched by name, then leftovers with the same definition
// are paired as renamed. Enum and sequence changes are reported under every table whose columns use
// them; enums and sequences that appear or disappear with a column are covered by the column change.

import {
  describeCheck,
  describeColumn,
  describeEnumValues,
  describeExclusion,
  describeForeignKey,
  describeGenerated,
  describeIdentity,
  describeIndex,
  describePrimaryKey,
  describeSequence,
  describeTableStorage,
  describeUnique,
} from './describe.ts';
import { diffComments } from './diff-comments.ts';
import {
  describeInherits,
  describePartitioning,
  describeSequenceOptions,
  diffValidity,
} from './diff-lineage.ts';
import { diffObjects, type ObjectsDiff } from './diff-objects.ts';
import { type EngineTraits, traitsOf } from './engine-traits.ts';
import {
  type ColumnModel,
  type SchemaModel,
  type TableModel,
  tableKey,
  type UnmanagedObject,
} from './model.ts';
import { looseDefault } from './normalize.ts';
import { CHANGE_SEVERITY, type ChangeKind, highestSeverity, type Severity } from './severity.ts';

export interface SchemaChange {
  kind: ChangeKind;
  /** The column, constraint or index name within the table; `schema.name` for enums and sequences. */
  object: string;
  from: string | null;
  to: string | null;
  severity: Severity;
}

export interface TableEntry {
  table: string;
  severity: Severity;
}

export interface TableChanges {
  table: string;
  /** The highest severity of its changes. */
  severity: Severity;
  changes: SchemaChange[];
}

export interface SchemaDiff extends Partial<ObjectsDiff> {
  tables_added: TableEntry[];
  tables_removed: TableEntry[];
  tables_modified: TableChanges[];
}

export interface DiffSummary {
  critical: number;
  moderate: number;
  minor: number;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What changed from `from` (e.g. the baseline) to `to` (e.g. the live schema). */
export function diffSchemas(from: SchemaModel, to: SchemaModel): SchemaDiff {
  const before = new Map(from.tables.map((table) => [tableKey(table), table]));
  const after = new Map(to.tables.map((table) => [tableKey(table), table]));
  const tablesAdded = [...after.keys()].filter((key) => !before.has(key)).sort(byText);
  const tablesRemoved = [...before.keys()].filter((key) => !after.has(key)).sort(byText);

  const changes = new Map<string, SchemaChange[]>();
  for (const [key, table] of after) {
    const previous = before.get(key);
    if (previous) changes.set(key, diffTable(previous, table, traitsOf(to.dialect)));
  }
  for (const [key, change] of typeChanges(from, to)) changes.get(key)?.push(change);

  const modified: TableChanges[] = [];
  for (const key of [...changes.keys()].sort(byText)) {
    const list = changes.get(key)!;
    if (list.length === 0) continue;
    modified.push({ table: key, severity: highestSeverity(list.map((c) => c.severity))!, changes: list });
  }
  return {
    tables_added: tablesAdded.map((table) => ({ table, severity: CHANGE_SEVERITY.table_added })),
    tables_removed: tablesRemoved.map((table) => ({ table, severity: CHANGE_SEVERITY.table_removed })),
    tables_modified: modified,
    ...diffObjects(from, to),
  };
}

/**
 * The report's highest severity and its counts. Cosmetic changes are not counted: the summary has
 * the three levels of docs/contract.md §6, and a cosmetic change alone never warrants an alert.
 */
export function summarizeDiff(diff: SchemaDiff): { severity: Severity | null; summary: DiffSummary } {
  const summary: DiffSummary = { critical: 0, moderate: 0, minor: 0 };
  const all: Severity[] = [
    ...diff.tables_added.map((t) => t.severity),
    ...diff.tables_removed.map((t) => t.severity),
    ...diff.tables_modified.flatMap((t) => t.changes.map((c) => c.severity)),
    ...[...(diff.objects_added ?? []), ...(diff.objects_removed ?? []), ...(diff.objects_modified ?? [])].map(
      (o) => o.severity,
    ),
  ];
  for (const severity of all) if (severity !== 'cosmetic') summary[severity] += 1;
  return { severity: highestSeverity(all), summary };
}

export function isEmptyDiff(diff: SchemaDiff): boolean {
  return (
    diff.tables_added.length === 0 &&
    diff.tables_removed.length === 0 &&
    diff.tables_modified.length === 0 &&
    (diff.objects_added ?? []).length === 0 &&
    (diff.objects_removed ?? []).length === 0 &&
    (diff.objects_modified ?? []).length === 0
  );
}

/** Views, functions, triggers… that appeared or disappeared: for information, outside the diff. */
export function diffUnmanaged(
  from: SchemaModel,
  to: SchemaModel,
): { added: UnmanagedObject[]; removed: UnmanagedObject[] } {
  const key = (item: UnmanagedObject) => JSON.stringify([item.kind, item.schema, item.table, item.name]);
  const before = new Set(from.unmanaged.map(key));
  const after = new Set(to.unmanaged.map(key));
  return {
    added: to.unmanaged.filter((item) => !before.has(key(item))),
    removed: from.unmanaged.filter((item) => !after.has(key(item))),
  };
}

function change(kind: ChangeKind, object: string, from: string | null, to: string | null): SchemaChange {
  return { kind, object, from, to, severity: CHANGE_SEVERITY[kind] };
}

function diffTable(from: TableModel, to: TableModel, engine: EngineTraits): SchemaChange[] {
  const out: SchemaChange[] = [];
  if (from.comment !== to.comment)
    out.push(change('table_comment_changed', to.name, from.comment, to.comment));
  const [partA, partB] = [describePartitioning(from), describePartitioning(to)];
  if (partA !== partB) out.push(change('table_partitioning_changed', to.name, partA, partB));
  const [inhA, inhB] = [describeInherits(from), describeInherits(to)];
  if (inhA !== inhB) out.push(change('table_inheritance_changed', to.name, inhA, inhB));
  out.push(...diffValidity(from, to));
  out.push(...diffComments(from, to));
  const security = (t: TableModel) => {
    const s = t.row_security;
    return !s || (!s.enabled && !s.forced) ? 'DISABLED' : `ENABLED${s.forced ? ' FORCED' : ''}`;
  };
  const options = (t: TableModel) =>
    t.table_options
      ? `ENGINE=${t.table_options.engine} COLLATE=${t.table_options.collation}${t.table_options.row_format ? ` ROW_FORMAT=${t.table_options.row_format}` : ''}${t.table_options.system_versioning ? ' WITH SYSTEM VERSIONING' : ''}`
      : describeTableStorage(t.table_storage);
  if (options(from) !== options(to))
    out.push(change('table_options_changed', to.name, options(from), options(to)));
  if (security(from) !== security(to))
    out.push(change('row_security_changed', to.name, security(from), security(to)));
  out.push(...diffColumns(from.columns, to.columns));

  const pkBefore = from.primary_key;
  const pkAfter = to.primary_key;
  if (pkBefore && !pkAfter)
    out.push(change('primary_key_removed', pkBefore.name, describePrimaryKey(pkBefore), null));
  if (!pkBefore && pkAfter)
    out.push(change('primary_key_added', pkAfter.name, null, describePrimaryKey(pkAfter)));
  if (pkBefore && pkAfter) {
    const [a, b] = [describePrimaryKey(pkBefore), describePrimaryKey(pkAfter)];
    if (a !== b) out.push(change('primary_key_changed', pkAfter.name, a, b));
    else if (pkBefore.name !== pkAfter.name)
      out.push(change('constraint_renamed', pkAfter.name, pkBefore.name, pkAfter.name));
  }

  out.push(...diffNamed(from.unique_constraints, to.unique_constraints, describeUnique, 'unique_constraint'));
  out.push(...diffNamed(from.check_constraints, to.check_constraints, describeCheck, 'check_constraint'));
  out.push(
    ...diffNamed(
      from.exclusion_constraints,
      to.exclusion_constraints,
      describeExclusion,
      'exclusion_constraint',
    ),
  );
  out.push(...diffNamed(from.foreign_keys, to.foreign_keys, describeForeignKey, 'foreign_key'));

  let indexChanges = diffNamed(from.indexes, to.indexes, describeIndex, 'index');
  if (engine.foreignKeysOnIndexes) {
    // The engine creates an index for every new foreign key that has none: not drift.
    const existing = new Set(from.foreign_keys.map((key) => key.name));
    const newKeyColumns = new Set(
      to.foreign_keys.filter((key) => !existing.has(key.name)).map((key) => JSON.stringify(key.columns)),
    );
    const implicit = new Set(
      to.indexes.filter((i) => !i.unique && newKeyColumns.has(JSON.stringify(i.columns))).map((i) => i.name),
    );
    indexChanges = indexChanges.filter((c) => !(c.kind === 'index_added' && implicit.has(c.object)));
  }
  out.push(...indexChanges);
  return out;
}

function diffColumns(from: ColumnModel[], to: ColumnModel[]): SchemaChange[] {
  const out: SchemaChange[] = [];
  const before = new Map(from.map((column) => [column.name, column]));
  const names = new Set(to.map((column) => column.name));
  for (const column of from) {
    if (!names.has(column.name))
      out.push(change('column_removed', column.name, describeColumn(column), null));
  }
  for (const column of to) {
    const previous = before.get(column.name);
    if (!previous) out.push(change('column_added', column.name, null, describeColumn(column)));
    else out.push(...diffColumn(previous, column));
  }
  return out;
}

function diffColumn(a: ColumnModel, b: ColumnModel): SchemaChange[] {
  const out: SchemaChange[] = [];
  const name = b.name;
  if (a.type !== b.type) out.push(change('column_type_changed', name, a.type, b.type));
  if (a.nullable && !b.nullable) out.push(change('column_not_null_added', name, 'NULL', 'NOT NULL'));
  if (!a.nullable && b.nullable) out.push(change('column_not_null_dropped', name, 'NOT NULL', 'NULL'));
  if (a.default_normalized !== b.default_normalized) {
    if (looseDefault(a.default_normalized) === looseDefault(b.default_normalized)) {
      out.push(change('column_default_reformatted', name, a.default, b.default));
    } else {
      out.push(change('column_default_changed', name, a.default_normalized, b.default_normalized));
    }
  }
  if (a.identity !== b.identity) {
    out.push(change('column_identity_changed', name, describeIdentity(a), describeIdentity(b)));
  } else if (a.identity !== null && a.identity_options && b.identity_options) {
    const [x, y] = [describeSequenceOptions(a.identity_options), describeSequenceOptions(b.identity_options)];
    if (x !== y) out.push(change('column_identity_options_changed', name, x, y));
  }
  if (a.auto_increment !== b.auto_increment) {
    const text = (on: boolean) => (on ? 'AUTO_INCREMENT' : null);
    out.push(change('column_auto_increment_changed', name, text(a.auto_increment), text(b.auto_increment)));
  }
  const [generatedA, generatedB] = [describeGenerated(a), describeGenerated(b)];
  if (generatedA !== generatedB) out.push(change('column_generated_changed', name, generatedA, generatedB));
  if (a.on_update !== b.on_update)
    out.push(change('column_on_update_changed', name, a.on_update, b.on_update));
  if (a.collation !== b.collation)
    out.push(change('column_collation_changed', name, a.collation, b.collation));
  if (a.comment !== b.comment) out.push(change('column_comment_changed', name, a.comment, b.comment));
  if (!!a.invisible !== !!b.invisible)
    out.push(
      change(
        'column_visibility_changed',
        name,
        a.invisible ? 'INVISIBLE' : 'VISIBLE',
        b.invisible ? 'INVISIBLE' : 'VISIBLE',
      ),
    );
  return out;
}

type NamedKind = 'unique_constraint' | 'check_constraint' | 'exclusion_constraint' | 'foreign_key' | 'index';

/** Added, removed, changed, and renamed (same definition, other name) objects of one kind. */
function diffNamed<T extends { name: string }>(
  from: T[],
  to: T[],
  describe: (item: T) => string,
  kind: NamedKind,
): SchemaChange[] {
  const out: SchemaChange[] = [];
  const before = new Map(from.map((item) => [item.name, describe(item)]));
  const after = new Map(to.map((item) => [item.name, describe(item)]));
  for (const [name, text] of after) {
    const previous = before.get(name);
    if (previous !== undefined && previous !== text)
      out.push(change(`${kind}_changed`, name, previous, text));
  }
  const removed = [...before].filter(([name]) => !after.has(name)).sort(([a], [b]) => byText(a, b));
  const added = [...after].filter(([name]) => !before.has(name)).sort(([a], [b]) => byText(a, b));
  const renamedKind: ChangeKind = kind === 'index' ? 'index_renamed' : 'constraint_renamed';
  for (const [oldName, text] of removed) {
    const match = added.findIndex(([, candidate]) => candidate === text);
    if (match >= 0) {
      const [newName] = added.splice(match, 1)[0]!;
      out.push(change(renamedKind, newName, oldName, newName));
    } else {
      out.push(change(`${kind}_removed`, oldName, text, null));
    }
  }
  for (const [name, text] of added) out.push(change(`${kind}_added`, name, null, text));
  return out;
}

/** Enum and sequence changes, keyed by the tables whose columns use them. */
function typeChanges(from: SchemaModel, to: SchemaModel): [string, SchemaChange][] {
  const out: [string, SchemaChange][] = [];
  const usedBy = (refs: { schema: string | null; table: string }[], more: typeof refs) =>
    [...new Set([...refs, ...more].map((ref) => tableKey({ schema: ref.schema, name: ref.table })))].sort(
      byText,
    );

  const enums = new Map(from.enums.map((item) => [`${item.schema}.${item.name}`, item]));
  for (const item of to.enums) {
    const key = `${item.schema}.${item.name}`;
    const previous = enums.get(key);
    if (!previous || JSON.stringify(previous.values) === JSON.stringify(item.values)) continue;
    const onlyAdded = previous.values.every((value, i, values) => {
      const at = item.values.indexOf(value);
      return at >= 0 && (i === 0 || at > item.values.indexOf(values[i - 1]!));
    });
    const kind = onlyAdded ? 'enum_values_added' : 'enum_values_changed';
    const [a, b] = [describeEnumValues(previous.values), describeEnumValues(item.values)];
    for (const table of usedBy(previous.used_by, item.used_by)) out.push([table, change(kind, key, a, b)]);
  }

  const sequences = new Map(from.sequences.map((item) => [`${item.schema}.${item.name}`, item]));
  for (const item of to.sequences) {
    const key = `${item.schema}.${item.name}`;
    const previous = sequences.get(key);
    if (!previous) continue;
    const [a, b] = [describeSequence(previous), describeSequence(item)];
    if (a === b) continue;
    for (const table of usedBy(previous.used_by, item.used_by))
      out.push([table, change('sequence_changed', key, a, b)]);
  }
  return out;
}
