// One table of a seed plan: its foreign keys as references (unless the definition gives their
// columns something else) and each column's generator, given or inferred, with what does not fit
// reported as problems.

import { ownEntry } from '../../core/own.ts';
import {
  type ColumnModel,
  type ForeignKeyModel,
  type SchemaModel,
  type TableModel,
  tableKey,
} from '../schema/model.ts';
import { closedPoolSize, isClosedFake } from './closed-pools.ts';
import { type SeedColumn, seedColumn } from './column-kind.ts';
import type { DefinitionProblem, GeneratorSpec, SeedDefinition } from './definition.ts';
import { fakerPool } from './faker-pools.ts';
import { inferGenerator } from './infer.ts';
import { type ColumnLimits, readCheck, readPredicate } from './limits.ts';
import { localePools } from './locale-pools.ts';
import { distinctCapacity, resolveExplicit } from './resolve.ts';
import type { Resolved, ResolvedColumn } from './resolved.ts';
import { columnRoom } from './row-persona.ts';
import type { PlannedReference, PlannedTable, Populated, UniqueKey } from './seed-plan.ts';
import { localeFaker, personaColumns } from './values.ts';

/** A table of the scenario: where the definition lists it, the table, what it asks for. */
export interface LocatedTable {
  at: number;
  table: TableModel;
  spec: SeedDefinition['tables'][number];
}

export interface PlanContext {
  model: SchemaModel;
  located: Map<string, LocatedTable>;
  populated: Populated;
  /** `tableKey\u0000columns` of every key some foreign key references. */
  referenced: Set<string>;
  problems: DefinitionProblem[];
  /** The definition's locale: its lists decide how many values a closed list has. */
  locale: string;
}

/** What planning one table's columns needs to know of it. */
interface TableScope {
  key: string;
  table: TableModel;
  rows: number;
  given: Record<string, GeneratorSpec>;
  names: string[];
  seedColumns: Map<string, SeedColumn>;
  references: PlannedReference[];
  /** Columns written as a reference to their foreign key's parent. */
  byReference: Set<string>;
  singleUnique: Set<string>;
  primaryKey: string[];
  referenced: Set<string>;
  /** The definition's locale (the lists a closed list is counted in). */
  locale: string;
  problem(loc: (string | number)[], msg: string, type: string): void;
}

export const referencedKey = (table: TableModel, fk: ForeignKeyModel) =>
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

/** Plans one table of the scenario; what does not fit goes to `context.problems`. */
export function planTable(
  context: PlanContext,
  key: string,
  { at, table, spec }: LocatedTable,
): PlannedTable {
  const problem = (loc: (string | number)[], msg: string, type: string) =>
    context.problems.push({ loc: ['definition', 'tables', at, ...loc], msg, type });
  const given: Record<string, GeneratorSpec> = spec.columns ?? {};
  const names = table.columns.map((c) => c.name);
  for (const name of Object.keys(given))
    if (!names.includes(name))
      problem(['columns', name], `Unknown column ${name} of ${key}`, 'unknown_column');
  const limits = limitsOf(table);
  const seedColumns = new Map(
    table.columns.map((c) => [c.name, seedColumn(context.model, table, c, limits.get(c.name) ?? {})]),
  );
  const uniqueKeys = uniqueKeysOf(table);
  const scope: TableScope = {
    key,
    table,
    rows: spec.rows,
    given,
    names,
    seedColumns,
    references: [],
    byReference: new Set(),
    singleUnique: new Set(
      uniqueKeys
        .filter((k) => k.columns.length === 1 && k.predicate === null)
        .map((k) => k.columns[0] as string),
    ),
    primaryKey: table.primary_key?.columns ?? [],
    referenced: context.referenced,
    locale: context.locale,
    problem,
  };
  planReferences(context, scope);
  const columns = table.columns
    .map((column) => planColumn(scope, column))
    .filter((c): c is ResolvedColumn => c !== null);
  if (columns.length === 0 && spec.rows > 0) {
    const written = keyOnly(scope);
    if (written) columns.push(written);
    else
      problem(
        ['columns'],
        `${scope.key}: every column is left to the database; give one a generator so rows can be written`,
        'generator_required',
      );
  }
  checkClosedPools(scope, columns);
  const templateProblem = orderTemplates(columns);
  if (templateProblem) problem(['columns'], `${key}: ${templateProblem}`, 'unknown_column');
  return {
    key,
    table,
    rows: spec.rows,
    columns,
    seedColumns,
    references: scope.references,
    uniqueKeys,
    primaryKey: scope.primaryKey,
  };
}

