// One column's generator checked against the column (docs/contract.md §9.1: "a generator that does not fit the
// column's type answers 422 naming it"): the kind fits the family, its options are complete and in
// range (min ≤ max, from ≤ to, weights as many as values), the values it can produce fit the
// column (type, length, enum labels, NOT NULL) and its CHECKs (a `choice` whose values break one,
// an `int` range outside one), and a unique column can get enough distinct values. Each family of
// kinds is checked by a function of its own: those the database or the planner fills, numeric and
// time ranges, listed values, templates and faker methods. Pure.
import type { SeedColumn, SeedFamily } from './column-kind.ts';
import {
  GENERATOR_KINDS,
  type GeneratorKind,
  type GeneratorSpec,
  MAX_VALUE_BYTES,
  overValueBound,
  REFERENCE_DISTRIBUTIONS,
  type ReferenceDistribution,
} from './definition.ts';
import { allowedFakerMethod, FAKER_METHODS, fakerArgsProblem } from './faker-allow-list.ts';
import { fakerMethod, probeFaker } from './faker-method.ts';
import type { Resolved } from './resolved.ts';
import { parseTime, valueText } from './value-text.ts';

const FITS: Record<
  Exclude<GeneratorKind, 'reference' | 'default' | 'null' | 'choice' | 'constant' | 'faker'>,
  SeedFamily[]
> = {
  sequence: ['integer', 'numeric', 'float', 'text'],
  int: ['integer', 'numeric', 'float'],
  float: ['numeric', 'float'],
  timestamp: ['timestamp'],
  date: ['date', 'timestamp'],
  template: ['text'],
};

export type Resolution = { ok: true; generator: Resolved } | { ok: false; msg: string; type: string };

const fail = (msg: string, type = 'value_error'): Resolution => ({ ok: false, msg, type });
const resolved = (generator: Resolved): Resolution => ({ ok: true, generator });

/** The text a faker value is written as, for its size: strings as they are, the rest as JSON. */
const sizeText = (value: unknown) =>
  typeof value === 'string'
    ? value
    : (JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v)) ?? '');

