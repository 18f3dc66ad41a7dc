// What a bridge run copies (docs/contract.md §9.3), decided from the source's and the target's schemas before
// anything is written: which tables (named, or every source table the target has), matched to which
// target table, which columns (by name; source columns the target lacks are skipped and named;
// target columns it generates itself are left to it), the kinds of their values at both ends, and
// the order (parents first). Problems come in two sorts: the request's (422, with where in the body)
// and the data's (the run fails before writing, naming them). Pure.
import type { ValueKind } from '../rows/value-kind.ts';
import type { ColumnModel, SchemaModel, TableModel } from '../schema/model.ts';
import { parentsFirst } from './table-order.ts';

export interface KindsOf {
  source(type: string): ValueKind;
  target(type: string): ValueKind;
  /** Why the target cannot hold a value of `kind` in a column of `type`, or null. */
  refusal(kind: ValueKind, type: string): string | null;
}

export interface PlannedTable {
  /** How results and messages name it: the source's `schema.table`, or `table` on MySQL. */
  name: string;
  source: TableModel;
  /** Null when create_tables creates it (the translated model replaces it then). */
  target: TableModel | null;
  columns: string[];
  sourceKinds: ValueKind[];
  targetKinds: ValueKind[];
  /** Source columns the target does not have. */
  skippedColumns: string[];
}

export interface RequestProblem {
  loc: (string | number)[];
  message: string;
}

export const displayName = (table: { schema: string | null; name: string }) =>
  table.schema === null ? table.name : `${table.schema}.${table.name}`;

/** The source tables a name in the request means: `schema.table`, or a bare name in any schema. */
function lookup(model: SchemaModel, name: string): TableModel[] {
  const exact = model.tables.filter((t) => displayName(t) === name);
  return exact.length > 0 ? exact : model.tables.filter((t) => t.name === name);
}

/**
 * The target table a source table is copied into: the same schema and name between two engines of
 * one kind; across engines the same name (PostgreSQL's `public` first when several schemas have it).
 */
export function targetTableOf(
  source: TableModel,
  from: SchemaModel,
  to: SchemaModel,
): TableModel | undefined {
  if (from.dialect === to.dialect)
    return to.tables.find((t) => t.schema === source.schema && t.name === source.name);
  const named = to.tables.filter((t) => t.name === source.name);
  return named.find((t) => t.schema === 'public') ?? named[0];
}

/** The tables of the request, or the problems with it (each a 422 entry). */
export function resolveTables(
  source: SchemaModel,
  target: SchemaModel,
  request: { tables?: string[] | undefined; create_tables?: boolean | undefined },
): { tables: TableModel[]; problems: RequestProblem[] } {
  const problems: RequestProblem[] = [];
  const create = request.create_tables === true;
  if (request.tables === undefined) {
    const tables = source.tables.filter((t) => create || targetTableOf(t, source, target) !== undefined);
    return { tables, problems };
  }
  const tables: TableModel[] = [];
  request.tables.forEach((name, i) => {
    const found = lookup(source, name);
    if (found.length === 0)
      problems.push({ loc: ['body', 'tables', i], message: `Unknown table ${name} in the source` });
    else if (found.length > 1)
      problems.push({ loc: ['body', 'tables', i], message: `${name} is ambiguous: name it with its schema` });
    else if (!create && targetTableOf(found[0]!, source, target) === undefined)
      problems.push({
        loc: ['body', 'tables', i],
        message: `The target has no table ${name}: create it first, or send create_tables: true`,
      });
    else if (!tables.includes(found[0]!)) tables.push(found[0]!);
  });
  return { tables, problems };
}

/** The target generates these itself: writing them would fail or be ignored. */
const generatedByTarget = (column: ColumnModel) => column.generated !== null;

/** A target column the copy must fill, because nothing else will. */
const needsValue = (column: ColumnModel) =>
  !column.nullable &&
  column.default === null &&
  column.identity === null &&
  !column.auto_increment &&
  column.generated === null;

/**
 * The plan of the copy, parents first, or the data problems that stop the run before it writes
 * (a target NOT NULL column the source lacks, a value kind the target cannot hold).
 */
export function planCopy(
  source: SchemaModel,
  target: SchemaModel,
  tables: TableModel[],
  kinds: KindsOf,
  created: (source: TableModel) => TableModel | undefined = () => undefined,
): { tables: PlannedTable[]; problems: string[] } {
  const problems: string[] = [];
  const planned = new Map<string, PlannedTable>();
  for (const table of tables) {
    const existing = targetTableOf(table, source, target);
    const into = existing ?? created(table);
    if (!into) {
      problems.push(`The target has no table ${displayName(table)}`);
      continue;
    }
    const columns: string[] = [];
    const skipped: string[] = [];
    const sourceKinds: ValueKind[] = [];
    const targetKinds: ValueKind[] = [];
    for (const column of table.columns) {
      const match = into.columns.find((c) => c.name === column.name);
      if (!match) {
        skipped.push(column.name);
        continue;
      }
      if (generatedByTarget(match)) continue;
      const kind = kinds.source(column.type);
      const refusal = kinds.refusal(kind, match.type);
      if (refusal) problems.push(`${displayName(table)}.${column.name}: ${refusal}`);
      columns.push(column.name);
      sourceKinds.push(kind);
      targetKinds.push(kinds.target(match.type));
    }
    for (const column of into.columns)
      if (needsValue(column) && !table.columns.some((c) => c.name === column.name))
        problems.push(
          `The target column ${displayName(into)}.${column.name} is NOT NULL without a default and the source has no such column`,
        );
    const name = displayName(table);
    planned.set(name, {
      name,
      source: table,
      target: existing ?? null,
      columns,
      sourceKinds,
      targetKinds,
      skippedColumns: skipped,
    });
  }
  const order = parentsFirst(
    [...planned.values()].map((p) => ({
      key: p.name,
      parents: p.source.foreign_keys.map((fk) =>
        displayName({ schema: fk.referenced_schema ?? p.source.schema, name: fk.referenced_table }),
      ),
    })),
  );
  return { tables: order.map((key) => planned.get(key)!), problems };
}