/** Foreign keys: a reference unless the definition gives their columns something else. */
function planReferences(context: PlanContext, scope: TableScope): void {
  const { table, given, seedColumns, byReference } = scope;
  for (const fk of table.foreign_keys) {
    const explicit = fk.columns.map((c) => ownEntry(given, c)).filter((g) => g !== undefined);
    if (explicit.some((g) => g.kind !== 'reference')) continue;
    if (fk.columns.some((c) => byReference.has(c))) continue;
    const parent = referencedKey(table, fk);
    const nullable = fk.columns.every((c) => seedColumns.get(c)?.column.nullable);
    const parentRows = context.located.get(parent)?.spec.rows ?? 0;
    if (!context.populated(parent) && parentRows === 0 && scope.rows > 0) {
      scope.problem(
        ['table'],
        `${scope.key}.${fk.columns.join(', ')} references ${parent}, which is neither in the scenario (with rows) nor holds rows${nullable ? ' (give the column {"kind": "null"} to leave it empty)' : ''}`,
        'parent_missing',
      );
      continue;
    }
    const distribution = (explicit[0]?.distribution ?? 'uniform') as 'uniform' | 'zipf';
    scope.references.push({ fk, parent, distribution, deferred: false, self: parent === scope.key });
    for (const c of fk.columns) byReference.add(c);
  }
}

/** A column's generator, or null when it is left to the database (or refused: see the problems). */
function planColumn(scope: TableScope, column: ColumnModel): ResolvedColumn | null {
  const { key, given, rows } = scope;
  // Column names are the target's: a column named `constructor` must not find Object's.
  const colSpec = ownEntry(given, column.name);
  const unique = colSpec?.unique === true || scope.singleUnique.has(column.name);
  const nullRatio = colSpec?.null_ratio ?? 0;
  if (nullRatio > 0 && !column.nullable) {
    scope.problem(
      ['columns', column.name, 'null_ratio'],
      `${column.name} is NOT NULL: null_ratio must be 0`,
      'generator_mismatch',
    );
    return null;
  }
  if (scope.byReference.has(column.name)) {
    const reference = scope.references.find((r) => r.fk.columns.includes(column.name))!;
    return {
      name: column.name,
      generator: { kind: 'reference', fk: reference.fk, distribution: reference.distribution },
      nullRatio,
      unique,
      origin: colSpec ? 'given' : 'foreign_key',
    };
  }
  if (colSpec?.kind === 'reference') {
    scope.problem(
      ['columns', column.name],
      `${column.name} is not a column of a foreign key: a reference does not fit it`,
      'generator_mismatch',
    );
    return null;
  }
  const seed = scope.seedColumns.get(column.name) as SeedColumn;
  if (colSpec) {
    const resolved = resolveExplicit(seed, colSpec, scope.names);
    if (!resolved.ok) {
      scope.problem(['columns', column.name], `${key}.${column.name}: ${resolved.msg}`, resolved.type);
      return null;
    }
    const capacity = unique ? givenCapacity(seed, resolved.generator, scope.locale) : null;
    if (capacity !== null && capacity < rows)
      scope.problem(
        ['columns', column.name],
        `${key}.${column.name} is unique, but its ${colSpec.kind} generator has only ${capacity} distinct values for ${rows} rows`,
        'unique_capacity',
      );
    if (resolved.generator.kind === 'default') return null;
    return { name: column.name, generator: resolved.generator, nullRatio, unique, origin: 'given' };
  }
  return inferColumn(scope, column, seed, { unique, nullRatio });
}

