// The seed planner (API §9.1), pure: a definition checked against the schema model and turned into
// the tables to fill in foreign-key order, each column's generator (given or inferred), the keys
// the service writes, the unique keys to keep, and where a cycle of foreign keys is broken.
// Self-references and cycles are broken at nullable foreign keys: those are written empty and
// filled after every row exists, by set-based UPDATEs joined on the table's primary key. A cycle
// that only NOT NULL keys close, a parent that is neither in the scenario nor already holds rows,
// and everything resolve.ts refuses are problems (422 naming them).
import { parentsFirst } from '../bridge/table-order.ts';
import { findTable } from '../patch/rollback-key.ts';
import { type ForeignKeyModel, type SchemaModel, type TableModel, tableKey } from '../schema/model.ts';
import { type SeedColumn, seedColumn } from './column-kind.ts';
import type { DefinitionProblem, GeneratorSpec, SeedDefinition } from './definition.ts';
import { inferGenerator } from './infer.ts';
import { type ColumnLimits, type PredicateTerm, readCheck, readPredicate } from './limits.ts';
import { distinctCapacity, resolveExplicit } from './resolve.ts';
import type { ResolvedColumn } from './resolved.ts';

export interface UniqueKey {
  name: string;
  columns: string[];
  /** The rows a partial index covers; null: every row. */
  predicate: PredicateTerm[] | null;
}

export interface PlannedReference {
  fk: ForeignKeyModel;
  /** The parent's tableKey. */
  parent: string;
  distribution: 'uniform' | 'zipf';
  /** Written empty, filled by an UPDATE once every row exists (a self-reference or a broken cycle). */
  deferred: boolean;
  /** The parent is the table itself: a row points at an earlier row (a tree), the first at none. */
  self: boolean;
}

export interface PlannedTable {
  key: string;
  table: TableModel;
  rows: number;
  /** The columns written, in the table's order, each with its generator. */
  columns: ResolvedColumn[];
  seedColumns: Map<string, SeedColumn>;
  references: PlannedReference[];
  uniqueKeys: UniqueKey[];
  /** The primary key (what a cycle-closing UPDATE joins on). */
  primaryKey: string[];
}

export interface SeedPlan {
  locale: string;
  /** In load order: parents first. */
  tables: PlannedTable[];
  /** Parents outside the scenario whose existing rows the references draw from. */
  outsideParents: string[];
}

/** Whether a table holds rows (the planner is pure: the caller asks the database). */
export type Populated = (key: string) => boolean;

const referencedKey = (table: TableModel, fk: ForeignKeyModel) =>
  tableKey({ schema: fk.referenced_schema ?? table.schema, name: fk.referenced_table });

function limitsOf(table: TableModel): Map<string, ColumnLimits> {
  const out = new Map<string, ColumnLimits>();
  for (const check of table.check_constraints) readCheck(check.expression, out);
  // MariaDB keeps a CHECK declared with its column on the column.
  for (const column of table.columns) if (column.check) readCheck(column.check, out);
  return out;
}

function uniqueKeysOf(table: TableModel): UniqueKey[] {
  const names = new Set(table.columns.map((c) => c.name));
  const keys: UniqueKey[] = [];
  if (table.primary_key)
    keys.push({ name: table.primary_key.name, columns: table.primary_key.columns, predicate: null });
  for (const u of table.unique_constraints) keys.push({ name: u.name, columns: u.columns, predicate: null });
  for (const index of table.indexes.filter((i) => i.unique)) {
    // Expression and prefix parts cannot be tracked here; the database still enforces them.
    if (!index.columns.every((c) => names.has(c))) continue;
    keys.push({
      name: index.name,
      columns: index.columns,
      predicate: index.predicate === null ? null : readPredicate(index.predicate),
    });
  }
  return keys;
}

const sequenced = (table: TableModel, column: string) => {
  const c = table.columns.find((x) => x.name === column);
  return (
    c !== undefined && (c.identity !== null || c.auto_increment || (c.default ?? '').includes('nextval('))
  );
};

