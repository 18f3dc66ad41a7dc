// One column's generator checked against the column (docs/contract.md §9.1: "a generator that does not fit the
// column's type answers 422 naming it"): the kind fits the family, its options are complete and in
// range (min ≤ max, from ≤ to, weights as many as values), the values it can produce fit the
// column (type, length, enum labels, NOT NULL) and its CHECKs (a `choice` whose values break one,
// an `int` range outside one), and a unique column can get enough distinct values. Pure.
import type { Faker } from '@faker-js/faker';
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
import { fakerLibrary } from './faker-library.ts';
import { boundValue } from './limits.ts';
import type { Resolved } from './resolved.ts';

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

/** A time as epoch milliseconds, or null when the text is not an ISO 8601 date or timestamp. */
export function parseTime(value: unknown): number | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  return (
    boundValue(value.trim().replace(/Z$/, '')) ?? (Number.isNaN(Date.parse(value)) ? null : Date.parse(value))
  );
}

/**
 * A faker method by its dotted path (`person.firstName`), or null when it is not on the allow-list
 * (faker-allow-list.ts). The path is matched against that list first: the module is an own property
 * of the instance and the method a name the list declares, so no text of a request picks a property.
 */
export function fakerMethod(faker: Faker, path: string): ((...args: unknown[]) => unknown) | null {
  const allowed = allowedFakerMethod(path);
  if (!allowed || !Object.hasOwn(faker, allowed.module)) return null;
  const owner: unknown = Reflect.get(faker, allowed.module);
  if (owner === null || typeof owner !== 'object') return null;
  const method: unknown = Reflect.get(owner, allowed.method);
  return typeof method === 'function' ? (method as (...args: unknown[]) => unknown).bind(owner) : null;
}

/** The text a faker value is written as, for its size: strings as they are, the rest as JSON. */
const sizeText = (value: unknown) =>
  typeof value === 'string'
    ? value
    : (JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v)) ?? '');

let probe: Faker | undefined;
const probeFaker = () => {
  const { Faker, allLocales } = fakerLibrary();
  probe ??= new Faker({ locale: [allLocales.en, allLocales.base] });
  return probe;
};

