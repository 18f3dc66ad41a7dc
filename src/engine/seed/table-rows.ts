// The rows of one planned table, produced in order (row 0, 1, …) and cut into batches of the row
// pipeline's text format. Every value is a function of (seed, table, column, row, attempt): the
// batch size only decides where the stream is cut, never what it holds. Keys the service writes are
// the table's current maximum plus the row number plus one; references pick a parent row (existing
// rows read once, then the generated ones) uniformly or by a Zipf-like law; unique keys that no
// column makes distinct by construction are tracked, and a row that would repeat one is drawn again
// with the next attempt. Deferred references (cycles, self-references) are written empty here and
// produced by `deferredRows` for the UPDATE that closes them. Pure.
import { encodeField, type RowBatch } from '../rows/copy-text.ts';
import { index, streamKey, unit } from './hash.ts';
import type { PredicateTerm } from './limits.ts';
import { localePools } from './locale-pools.ts';
import { lineBatches } from './row-batches.ts';
import { rowPersona } from './row-persona.ts';
import type { PlannedReference, PlannedTable, UniqueKey } from './seed-plan.ts';
import { type CompileContext, compileValue, personaColumns, type ValueFn } from './values.ts';

/** How many times a row is drawn again before a unique key is declared impossible. */
export const MAX_ATTEMPTS = 64;

const ESCAPED = /[\\\t\n\r]/;
const SAFE_BASE = BigInt(Number.MAX_SAFE_INTEGER - 2 ** 32);

/** The texts of the keys `base + 1 + offset`: in doubles while they are exact, the common case. */
export function keyTexts(base: bigint): (offset: number) => string {
  if (base < SAFE_BASE) {
    const first = Number(base) + 1;
    return (offset) => String(first + offset);
  }
  return (offset) => (base + 1n + BigInt(offset)).toString();
}

/** Rows of a parent a reference can point at: the existing ones, then those the run generates. */
export class KeyPool {
  readonly existing: (string | null)[][];
  private readonly generated: (string | null)[][] = [];
  private range: { key: (offset: number) => string; count: number } | null = null;
  private lazy: { count: number; row: (i: number) => (string | null)[] } | null = null;
  /** Whether every existing value is written as it is in the row format (no escape). */
  private readonly plainExisting: boolean;
  constructor(existing: (string | null)[][]) {
    this.existing = existing;
    this.plainExisting = existing.every((row) => row.every((v) => v === null || !ESCAPED.test(v)));
  }
  /** Whether every value a reference can take is written as it is: existing plain ones, then keys. */
  get plain(): boolean {
    return this.plainExisting && (this.range !== null || (this.lazy === null && this.generated.length === 0));
  }
  /** The generated rows are the keys base+1 … base+count (a service-written single-column key). */
  setRange(base: bigint, count: number): void {
    this.range = { key: keyTexts(base), count };
  }
  /** The generated rows computed on demand (the preview, which produces only a few of each table). */
  setLazy(count: number, row: (i: number) => (string | null)[]): void {
    this.lazy = { count, row };
  }
  push(values: (string | null)[]): void {
    this.generated.push(values);
  }
  get size(): number {
    return this.existing.length + this.generatedSoFar();
  }
  /** The generated rows known so far (a table refers to its own earlier rows). */
  generatedSoFar(): number {
    return this.range ? this.range.count : this.lazy ? this.lazy.count : this.generated.length;
  }
  value(i: number): (string | null)[] {
    if (i < this.existing.length) return this.existing[i] as (string | null)[];
    const at = i - this.existing.length;
    if (this.range) return [this.range.key(at)];
    if (this.lazy) return this.lazy.row(at);
    return this.generated[at] as (string | null)[];
  }
}

/** The pool of `parent`'s rows by the columns a foreign key references. */
export const poolKey = (parent: string, columns: readonly string[]) =>
  `${parent}\u0000${columns.join('\u0000')}`;

export interface TableInputs {
  seed: number;
  locale: string;
  /** The table's current maximum of each service-written key column (0 when empty). */
  keyBase: Map<string, bigint>;
  /** Parent rows by poolKey, filled as parents are produced. */
  pools: Map<string, KeyPool>;
  /** Column lists of this table other tables reference (their values are recorded in pools). */
  recorded: string[][];
  /** Values of unique keys already in the table, by key name. */
  existingUnique?: Map<string, Set<string>>;
}

/** Why a run cannot go on: a unique key out of values. Nothing of the run is committed. */
export class SeedImpossible extends Error {}

function pickParent(
  pool: KeyPool,
  reference: PlannedReference,
  key: number,
  row: number,
  attempt: number,
  limit: number,
): number | null {
  const n = Math.min(pool.size, limit);
  if (n === 0) return null;
  if (reference.distribution === 'zipf') {
    // Rank r is drawn with probability about proportional to 1/(r+1): floor((n+1)^u) - 1.
    const r = Math.floor((n + 1) ** unit(key, row, attempt)) - 1;
    return Math.min(n - 1, Math.max(0, r));
  }
  return index(key, row, n, attempt);
}