/** Tarjan's strongly connected components of the scenario's reference graph. */
function components(keys: string[], edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      out.push(component);
    }
  };
  for (const key of keys) if (!index.has(key)) visit(key);
  return out;
}

export function planSeed(
  model: SchemaModel,
  definition: SeedDefinition,
  populated: Populated,
): { problems: DefinitionProblem[]; plan: SeedPlan | null } {
  const problems: DefinitionProblem[] = [];
  const referenced = new Set(
    model.tables.flatMap((t) =>
      t.foreign_keys.map((fk) => `${referencedKey(t, fk)}\u0000${fk.referenced_columns.join(',')}`),
    ),
  );
  const located = new Map<
    string,
    { at: number; table: TableModel; spec: SeedDefinition['tables'][number] }
  >();
  definition.tables.forEach((spec, at) => {
    const table = findTable(model, spec.table);
    if (!table) {
      problems.push({
        loc: ['definition', 'tables', at, 'table'],
        msg: `Unknown table ${spec.table}`,
        type: 'unknown_table',
      });
      return;
    }
    if (located.has(tableKey(table))) {
      problems.push({
        loc: ['definition', 'tables', at, 'table'],
        msg: `${tableKey(table)} is listed twice`,
        type: 'duplicate',
      });
      return;
    }
    located.set(tableKey(table), { at, table, spec });
  });

  const planned: PlannedTable[] = [];
  for (const [key, { at, table, spec }] of located) {
    const loc = (...rest: (string | number)[]) => ['definition', 'tables', at, ...rest];
    const given: Record<string, GeneratorSpec> = spec.columns ?? {};
    const names = table.columns.map((c) => c.name);
    for (const name of Object.keys(given))
      if (!names.includes(name))
        problems.push({
          loc: loc('columns', name),
          msg: `Unknown column ${name} of ${key}`,
          type: 'unknown_column',
        });
    const limits = limitsOf(table);
    const seedColumns = new Map(
      table.columns.map((c) => [c.name, seedColumn(model, table, c, limits.get(c.name) ?? {})]),
    );
    const uniqueKeys = uniqueKeysOf(table);
    const singleUnique = new Set(
      uniqueKeys
        .filter((k) => k.columns.length === 1 && k.predicate === null)
        .map((k) => k.columns[0] as string),
    );
    const pk = table.primary_key?.columns ?? [];

    // Foreign keys: a reference unless the definition gives their columns something else.
    const references: PlannedReference[] = [];
    const byReference = new Set<string>();
    for (const fk of table.foreign_keys) {
      const explicit = fk.columns.map((c) => given[c]).filter((g) => g !== undefined);
      if (explicit.some((g) => g.kind !== 'reference')) continue;
      if (fk.columns.some((c) => byReference.has(c))) continue;
      const parent = referencedKey(table, fk);
      const nullable = fk.columns.every((c) => seedColumns.get(c)?.column.nullable);
      const parentRows = located.get(parent)?.spec.rows ?? 0;
      if (!populated(parent) && parentRows === 0 && spec.rows > 0) {
        problems.push({
          loc: loc('table'),
          msg: `${key}.${fk.columns.join(', ')} references ${parent}, which is neither in the scenario (with rows) nor holds rows${nullable ? ' (give the column {"kind": "null"} to leave it empty)' : ''}`,
          type: 'parent_missing',
        });
        continue;
      }
      const distribution = (explicit[0]?.distribution ?? 'uniform') as 'uniform' | 'zipf';
      references.push({ fk, parent, distribution, deferred: false, self: parent === key });
      for (const c of fk.columns) byReference.add(c);
    }

    const columns: ResolvedColumn[] = [];
    for (const column of table.columns) {
      const seed = seedColumns.get(column.name) as SeedColumn;
      const colSpec = given[column.name];
      const unique = colSpec?.unique === true || singleUnique.has(column.name);
      const nullRatio = colSpec?.null_ratio ?? 0;
      if (nullRatio > 0 && !column.nullable) {
        problems.push({
          loc: loc('columns', column.name, 'null_ratio'),
          msg: `${column.name} is NOT NULL: null_ratio must be 0`,
          type: 'generator_mismatch',
        });
        continue;
      }
      if (byReference.has(column.name)) {
        const reference = references.find((r) => r.fk.columns.includes(column.name))!;
        columns.push({
          name: column.name,
          generator: { kind: 'reference', fk: reference.fk, distribution: reference.distribution },
          nullRatio,
          unique,
          origin: colSpec ? 'given' : 'foreign_key',
        });
        continue;
      }
      if (colSpec?.kind === 'reference') {
        problems.push({
          loc: loc('columns', column.name),
          msg: `${column.name} is not a column of a foreign key: a reference does not fit it`,
          type: 'generator_mismatch',
        });
        continue;
      }
      if (colSpec) {
        const resolved = resolveExplicit(seed, colSpec, names);
        if (!resolved.ok) {
          problems.push({
            loc: loc('columns', column.name),
            msg: `${key}.${column.name}: ${resolved.msg}`,
            type: resolved.type,
          });
          continue;
        }
        const capacity = distinctCapacity(resolved.generator);
        if (unique && capacity !== null && capacity < spec.rows)
          problems.push({
            loc: loc('columns', column.name),
            msg: `${key}.${column.name} is unique, but its ${colSpec.kind} generator has only ${capacity} distinct values for ${spec.rows} rows`,
            type: 'unique_capacity',
          });
        if (resolved.generator.kind !== 'default')
          columns.push({
            name: column.name,
            generator: resolved.generator,
            nullRatio,
            unique,
            origin: 'given',
          });
        continue;
      }
      // Inferred.
      if (column.generated) continue;
      const isIntegerKey = pk.length === 1 && pk[0] === column.name && seed.family === 'integer';
      if (sequenced(table, column.name) || isIntegerKey) {
        const isReferenced = referenced.has(`${key}\u0000${column.name}`);
        if (isReferenced || (isIntegerKey && !sequenced(table, column.name)))
          columns.push({
            name: column.name,
            generator: { kind: 'key' },
            nullRatio: 0,
            unique: true,
            origin: 'key',
          });
        continue;
      }
      const inferred = inferGenerator(seed);
      if (inferred && unique) widenForUnique(seed, inferred.generator, spec.rows);
      if (inferred) {
        const capacity = distinctCapacity(inferred.generator);
        if (unique && capacity !== null && capacity < spec.rows)
          problems.push({
            loc: loc('columns', column.name),
            msg: `${key}.${column.name} is unique, but only ${capacity} distinct values fit it for ${spec.rows} rows`,
            type: 'unique_capacity',
          });
        columns.push({
          name: column.name,
          generator: inferred.generator,
          nullRatio,
          unique,
          origin: inferred.rule,
        });
      } else if (column.nullable)
        columns.push({
          name: column.name,
          generator: { kind: 'null' },
          nullRatio: 0,
          unique: false,
          origin: 'null',
        });
      else if (column.default === null)
        problems.push({
          loc: loc('columns', column.name),
          msg: `${key}.${column.name} of type ${column.type} is NOT NULL and has no default: give it a generator`,
          type: 'generator_required',
        });
    }
    // Rows need at least one column in the stream: a table the database fills alone (a serial
    // key and defaults) gets its integer key written by the service.
    if (columns.length === 0 && spec.rows > 0) {
      const only = pk.length === 1 ? seedColumns.get(pk[0] as string) : undefined;
      if (only?.family === 'integer' && !only.column.generated)
        columns.push({
          name: only.column.name,
          generator: { kind: 'key' },
          nullRatio: 0,
          unique: true,
          origin: 'key',
        });
      else
        problems.push({
          loc: loc('columns'),
          msg: `${key}: every column is left to the database; give one a generator so rows can be written`,
          type: 'generator_required',
        });
    }
    const templateProblem = orderTemplates(columns);
    if (templateProblem)
      problems.push({ loc: loc('columns'), msg: `${key}: ${templateProblem}`, type: 'unknown_column' });
    planned.push({
      key,
      table,
      rows: spec.rows,
      columns,
      seedColumns,
      references,
      uniqueKeys,
      primaryKey: pk,
    });
  }

  // Cycles: every nullable reference inside a strongly connected component is deferred; what stays
  // must be acyclic, or a cycle of NOT NULL keys is refused.
  const byKey = new Map(planned.map((p) => [p.key, p]));
  const edges = new Map(
    planned.map((p) => [
      p.key,
      new Set(p.references.filter((r) => byKey.has(r.parent)).map((r) => r.parent)),
    ]),
  );
  for (const component of components([...byKey.keys()], edges)) {
    const members = new Set(component);
    const cyclic = component.length > 1 || edges.get(component[0]!)?.has(component[0]!);
    if (!cyclic) continue;
    for (const key of component) {
      const p = byKey.get(key)!;
      for (const r of p.references)
        if (members.has(r.parent) && r.fk.columns.every((c) => p.seedColumns.get(c)?.column.nullable))
          r.deferred = true;
      if (p.references.some((r) => r.deferred) && p.primaryKey.length === 0)
        problems.push({
          loc: ['definition', 'tables', located.get(key)!.at, 'table'],
          msg: `${key} closes a cycle of foreign keys but has no primary key to fill it by`,
          type: 'cycle_without_key',
        });
    }
    const strict = new Map(
      component.map((k) => [
        k,
        new Set(
          byKey
            .get(k)!
            .references.filter((r) => !r.deferred && members.has(r.parent))
            .map((r) => r.parent),
        ),
      ]),
    );
    for (const inner of components(component, strict))
      if (inner.length > 1 || strict.get(inner[0]!)?.has(inner[0]!))
        problems.push({
          loc: ['definition', 'tables'],
          msg: `The NOT NULL foreign keys of ${inner.sort().join(', ')} form a cycle: no row could be written first (make one of them nullable, or seed one table after filling the other)`,
          type: 'not_null_cycle',
        });
  }
  if (problems.length > 0) return { problems, plan: null };
  const order = parentsFirst(
    planned.map((p) => ({
      key: p.key,
      parents: p.references.filter((r) => !r.deferred).map((r) => r.parent),
    })),
  );
  const outsideParents = [
    ...new Set(planned.flatMap((p) => p.references.map((r) => r.parent)).filter((k) => !byKey.has(k))),
  ];
  return {
    problems,
    plan: { locale: definition.locale ?? 'en', tables: order.map((k) => byKey.get(k)!), outsideParents },
  };
}