/** A numeric range [min, max] checked against the column's type and CHECK bounds. */
function rangeProblem(seed: SeedColumn, min: number, max: number, what: string): string | null {
  if (min > max) return `min (${min}) is above max (${max})`;
  const { shape, limits } = seed;
  if (shape.min !== null && min < Number(shape.min))
    return `${what} ${min}..${max} is outside the range of ${seed.column.type}`;
  if (shape.max !== null && max > Number(shape.max))
    return `${what} ${min}..${max} is outside the range of ${seed.column.type}`;
  if (limits.lower && (min < limits.lower.value || (!limits.lower.inclusive && min === limits.lower.value)))
    return `${what} ${min}..${max} breaks a CHECK of the table (lower bound ${limits.lower.value})`;
  if (limits.upper && (max > limits.upper.value || (!limits.upper.inclusive && max === limits.upper.value)))
    return `${what} ${min}..${max} breaks a CHECK of the table (upper bound ${limits.upper.value})`;
  return null;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Checks an explicit generator against its column; `columns` are the table's column names (templates). */
export function resolveExplicit(
  seed: SeedColumn,
  spec: GeneratorSpec,
  columns: readonly string[],
): Resolution {
  const column = seed.column;
  if (!(GENERATOR_KINDS as readonly string[]).includes(spec.kind))
    return fail(
      `Unknown generator kind "${spec.kind}" (one of ${GENERATOR_KINDS.join(', ')})`,
      'unknown_generator',
    );
  const kind = spec.kind as GeneratorKind;
  if (column.generated && kind !== 'default')
    return fail(
      `${column.name} is a generated column: only {"kind": "default"} fits it`,
      'generator_mismatch',
    );
  const fits = (FITS as Record<string, SeedFamily[]>)[kind];
  if (fits && !fits.includes(seed.family))
    return fail(
      `A ${kind} generator does not fit ${column.name} of type ${column.type}`,
      'generator_mismatch',
    );
  switch (kind) {
    case 'default':
    case 'null':
    case 'reference':
    case 'sequence':
      return resolveFilled(seed, kind, spec);
    case 'int':
    case 'float':
      return resolveNumberRange(seed, kind, spec);
    case 'timestamp':
    case 'date':
      return resolveTimeRange(seed, kind, spec);
    case 'choice':
    case 'constant':
      return resolveListed(seed, kind, spec);
    case 'template':
      return resolveTemplate(seed, spec, columns);
    case 'faker':
      return resolveFaker(seed, spec);
  }
}

/** The kinds whose values the database, the planner or the row number give. */
function resolveFilled(
  seed: SeedColumn,
  kind: 'default' | 'null' | 'reference' | 'sequence',
  spec: GeneratorSpec,
): Resolution {
  const column = seed.column;
  switch (kind) {
    case 'default':
      return column.default !== null || column.identity !== null || column.auto_increment || column.generated
        ? resolved({ kind: 'default' })
        : fail(`${column.name} has no default for {"kind": "default"} to leave it to`, 'generator_mismatch');
    case 'null':
      return column.nullable
        ? resolved({ kind: 'null' })
        : fail(`${column.name} is NOT NULL: a null generator does not fit it`, 'generator_mismatch');
    case 'reference': {
      const distribution = spec.distribution ?? 'uniform';
      if (!(REFERENCE_DISTRIBUTIONS as readonly string[]).includes(distribution))
        return fail(`distribution must be one of ${REFERENCE_DISTRIBUTIONS.join(', ')}`);
      // The planner ties it to the foreign key (a column in none is refused there).
      return resolved({
        kind: 'reference',
        fk: null as never,
        distribution: distribution as ReferenceDistribution,
      });
    }
    case 'sequence': {
      const start = spec.start ?? 1;
      const step = spec.step ?? 1;
      if (!Number.isInteger(start) || !Number.isInteger(step) || step === 0)
        return fail('start and step must be integers, step not 0');
      return resolved({ kind: 'sequence', start, step });
    }
  }
}

/** `int` and `float`: a range within the column's type, its precision and its CHECKs. */
function resolveNumberRange(seed: SeedColumn, kind: 'int' | 'float', spec: GeneratorSpec): Resolution {
  if (kind === 'int') {
    if (!Number.isInteger(spec.min) || !Number.isInteger(spec.max))
      return fail('int needs integer min and max', 'missing');
    const problem = rangeProblem(seed, spec.min as number, spec.max as number, 'int range');
    return problem
      ? fail(problem)
      : resolved({ kind: 'int', min: spec.min as number, max: spec.max as number });
  }
  if (!isNumber(spec.min) || !isNumber(spec.max)) return fail('float needs numeric min and max', 'missing');
  const precision = spec.precision ?? seed.shape.scale ?? null;
  if (precision !== null && (!Number.isInteger(precision) || precision < 0 || precision > 15))
    return fail('precision must be an integer from 0 to 15');
  const problem = rangeProblem(seed, spec.min, spec.max, 'float range');
  if (problem) return fail(problem);
  const scale = seed.shape.scale;
  if (
    seed.shape.precision !== null &&
    scale !== null &&
    Math.max(Math.abs(spec.min), Math.abs(spec.max)) >= 10 ** (seed.shape.precision - scale)
  )
    return fail(`float range ${spec.min}..${spec.max} does not fit ${seed.column.type}`);
  return resolved({ kind: 'float', min: spec.min, max: spec.max, precision });
}

/** `timestamp` and `date`: ISO 8601 bounds in order, within the table's CHECKs. */
function resolveTimeRange(seed: SeedColumn, kind: 'timestamp' | 'date', spec: GeneratorSpec): Resolution {
  const from = parseTime(spec.from);
  const to = parseTime(spec.to);
  if (from === null || to === null) return fail(`${kind} needs ISO 8601 from and to`, 'missing');
  if (from > to) return fail(`from (${spec.from}) is after to (${spec.to})`);
  const { lower, upper } = seed.limits;
  if (
    (lower && from < lower.value) ||
    (upper && (to > upper.value || (!upper.inclusive && to === upper.value)))
  )
    return fail(`${kind} range ${spec.from}..${spec.to} breaks a CHECK of the table`);
  return resolved({ kind, from, to });
}

/** `choice` and `constant`: every listed value the column's text, the weights sound. */
function resolveListed(seed: SeedColumn, kind: 'choice' | 'constant', spec: GeneratorSpec): Resolution {
  const column = seed.column;
  const values = kind === 'constant' ? [spec.value] : spec.values;
  if (kind === 'constant' && spec.value === undefined) return fail('constant needs a value', 'missing');
  if (!Array.isArray(values) || values.length === 0)
    return fail('choice needs a non-empty list of values', 'missing');
  if (spec.weights !== undefined) {
    if (spec.weights.length !== values.length)
      return fail(`weights has ${spec.weights.length} entries for ${values.length} values`);
    if (spec.weights.some((w) => !isNumber(w) || w < 0) || spec.weights.reduce((a, b) => a + b, 0) <= 0)
      return fail('weights must be non-negative numbers with a positive sum');
  }
  const texts: (string | null)[] = [];
  for (const value of values) {
    const converted = valueText(seed, value);
    if ('error' in converted)
      return fail(`${kind} value for ${column.name}: ${converted.error}`, 'generator_mismatch');
    if (converted.text !== null && overValueBound(converted.text))
      return fail(`${kind} value for ${column.name} is over ${MAX_VALUE_BYTES / 1024} KiB`);
    texts.push(converted.text);
  }
  return kind === 'constant'
    ? resolved({ kind: 'constant', value: texts[0] ?? null })
    : resolved({ kind: 'choice', values: texts as string[], weights: spec.weights ?? null });
}

/** `template`: names only other columns of the row. */
function resolveTemplate(seed: SeedColumn, spec: GeneratorSpec, columns: readonly string[]): Resolution {
  if (typeof spec.template !== 'string' || spec.template === '')
    return fail('template needs a template', 'missing');
  const named = [...spec.template.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1] as string);
  const unknown = named.filter((n) => !columns.includes(n) || n === seed.column.name);
  if (unknown.length > 0)
    return fail(
      `The template names ${unknown.map((u) => `{${u}}`).join(', ')}, not another column of the table`,
      'unknown_column',
    );
  return resolved({ kind: 'template', template: spec.template, columns: [...new Set(named)] });
}