function covered(terms: PredicateTerm[] | null, values: (string | null)[], at: Map<string, number>): boolean {
  if (terms === null) return true;
  return terms.every((t) => {
    const v = values[at.get(t.column) ?? -1] ?? null;
    if (t.test === 'null') return v === null;
    if (t.test === 'not_null') return v !== null;
    if (t.test !== 'equals' && t.test !== 'not_equals') return true;
    const same =
      v !== null &&
      (v === t.value || (t.value === 'true' && v === 't') || (t.value === 'false' && v === 'f'));
    return t.test === 'equals' ? same : v !== null && !same;
  });
}

export interface TableProducer {
  /** The written columns, in the order of each row's fields. */
  columns: string[];
  /** The rows `from` … `to - 1` as batches of at most `batchRows` rows. */
  batches(batchRows: number): Generator<RowBatch>;
  /** Row `row` as field texts (the preview). */
  row(row: number): (string | null)[];
}

export function tableProducer(table: PlannedTable, inputs: TableInputs): TableProducer {
  const columns = table.columns.map((c) => c.name);
  const at = new Map(columns.map((c, i) => [c, i]));
  const shown = personaColumns(table.columns, table.seedColumns, table.rows);
  const context: CompileContext = {
    seed: inputs.seed,
    table: table.key,
    locale: inputs.locale,
    rows: table.rows,
    persona:
      shown.length > 0
        ? rowPersona(localePools(inputs.locale), inputs.seed, table.key, shown, table.rows)
        : undefined,
  };
  const compiled = table.columns.map((c) =>
    compileValue(
      table.seedColumns.get(c.name)!,
      c.generator,
      c.unique,
      context,
      (name) => at.get(name) ?? -1,
    ),
  );
  const nullKeys = table.columns.map((c) => streamKey(inputs.seed, table.key, c.name, 'null'));
  const distinct = new Set(
    table.columns
      .filter((_, i) => compiled[i]!.distinct || table.columns[i]!.generator.kind === 'key')
      .map((c) => c.name),
  );
  const shared = compiled.flatMap((c, i) => (c.shared ? [i] : []));
  // Keys the service writes are digits; a reference may copy any text of an existing parent row.
  const plainText = table.columns.map((c, i) => compiled[i]!.plain === true || c.generator.kind === 'key');
  const plain: number[] = [];
  const templates: number[] = [];
  table.columns.forEach((c, i) => {
    if (c.generator.kind === 'template') templates.push(i);
    else if (c.generator.kind !== 'reference' && c.generator.kind !== 'key') plain.push(i);
  });
  const keys = table.columns.flatMap((c, i) =>
    c.generator.kind === 'key'
      ? [{ i, base: inputs.keyBase.get(c.name) ?? 0n, text: keyTexts(inputs.keyBase.get(c.name) ?? 0n) }]
      : [],
  );
  const references = table.references
    .filter((r) => !r.deferred)
    .map((r) => ({
      r,
      pool: inputs.pools.get(poolKey(r.parent, r.fk.referenced_columns)),
      positions: r.fk.columns.map((c) => at.get(c) ?? -1),
      key: streamKey(inputs.seed, table.key, `reference:${r.fk.name}`),
      nullKey: streamKey(inputs.seed, table.key, `reference-null:${r.fk.name}`),
      nullRatio: table.columns.find((c) => c.name === r.fk.columns[0])?.nullRatio ?? 0,
    }));
  for (const ref of references)
    for (const p of ref.positions) if (p >= 0) plainText[p] = ref.pool?.plain ?? true;
  const tracked = table.uniqueKeys
    // A column distinct by construction keeps this run's rows apart, not from rows already there.
    .filter(
      (k) =>
        k.columns.every((c) => at.has(c)) &&
        (!k.columns.some((c) => distinct.has(c)) || (inputs.existingUnique?.get(k.name)?.size ?? 0) > 0),
    )
    .map((k: UniqueKey) => ({
      k,
      positions: k.columns.map((c) => at.get(c)!),
      seen: new Set(inputs.existingUnique?.get(k.name) ?? []),
    }));
  const recorders = inputs.recorded.map((cols) => {
    const pool = inputs.pools.get(poolKey(table.key, cols));
    const single = cols.length === 1 ? keys.find((k) => columns[k.i] === cols[0]) : undefined;
    if (pool && single) pool.setRange(single.base, table.rows);
    return single || !pool ? null : { pool, positions: cols.map((c) => at.get(c) ?? -1) };
  });

  function fill(values: (string | null)[], row: number, attempt: number, only?: Set<number>): void {
    const want = (i: number) => only === undefined || only.has(i);
    for (const { i, text } of keys) if (want(i)) values[i] = text(row);
    for (const i of plain) {
      if (!want(i)) continue;
      const c = table.columns[i]!;
      values[i] =
        c.nullRatio > 0 && unit(nullKeys[i]!, row, attempt) < c.nullRatio
          ? null
          : compiled[i]!.fn(row, attempt, values);
    }
    for (const ref of references) {
      if (only !== undefined && !ref.positions.some((p) => only.has(p))) continue;
      const pick =
        ref.pool && !(ref.nullRatio > 0 && unit(ref.nullKey, row, attempt) < ref.nullRatio)
          ? pickParent(ref.pool, ref.r, ref.key, row, attempt, Number.POSITIVE_INFINITY)
          : null;
      const parent = pick === null ? null : ref.pool!.value(pick);
      ref.positions.forEach((p, j) => {
        if (p >= 0) values[p] = parent ? (parent[j] ?? null) : null;
      });
    }
    for (let pass = 0; pass < 2; pass++)
      for (const i of templates) {
        if (!want(i)) continue;
        const c = table.columns[i]!;
        values[i] =
          c.nullRatio > 0 && unit(nullKeys[i]!, row, attempt) < c.nullRatio
            ? null
            : compiled[i]!.fn(row, attempt, values);
      }
  }

  function produce(row: number): (string | null)[] {
    const values: (string | null)[] = new Array(columns.length).fill(null);
    fill(values, row, 0);
    for (const t of tracked) {
      for (let attempt = 1; ; attempt++) {
        const parts = t.positions.map((p) => values[p] ?? null);
        // NULLs never collide in a unique index; rows outside a partial index's predicate neither.
        if (parts.some((v) => v === null) || !covered(t.k.predicate, values, at)) break;
        const joined = parts.join('\u0000');
        if (!t.seen.has(joined)) {
          t.seen.add(joined);
          break;
        }
        if (attempt > MAX_ATTEMPTS)
          throw new SeedImpossible(
            `${table.key}: no distinct values left for the unique key ${t.k.name} (${t.k.columns.join(', ')}) at row ${row + 1} after ${MAX_ATTEMPTS} draws; give its columns generators with more values, or fewer rows`,
          );
        // The key's columns, and those of a partial index's predicate (the row may leave its scope).
        const redraw = new Set([
          ...t.positions,
          ...(t.k.predicate ?? []).map((term) => at.get(term.column) ?? -1),
        ]);
        // A template over a redrawn column follows it, and so do the row's other names and places.
        for (const i of templates) redraw.add(i);
        if (shared.some((i) => redraw.has(i))) for (const i of shared) redraw.add(i);
        fill(values, row, attempt, redraw);
      }
    }
    for (const r of recorders) if (r) r.pool.push(r.positions.map((p) => values[p] ?? null));
    return values;
  }

  return {
    columns,
    batches(batchRows: number) {
      function* lines(): Generator<string> {
        for (let row = 0; row < table.rows; row++) {
          const values = produce(row);
          let line = '';
          for (let i = 0; i < values.length; i++) {
            const value = values[i] ?? null;
            if (i > 0) line += '\t';
            line += value === null ? '\\N' : plainText[i] ? value : encodeField(value);
          }
          yield `${line}\n`;
        }
      }
      return lineBatches(lines(), batchRows);
    },
    row: produce,
  };
}