/**
 * An inferred range made wide enough for a unique column's rows (`rank integer unique` with 5,000
 * rows gets 1..5,000, not the default 1..1,000), as far as the type and its CHECKs allow.
 */
function widenForUnique(seed: SeedColumn, generator: ResolvedColumn['generator'], rows: number): void {
  const { shape, limits } = seed;
  if (generator.kind === 'int' && generator.max - generator.min + 1 < rows) {
    let top = generator.min + rows - 1;
    if (shape.max !== null) top = Math.min(top, Number(shape.max));
    if (limits.upper)
      top = Math.min(top, limits.upper.inclusive ? limits.upper.value : limits.upper.value - 1);
    generator.max = Math.max(generator.max, Math.floor(top));
  } else if ((generator.kind === 'date' || generator.kind === 'timestamp') && !limits.upper) {
    const step = generator.kind === 'date' ? 86_400_000 : 1000;
    generator.to = Math.max(generator.to, generator.from + (rows - 1) * step);
  }
}

/** Why a template cannot be filled (it names a column the scenario leaves to the database), or null. */
function orderTemplates(columns: ResolvedColumn[]): string | null {
  const templates = columns.filter((c) => c.generator.kind === 'template');
  if (templates.length === 0) return null;
  const names = new Set(columns.map((c) => c.name));
  for (const t of templates) {
    const named = (t.generator as { columns: string[] }).columns.filter((n) => !names.has(n));
    if (named.length > 0)
      return `the template of ${t.name} names ${named.join(', ')}, which the scenario does not write`;
  }
  return null;
}
