// The diff of the objects beyond tables (objects.ts), for the additive `objects_added`,
// `objects_removed` and `objects_modified` fields of a drift report (docs/contract.md §6): dropping one is
// critical, changing one moderate (a comment alone: minor, as a table's), adding one minor. Objects
// are matched by kind and key (functions by name and argument types, triggers within their table);
// a section is compared only when both models have it, so an old snapshot reports none of them.
import { describeEnumValues, describeSequence } from './describe.ts';
import { type SchemaModel, tableKey } from './model.ts';
import { objectKey, type SchemaObjectFields, triggerKey } from './objects.ts';
import { highestSeverity, type Severity } from './severity.ts';

export const OBJECT_KINDS = [
  'schema',
  'view',
  'materialized_view',
  'function',
  'procedure',
  'trigger',
  'extension',
  'domain',
  'type',
  'policy',
  'collation',
  'enum',
  'sequence',
] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export interface ObjectChange {
  /** What changed: `definition`, `columns`, `options`, `indexes`, `comment`, `state`, `version`, `kind`… */
  kind: string;
  from: string | null;
  to: string | null;
  severity: Severity;
}

export interface ObjectEntry {
  kind: ObjectKind;
  /** `schema.name`; functions with their argument types; triggers as `schema.table.trigger`. */
  name: string;
  severity: Severity;
  changes: ObjectChange[];
}

export interface ObjectsDiff {
  objects_added: ObjectEntry[];
  objects_removed: ObjectEntry[];
  objects_modified: ObjectEntry[];
}

interface Described {
  kind: ObjectKind;
  name: string;
  /** Field → printed value; compared field by field. */
  fields: Record<string, string | null>;
}

const text = (value: unknown) =>
  typeof value === 'string' || value === null ? value : JSON.stringify(value);

type Comparable = SchemaObjectFields &
  Partial<Pick<SchemaModel, 'tables' | 'enums' | 'sequences'>> & { standalone?: Set<string> };

function described(model: Comparable): Map<string, Described> | null {
  const out = new Map<string, Described>();
  const put = (kind: ObjectKind, name: string, fields: Record<string, unknown>) => {
    const printed: Record<string, string | null> = {};
    for (const [key, value] of Object.entries(fields)) printed[key] = text(value) as string | null;
    out.set(`${kind}:${name}`, { kind, name, fields: printed });
  };
  for (const schema of model.schemas ?? []) put('schema', schema.name, { comment: schema.comment });
  for (const view of model.views ?? [])
    put(view.materialized ? 'materialized_view' : 'view', objectKey(view), {
      definition: view.definition,
      columns: view.columns.map((c) => `${c.name} ${c.type}`).join(', '),
      options: view.options.join(', '),
      indexes: view.indexes
        .map((i) => `${i.name} ${i.unique ? 'UNIQUE ' : ''}${i.method} (${i.columns.join(', ')})`)
        .join('; '),
      comment: view.comment,
    });
  for (const routine of model.routines ?? [])
    put(routine.kind, objectKey(routine), {
      arguments: routine.arguments,
      result: routine.result,
      definition: routine.definition,
      comment: routine.comment,
    });
  for (const trigger of model.triggers ?? [])
    put('trigger', triggerKey(trigger), {
      definition: trigger.definition,
      state: trigger.state,
      comment: trigger.comment,
    });
  for (const type of model.types ?? [])
    put(type.kind === 'domain' ? 'domain' : 'type', `${type.schema}.${type.name}`, {
      base: type.base,
      default: type.default,
      collation: type.collation,
      not_null: type.not_null ? 'NOT NULL' : 'NULL',
      checks: type.checks.map((c) => `${c.name} ${c.definition}`).join(', '),
      attributes: type.attributes.map((a) => `${a.name} ${a.type}`).join(', '),
      comment: type.comment,
    });
  for (const table of model.tables ?? [])
    for (const policy of table.policies ?? [])
      put('policy', `${tableKey(table)}.${policy.name}`, {
        command: policy.command,
        permissive: policy.permissive ? 'PERMISSIVE' : 'RESTRICTIVE',
        roles: policy.roles.join(', '),
        using: policy.using,
        check: policy.check,
      });
  for (const collation of model.collations ?? [])
    put('collation', `${collation.schema}.${collation.name}`, {
      provider: collation.provider,
      locale: collation.locale,
      lc_collate: collation.lc_collate,
      lc_ctype: collation.lc_ctype,
      deterministic: collation.deterministic ? 'deterministic' : 'nondeterministic',
    });
  for (const extension of model.extensions ?? [])
    put('extension', extension.name, { schema: extension.schema, version: extension.version });
  // Enums and sequences a column uses are reported with that column's table (diff.ts); the ones
  // no column uses on either side are objects of their own.
  for (const item of model.enums ?? [])
    if (model.standalone?.has(`enum:${objectKey(item)}`))
      put('enum', objectKey(item), { values: describeEnumValues(item.values) });
  for (const item of model.sequences ?? [])
    if (model.standalone?.has(`sequence:${objectKey(item)}`))
      put('sequence', objectKey(item), { definition: describeSequence(item) });
  return out;
}