/**
 * The values of a table's deferred references for one row, in the order of their foreign keys'
 * columns (a self-reference points at an earlier row, the first at none). Call once every table
 * was produced, so the pools hold every parent row.
 */
export function deferredValues(table: PlannedTable, inputs: TableInputs): (row: number) => (string | null)[] {
  const refs = table.references
    .filter((r) => r.deferred)
    .map((r) => ({
      r,
      pool: inputs.pools.get(poolKey(r.parent, r.fk.referenced_columns))!,
      key: streamKey(inputs.seed, table.key, `reference:${r.fk.name}`),
      nullKey: streamKey(inputs.seed, table.key, `reference-null:${r.fk.name}`),
      nullRatio: table.columns.find((c) => c.name === r.fk.columns[0])?.nullRatio ?? 0,
    }));
  return (row) => {
    const fields: (string | null)[] = [];
    for (const ref of refs) {
      // A tree: row i points at one of the rows before it (existing ones, then generated 0 … i-1).
      const limit = ref.r.self ? ref.pool.existing.length + row : Number.POSITIVE_INFINITY;
      const empty = ref.nullRatio > 0 && unit(ref.nullKey, row, 0) < ref.nullRatio;
      const pick = empty ? null : pickParent(ref.pool, ref.r, ref.key, row, 0, limit);
      const parent = pick === null ? null : ref.pool.value(pick);
      for (let j = 0; j < ref.r.fk.columns.length; j++) fields.push(parent ? (parent[j] ?? null) : null);
    }
    return fields;
  };
}

/** The rows of the UPDATE that closes the deferred references: the primary key, then deferredValues. */
export function* deferredRows(
  table: PlannedTable,
  inputs: TableInputs,
  primaryKeyOf: (row: number) => (string | null)[],
  batchRows: number,
): Generator<RowBatch> {
  const values = deferredValues(table, inputs);
  function* lines(): Generator<string> {
    for (let row = 0; row < table.rows; row++)
      yield `${[...primaryKeyOf(row), ...values(row)].map(encodeField).join('\t')}\n`;
  }
  yield* lineBatches(lines(), batchRows);
}

export type { ValueFn };