/** A value of the definition as the text the row pipeline writes for this column, or why it cannot be one. */
export function valueText(seed: SeedColumn, value: unknown): { text: string | null } | { error: string } {
  if (value === null) return seed.column.nullable ? { text: null } : { error: 'null in a NOT NULL column' };
  const { family, shape, limits } = seed;
  let text: string;
  switch (family) {
    case 'integer': {
      const n =
        typeof value === 'string' && /^-?\d+$/.test(value)
          ? BigInt(value)
          : typeof value === 'number' && Number.isInteger(value)
            ? BigInt(value)
            : null;
      if (n === null) return { error: `${JSON.stringify(value)} is not an integer` };
      if ((shape.min !== null && n < shape.min) || (shape.max !== null && n > shape.max))
        return { error: `${n} is outside the range of ${seed.column.type}` };
      text = n.toString();
      break;
    }
    case 'numeric':
    case 'float': {
      const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
      if (!Number.isFinite(n)) return { error: `${JSON.stringify(value)} is not a number` };
      text = String(value);
      break;
    }
    case 'boolean':
      if (typeof value !== 'boolean') return { error: `${JSON.stringify(value)} is not a boolean` };
      text = value ? 't' : 'f';
      break;
    case 'date':
    case 'timestamp':
      if (parseTime(value) === null)
        return { error: `${JSON.stringify(value)} is not an ISO 8601 ${family}` };
      text = String(value);
      break;
    case 'json':
      text = JSON.stringify(value);
      break;
    case 'enum':
      if (!seed.enumValues?.includes(String(value)))
        return { error: `${JSON.stringify(value)} is not a label of ${seed.column.type}` };
      text = String(value);
      break;
    default:
      if (typeof value === 'object') return { error: `${JSON.stringify(value)} is not a scalar` };
      text = String(value);
      if (shape.maxLength !== null && [...text].length > shape.maxLength)
        return { error: `"${text}" is longer than ${shape.maxLength} characters` };
  }
  if (limits.allowed && !limits.allowed.includes(text))
    return { error: `${text} breaks a CHECK of the table (allowed: ${limits.allowed.join(', ')})` };
  const n = family === 'date' || family === 'timestamp' ? parseTime(text) : Number(text);
  if (n !== null && Number.isFinite(n)) {
    if (limits.lower && (n < limits.lower.value || (!limits.lower.inclusive && n === limits.lower.value)))
      return { error: `${text} breaks a CHECK of the table (a lower bound)` };
    if (limits.upper && (n > limits.upper.value || (!limits.upper.inclusive && n === limits.upper.value)))
      return { error: `${text} breaks a CHECK of the table (an upper bound)` };
  }
  const length = [...text].length;
  if (limits.minLength !== undefined && length < limits.minLength)
    return { error: `"${text}" is shorter than a CHECK of the table allows (${limits.minLength})` };
  if (limits.maxLength !== undefined && length > limits.maxLength)
    return { error: `"${text}" is longer than a CHECK of the table allows (${limits.maxLength})` };
  return { text };
}

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
      return column.default !== null || column.identity !== null || column.auto_increment || column.generated
        ? { ok: true, generator: { kind: 'default' } }
        : fail(`${column.name} has no default for {"kind": "default"} to leave it to`, 'generator_mismatch');
    case 'null':
      return column.nullable
        ? { ok: true, generator: { kind: 'null' } }
        : fail(`${column.name} is NOT NULL: a null generator does not fit it`, 'generator_mismatch');
    case 'reference': {
      const distribution = spec.distribution ?? 'uniform';
      if (!(REFERENCE_DISTRIBUTIONS as readonly string[]).includes(distribution))
        return fail(`distribution must be one of ${REFERENCE_DISTRIBUTIONS.join(', ')}`);
      // The planner ties it to the foreign key (a column in none is refused there).
      return {
        ok: true,
        generator: {
          kind: 'reference',
          fk: null as never,
          distribution: distribution as ReferenceDistribution,
        },
      };
    }
    case 'sequence': {
      const start = spec.start ?? 1;
      const step = spec.step ?? 1;
      if (!Number.isInteger(start) || !Number.isInteger(step) || step === 0)
        return fail('start and step must be integers, step not 0');
      return { ok: true, generator: { kind: 'sequence', start, step } };
    }
    case 'int': {
      if (!Number.isInteger(spec.min) || !Number.isInteger(spec.max))
        return fail('int needs integer min and max', 'missing');
      const problem = rangeProblem(seed, spec.min as number, spec.max as number, 'int range');
      return problem
        ? fail(problem)
        : { ok: true, generator: { kind: 'int', min: spec.min as number, max: spec.max as number } };
    }
    case 'float': {
      if (!isNumber(spec.min) || !isNumber(spec.max))
        return fail('float needs numeric min and max', 'missing');
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
        return fail(`float range ${spec.min}..${spec.max} does not fit ${column.type}`);
      return { ok: true, generator: { kind: 'float', min: spec.min, max: spec.max, precision } };
    }
    case 'timestamp':
    case 'date': {
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
      return { ok: true, generator: { kind, from, to } };
    }
    case 'choice':
    case 'constant': {
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
        ? { ok: true, generator: { kind: 'constant', value: texts[0] ?? null } }
        : {
            ok: true,
            generator: { kind: 'choice', values: texts as string[], weights: spec.weights ?? null },
          };
    }
    case 'template': {
      if (typeof spec.template !== 'string' || spec.template === '')
        return fail('template needs a template', 'missing');
      const named = [...spec.template.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1] as string);
      const unknown = named.filter((n) => !columns.includes(n) || n === column.name);
      if (unknown.length > 0)
        return fail(
          `The template names ${unknown.map((u) => `{${u}}`).join(', ')}, not another column of the table`,
          'unknown_column',
        );
      return {
        ok: true,
        generator: { kind: 'template', template: spec.template, columns: [...new Set(named)] },
      };
    }
    case 'faker': {
      const method = typeof spec.method === 'string' ? fakerMethod(probeFaker(), spec.method) : null;
      if (method === null)
        return fail(
          `"${spec.method}" is not an allowed faker method: a data method of ${Object.keys(FAKER_METHODS).join(', ')} by its dotted path, such as person.firstName`,
          'unknown_generator',
        );
      const args = spec.args ?? [];
      if (!Array.isArray(args)) return fail('args must be a list');
      const problem = fakerArgsProblem(allowedFakerMethod(spec.method as string)!.module, args);
      if (problem) return fail(`${column.name}: ${problem}`);
      // One value now, so that arguments the method refuses, or a value over the bound, answer 422
      // when the scenario is saved rather than when rows are made.
      let sample: unknown;
      try {
        sample = method(...structuredClone(args));
      } catch (error) {
        return fail(
          `${column.name}: ${spec.method} refuses these args (${error instanceof Error ? error.message : String(error)})`,
        );
      }
      if (overValueBound(sizeText(sample)))
        return fail(
          `${column.name}: ${spec.method} with these args makes values over ${MAX_VALUE_BYTES / 1024} KiB`,
        );
      return { ok: true, generator: { kind: 'faker', method: spec.method as string, args } };
    }
  }
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
    case 'fake':
      return generator.fake === 'boolean' ? 2 : null;
    default:
      return null;
  }
}