const byName = (a: ObjectEntry, b: ObjectEntry) => {
  const x = `${a.kind}:${a.name}`;
  const y = `${b.kind}:${b.name}`;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Keeps only the sections both models have (older snapshots lack them). */
function comparable(from: SchemaModel, to: SchemaModel): [Comparable, Comparable] {
  const a: Comparable = {};
  const b: Comparable = {};
  // Policies live in tables; both models must know them (model version 2).
  if (from.model_version !== undefined && to.model_version !== undefined) {
    a.tables = from.tables;
    b.tables = to.tables;
  }
  // Enums and sequences no column uses are managed since model version 3.
  if ((from.model_version ?? 1) >= 3 && (to.model_version ?? 1) >= 3) {
    const used = new Set<string>();
    for (const model of [from, to]) {
      for (const item of model.enums) if (item.used_by.length > 0) used.add(`enum:${objectKey(item)}`);
      for (const item of model.sequences)
        if (item.used_by.length > 0) used.add(`sequence:${objectKey(item)}`);
    }
    const standalone = new Set<string>();
    for (const model of [from, to]) {
      for (const item of model.enums) standalone.add(`enum:${objectKey(item)}`);
      for (const item of model.sequences) standalone.add(`sequence:${objectKey(item)}`);
    }
    for (const key of used) standalone.delete(key);
    Object.assign(a, { enums: from.enums, sequences: from.sequences, standalone });
    Object.assign(b, { enums: to.enums, sequences: to.sequences, standalone });
  }
  for (const key of [
    'schemas',
    'views',
    'routines',
    'triggers',
    'extensions',
    'types',
    'collations',
  ] as const) {
    if (from[key] !== undefined && to[key] !== undefined) {
      Object.assign(a, { [key]: from[key] });
      Object.assign(b, { [key]: to[key] });
    }
  }
  return [a, b];
}

export function diffObjects(from: SchemaModel, to: SchemaModel): ObjectsDiff {
  const [a, b] = comparable(from, to);
  const before = described(a)!;
  const after = described(b)!;
  const diff: ObjectsDiff = { objects_added: [], objects_removed: [], objects_modified: [] };
  for (const [key, item] of after) {
    const old = before.get(key);
    if (!old) {
      diff.objects_added.push({ kind: item.kind, name: item.name, severity: 'minor', changes: [] });
      continue;
    }
    const changes: ObjectChange[] = [];
    for (const field of Object.keys(item.fields)) {
      const [x, y] = [old.fields[field] ?? null, item.fields[field] ?? null];
      if (x !== y)
        changes.push({ kind: field, from: x, to: y, severity: field === 'comment' ? 'minor' : 'moderate' });
    }
    if (changes.length > 0)
      diff.objects_modified.push({
        kind: item.kind,
        name: item.name,
        severity: highestSeverity(changes.map((c) => c.severity))!,
        changes,
      });
  }
  for (const [key, item] of before)
    if (!after.has(key))
      diff.objects_removed.push({ kind: item.kind, name: item.name, severity: 'critical', changes: [] });
  diff.objects_added.sort(byName);
  diff.objects_removed.sort(byName);
  diff.objects_modified.sort(byName);
  return diff;
}