/** How many distinct values a given generator has for its column, null when unbounded in practice. */
function givenCapacity(seed: SeedColumn, generator: Resolved, locale: string): number | null {
  if (generator.kind !== 'faker') return distinctCapacity(generator);
  return fakerPool(localeFaker(locale), generator.method, generator.args, columnRoom(seed))?.length ?? null;
}

/** A column the definition does not name: a key the service writes, an inferred generator or NULL. */
function inferColumn(
  scope: TableScope,
  column: ColumnModel,
  seed: SeedColumn,
  { unique, nullRatio }: { unique: boolean; nullRatio: number },
): ResolvedColumn | null {
  const { key, table, rows, primaryKey } = scope;
  if (column.generated) return null;
  const isIntegerKey = primaryKey.length === 1 && primaryKey[0] === column.name && seed.family === 'integer';
  if (sequenced(table, column.name) || isIntegerKey) {
    const isReferenced = scope.referenced.has(`${key}\u0000${column.name}`);
    if (isReferenced || (isIntegerKey && !sequenced(table, column.name)))
      return { name: column.name, generator: { kind: 'key' }, nullRatio: 0, unique: true, origin: 'key' };
    return null;
  }
  const inferred = inferGenerator(seed, table.name);
  if (inferred) {
    if (unique) widenForUnique(seed, inferred.generator, rows);
    const capacity = distinctCapacity(inferred.generator);
    if (unique && capacity !== null && capacity < rows)
      scope.problem(
        ['columns', column.name],
        `${key}.${column.name} is unique, but only ${capacity} distinct values fit it for ${rows} rows`,
        'unique_capacity',
      );
    return { name: column.name, generator: inferred.generator, nullRatio, unique, origin: inferred.rule };
  }
  if (column.nullable)
    return { name: column.name, generator: { kind: 'null' }, nullRatio: 0, unique: false, origin: 'null' };
  if (column.default === null)
    scope.problem(
      ['columns', column.name],
      `${key}.${column.name} of type ${column.type} is NOT NULL and has no default: give it a generator`,
      'generator_required',
    );
  return null;
}

/**
 * A unique column of a closed list (a country's codes or names: closed-pools.ts) holds as many rows
 * as the list has entries, counted with the table's other fake columns (a narrow country-name
 * column leaves out the countries whose names do not fit it); more rows are refused here rather
 * than written with tags that are no codes.
 */
function checkClosedPools(scope: TableScope, columns: readonly ResolvedColumn[]): void {
  const closed = columns.flatMap((c) =>
    c.unique && c.generator.kind === 'fake' && isClosedFake(c.generator.fake)
      ? [{ name: c.name, fake: c.generator.fake }]
      : [],
  );
  if (closed.length === 0 || scope.rows === 0) return;
  const shown = personaColumns(columns, scope.seedColumns, scope.rows);
  for (const { name, fake } of closed) {
    const capacity = closedPoolSize(fake, localePools(scope.locale), shown);
    if (capacity !== null && capacity < scope.rows)
      scope.problem(
        ['columns', name],
        `${scope.key}.${name} is unique, but its inferred ${fake} values are a closed list of ${capacity} for ${scope.rows} rows (each is written once: ask for fewer rows or give the column a generator)`,
        'unique_capacity',
      );
  }
}

/**
 * Rows need at least one column in the stream: a table the database fills alone (a serial key and
 * defaults) gets its integer key written by the service.
 */
function keyOnly({ primaryKey, seedColumns }: TableScope): ResolvedColumn | null {
  const only = primaryKey.length === 1 ? seedColumns.get(primaryKey[0] as string) : undefined;
  if (only?.family !== 'integer' || only.column.generated) return null;
  return { name: only.column.name, generator: { kind: 'key' }, nullRatio: 0, unique: true, origin: 'key' };
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