/** `faker`: an allowed method, bounded arguments it accepts, values within the bound. */
function resolveFaker(seed: SeedColumn, spec: GeneratorSpec): Resolution {
  const name = seed.column.name;
  const method = typeof spec.method === 'string' ? fakerMethod(probeFaker(), spec.method) : null;
  if (method === null)
    return fail(
      `"${spec.method}" is not an allowed faker method: a data method of ${Object.keys(FAKER_METHODS).join(', ')} by its dotted path, such as person.firstName`,
      'unknown_generator',
    );
  const args = spec.args ?? [];
  if (!Array.isArray(args)) return fail('args must be a list');
  const problem = fakerArgsProblem(allowedFakerMethod(spec.method as string)!.module, args);
  if (problem) return fail(`${name}: ${problem}`);
  // One value now, so that arguments the method refuses, or a value over the bound, answer 422
  // when the scenario is saved rather than when rows are made.
  let sample: unknown;
  try {
    sample = method(...structuredClone(args));
  } catch (error) {
    return fail(
      `${name}: ${spec.method} refuses these args (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (overValueBound(sizeText(sample)))
    return fail(`${name}: ${spec.method} with these args makes values over ${MAX_VALUE_BYTES / 1024} KiB`);
  return resolved({ kind: 'faker', method: spec.method as string, args });
}

/** How many distinct non-null values a generator can give at most, or null when unbounded in practice. */
export function distinctCapacity(generator: Resolved): number | null {
  switch (generator.kind) {
    case 'constant':
      return 1;
    case 'choice':
      return new Set(generator.values).size;
    case 'int':
      return generator.max - generator.min + 1;
    case 'date':
      return Math.floor((generator.to - generator.from) / 86_400_000) + 1;
    case 'timestamp':
      return Math.floor((generator.to - generator.from) / 1000) + 1;
    // A fake's closed list (closed-pools.ts) is counted by the planner, with the table's columns.
    default:
      return null;
  }
}
