// A seed scenario's definition (docs/contract.md §9.1) as the API takes it: the tables to fill, how many rows
// each, and a generator for the columns that should not be inferred. Pure types and limits.

/** The generator kinds (a closed set). */
export const GENERATOR_KINDS = [
  'faker',
  'sequence',
  'int',
  'float',
  'timestamp',
  'date',
  'choice',
  'constant',
  'template',
  'reference',
  'default',
  'null',
] as const;
export type GeneratorKind = (typeof GENERATOR_KINDS)[number];

export const REFERENCE_DISTRIBUTIONS = ['uniform', 'zipf'] as const;
export type ReferenceDistribution = (typeof REFERENCE_DISTRIBUTIONS)[number];

/** The most rows one table of a scenario may ask for. */
export const MAX_ROWS_PER_TABLE = 10_000_000;
/** The most tables a scenario may list. */
export const MAX_TABLES = 500;

/** A generator as given: `kind` and its options, plus `null_ratio` and `unique` on every kind. */
export interface GeneratorSpec {
  kind: string;
  null_ratio?: number;
  unique?: boolean;
  method?: string;
  args?: unknown[];
  start?: number;
  step?: number;
  min?: number;
  max?: number;
  precision?: number;
  from?: string;
  to?: string;
  values?: unknown[];
  weights?: number[];
  value?: unknown;
  template?: string;
  distribution?: string;
}

export interface SeedTableSpec {
  /** `schema.table` or a bare name (PostgreSQL: in `public`). */
  table: string;
  rows: number;
  columns?: Record<string, GeneratorSpec>;
}

export interface SeedDefinition {
  /** The faker locale (`en`, `de`, `fr`, `pt_BR`, …); `en` when absent. */
  locale?: string;
  tables: SeedTableSpec[];
}

/** Something wrong with a definition, located in the request body. */
export interface DefinitionProblem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The most bytes (UTF-8) one generated value may take (docs/contract.md §9.1). */
export const MAX_VALUE_BYTES = 64 * 1024;

/** Whether a value's text is over MAX_VALUE_BYTES (counted in bytes only when its length could be). */
export function overValueBound(text: string): boolean {
  return text.length > MAX_VALUE_BYTES / 3 && Buffer.byteLength(text) > MAX_VALUE_BYTES;
}

/**
 * A generator that could not make a column's value within the bounds while rows were produced (a
 * value over MAX_VALUE_BYTES, a faker method refusing its arguments): the preview answers 422 and a
 * run fails, naming the table and column.
 */
export class ValueRefused extends Error {
  readonly table: string;
  readonly column: string;
  constructor(table: string, column: string, reason: string) {
    super(`${table}.${column}: ${reason}`);
    this.table = table;
    this.column = column;
  }
}
