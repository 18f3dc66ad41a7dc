// The plan of an anonymization run, before anything is written: which columns of which table get
// which rule (its own, or one taken through a foreign key, compiled for the key column's shape so
// both sides get the same values), which columns must stay distinct, and the groups of tables that
// are rewritten together: a table and every table its transformed keys propagate to form one group,
// done in one transaction with the foreign keys among them set aside and validated after, so each
// group ends either untouched or fully anonymised. Pure: the run handler executes it through the
// row pipeline (modules/anonymize/anonymize-run.ts).
import { rowKeys } from '../patch/rollback-key.ts';
import type { ColumnModel, SchemaModel, TableModel } from '../schema/model.ts';
import { tableKey } from '../schema/model.ts';
import { type ColumnShape, columnShape } from './column-type.ts';
import { keepsDistinct } from './compile.ts';
import type { CheckedRules, ConfigRule } from './config-check.ts';
import { addressKey, type ColumnAddress } from './propagation.ts';

export interface PlannedColumn {
  column: string;
  /** The rule applied: the column's own, or the key's it references. */
  rule: ConfigRule;
  /** The shape the rule is compiled for: the key column's when taken through a foreign key. */
  shape: ColumnShape;
  /** Distinct inputs must give distinct outputs: `unique: true`, or a single-column unique key. */
  unique: boolean;
  /** The key column whose rule it takes, when it takes one through a foreign key. */
  from: ColumnAddress | null;
}

export interface PlannedTable {
  table: string;
  /** The columns rows are matched by when written back (primary key, else a NOT NULL unique key). */
  key: string[];
  columns: PlannedColumn[];
}

export interface TableGroup {
  /** Referenced tables before the tables referencing them. */
  tables: PlannedTable[];
  /** Foreign keys whose columns are transformed: set aside during the group's rewrite, validated after. */
  foreignKeys: { table: string; name: string }[];
}

export interface RunPlan {
  groups: TableGroup[];
  /** Columns that must stay distinct under a rule that cannot keep them so: the run fails before writing. */
  uniqueViolations: { table: string; column: string; message: string }[];
}

function uniqueColumns(table: TableModel): Set<string> {
  const single = [
    ...(table.primary_key ? [table.primary_key.columns] : []),
    ...table.unique_constraints.map((u) => u.columns),
    ...table.indexes.filter((i) => i.unique && i.predicate === null).map((i) => i.columns),
  ].filter((columns) => columns.length === 1);
  return new Set(single.map((columns) => columns[0] as string));
}

/** Groups of `items` connected by `links`, each group in first-seen order (union-find). */
function connected(items: string[], links: [string, string][]): string[][] {
  const parent = new Map(items.map((i) => [i, i]));
  const find = (x: string): string => {
    const p = parent.get(x) as string;
    if (p === x) return x;
    const root = find(p);
    parent.set(x, root);
    return root;
  };
  for (const [a, b] of links) parent.set(find(a), find(b));
  const groups = new Map<string, string[]>();
  for (const item of items) {
    const root = find(item);
    groups.set(root, [...(groups.get(root) ?? []), item]);
  }
  return [...groups.values()];
}

/** Tables in an order where a referenced table comes before those referencing it (cycles: as listed). */
function referencedFirst(tables: string[], links: [string, string][]): string[] {
  const out: string[] = [];
  const placed = new Set<string>();
  const visit = (table: string, path: Set<string>) => {
    if (placed.has(table) || path.has(table)) return;
    path.add(table);
    for (const [referenced, referencing] of links) if (referencing === table) visit(referenced, path);
    placed.add(table);
    out.push(table);
  };
  for (const table of [...tables].sort()) visit(table, new Set());
  return out;
}

/** The plan of a run of checked rules (config-check.ts) on the schema they were checked against. */
export function planRun(model: SchemaModel, checked: CheckedRules): RunPlan {
  const tables = new Map(model.tables.map((t) => [tableKey(t), t]));
  const ruleAt = new Map(checked.rules.map((r) => [addressKey(r), r]));
  const byTable = new Map<string, PlannedColumn[]>();
  const uniqueViolations: RunPlan['uniqueViolations'] = [];
  const column = (table: string, name: string) =>
    (tables.get(table) as TableModel).columns.find((c) => c.name === name) as ColumnModel;

  const add = (table: string, name: string, rule: ConfigRule, from: ColumnAddress | null) => {
    const source = from ? column(from.table, from.column) : column(table, name);
    const shape = columnShape(source.type, source.nullable);
    const unique = rule.options?.unique === true || uniqueColumns(tables.get(table) as TableModel).has(name);
    if (unique && rule.transformer !== 'null' && !keepsDistinct(rule, shape))
      uniqueViolations.push({
        table,
        column: name,
        message: `${table}.${name} must stay unique, and ${rule.transformer} cannot keep distinct values distinct`,
      });
    byTable.set(table, [...(byTable.get(table) ?? []), { column: name, rule, shape, unique, from }]);
  };
  for (const rule of checked.rules) add(rule.table, rule.column, rule, null);
  for (const p of checked.propagated)
    add(p.table, p.column, ruleAt.get(addressKey(p.from)) as ConfigRule, p.from);

  const links: [string, string][] = checked.propagated.map((p) => [p.from.table, p.table]);
  const groups = connected([...byTable.keys()], links).map((members) => ({
    tables: referencedFirst(members, links).map((table) => ({
      table,
      key: rowKeys(tables.get(table) as TableModel)[0] ?? [],
      columns: byTable.get(table) ?? [],
    })),
    foreignKeys: checked.propagated
      .filter((p) => members.includes(p.table))
      .map((p) => ({ table: p.table, name: p.via }))
      .filter((fk, i, all) => all.findIndex((o) => o.table === fk.table && o.name === fk.name) === i),
  }));
  groups.sort((a, b) => ((a.tables[0]?.table ?? '') < (b.tables[0]?.table ?? '') ? -1 : 1));
  return { groups, uniqueViolations };
}

/** The columns a strict run refuses to leave: reported by the PII scan and covered by no rule. */
export function strictViolations<T extends { covered: boolean }>(scanned: readonly T[]): T[] {
  return scanned.filter((c) => !c.covered);
}
