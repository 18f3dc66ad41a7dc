// The closed set of transformers (docs/contract.md §9.2) and the check of a transformer against the column it is
// for: the kind exists, its options are within range, and it fits the column's type, nullability
// and length. What passes here compiles (compile.ts) without further checks.
import type { ColumnFamily, ColumnShape } from './column-type.ts';
import { FAKER_LOCALES } from './dictionaries.ts';
import { FAKE_KINDS, type FakeKind, minimumLength } from './fake.ts';
import { parseJsonPath } from './json-path.ts';
import { readTemporal } from './temporal.ts';

export const TRANSFORMER_KINDS = [
  'null',
  'constant',
  'choice',
  'hash',
  'mask',
  'scramble',
  'noise',
  'range',
  'generalize',
  'shuffle',
  'fake',
  'json',
  'redact',
] as const;
export type TransformerKind = (typeof TRANSFORMER_KINDS)[number];

export interface TransformerSpec {
  transformer: string;
  options?: Record<string, unknown>;
}

export type ProblemType = 'unknown_transformer' | 'type_mismatch' | 'out_of_range' | 'invalid_option';

export interface RuleProblem {
  /** Where, from the rule: `['transformer']`, `['options', 'ratio']`, `['options', 'paths', '$.a']`. */
  path: (string | number)[];
  msg: string;
  type: ProblemType;
}

/** Options every transformer takes (docs/contract.md §9.2). */
export const COMMON_OPTIONS = ['deterministic', 'keep_null', 'unique'] as const;

const OPTIONS: Record<TransformerKind, readonly string[]> = {
  null: [],
  constant: ['value'],
  choice: ['values'],
  hash: ['length'],
  mask: ['keep_start', 'keep_end', 'char'],
  scramble: [],
  noise: ['ratio', 'days'],
  range: ['min', 'max'],
  generalize: ['step', 'unit'],
  shuffle: [],
  fake: ['kind', 'locale'],
  json: ['paths'],
  redact: [],
};

const TEXTUAL: ReadonlySet<ColumnFamily> = new Set(['text']);
const NUMERIC: ReadonlySet<ColumnFamily> = new Set(['integer', 'numeric']);
const TEMPORAL: ReadonlySet<ColumnFamily> = new Set(['date', 'timestamp']);

export function isTransformerKind(kind: string): kind is TransformerKind {
  return (TRANSFORMER_KINDS as readonly string[]).includes(kind);
}

/** Whether a literal value (constant, choice) fits the column; a message when not. */
export function valueMisfit(value: unknown, shape: ColumnShape): string | null {
  if (value === null) return shape.nullable ? null : 'the column is NOT NULL';
  switch (shape.family) {
    case 'text':
    case 'uuid':
    case 'inet':
      if (typeof value !== 'string') return 'a string is expected';
      if (shape.maxLength !== null && Array.from(value).length > shape.maxLength)
        return `longer than the column's ${shape.maxLength} characters`;
      return null;
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'an integer is expected';
      const v = BigInt(value);
      if ((shape.min !== null && v < shape.min) || (shape.max !== null && v > shape.max))
        return `outside the column's range ${shape.min}..${shape.max}`;
      return null;
    }
    case 'numeric':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'a number is expected';
    case 'date':
    case 'timestamp':
      return typeof value === 'string' && readTemporal(value) ? null : 'an ISO 8601 date is expected';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'a boolean is expected';
    default:
      return null;
  }
}

type Check = (options: Record<string, unknown>, shape: ColumnShape, problem: Problem) => void;
type Problem = (path: (string | number)[], msg: string, type?: ProblemType) => void;

function families(allowed: ReadonlySet<ColumnFamily>, shape: ColumnShape, problem: Problem, kind: string) {
  if (!allowed.has(shape.family))
    problem(['transformer'], `${kind} does not fit a ${shape.family} column`, 'type_mismatch');
}

function integerOption(
  options: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  problem: Problem,
): void {
  const v = options[name];
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isInteger(v))
    problem(['options', name], 'must be an integer', 'invalid_option');
  else if (v < min || v > max)
    problem(['options', name], `must be between ${min} and ${max}`, 'out_of_range');
}

function positiveNumber(options: Record<string, unknown>, name: string, max: number, problem: Problem): void {
  const v = options[name];
  if (typeof v !== 'number' || !Number.isFinite(v))
    problem(['options', name], 'must be a number', 'invalid_option');
  else if (v <= 0 || v > max)
    problem(['options', name], `must be greater than 0 and at most ${max}`, 'out_of_range');
}

const CHECKS: Record<TransformerKind, Check> = {
  null: (_o, shape, problem) => {
    if (!shape.nullable) problem(['transformer'], 'null does not fit a NOT NULL column', 'type_mismatch');
  },
  constant: (o, shape, problem) => {
    if (!('value' in o)) return problem(['options', 'value'], 'is required', 'invalid_option');
    const misfit = valueMisfit(o.value, shape);
    if (misfit) problem(['options', 'value'], misfit, 'type_mismatch');
  },
  choice: (o, shape, problem) => {
    if (!Array.isArray(o.values) || o.values.length === 0 || o.values.length > 10_000)
      return problem(['options', 'values'], 'must be a list of 1 to 10000 values', 'invalid_option');
    o.values.forEach((v, i) => {
      const misfit = valueMisfit(v, shape);
      if (misfit) problem(['options', 'values', i], misfit, 'type_mismatch');
    });
  },
  hash: (o, shape, problem) => {
    families(TEXTUAL, shape, problem, 'hash');
    integerOption(o, 'length', 1, 64, problem);
  },
  mask: (o, shape, problem) => {
    families(TEXTUAL, shape, problem, 'mask');
    integerOption(o, 'keep_start', 0, 1000, problem);
    integerOption(o, 'keep_end', 0, 1000, problem);
    if (o.char !== undefined && (typeof o.char !== 'string' || Array.from(o.char).length !== 1))
      problem(['options', 'char'], 'must be one character', 'invalid_option');
  },
  scramble: (_o, shape, problem) => families(TEXTUAL, shape, problem, 'scramble'),
  redact: (_o, shape, problem) => families(TEXTUAL, shape, problem, 'redact'),
  noise: (o, shape, problem) => {
    if (NUMERIC.has(shape.family)) return positiveNumber(o, 'ratio', 10, problem);
    if (TEMPORAL.has(shape.family)) {
      if (o.days === undefined) return problem(['options', 'days'], 'is required', 'invalid_option');
      return integerOption(o, 'days', 1, 36_500, problem);
    }
    families(NUMERIC, shape, problem, 'noise');
  },
  range: (o, shape, problem) => {
    if (NUMERIC.has(shape.family)) {
      for (const name of ['min', 'max']) {
        const misfit = valueMisfit(o[name], { ...shape, nullable: false });
        if (misfit) problem(['options', name], misfit, 'type_mismatch');
      }
      if (typeof o.min === 'number' && typeof o.max === 'number' && o.min > o.max)
        problem(['options', 'min'], 'must not be greater than max', 'out_of_range');
      return;
    }
    if (TEMPORAL.has(shape.family)) {
      const min = typeof o.min === 'string' ? readTemporal(o.min) : null;
      const max = typeof o.max === 'string' ? readTemporal(o.max) : null;
      if (!min) problem(['options', 'min'], 'an ISO 8601 date is expected', 'invalid_option');
      if (!max) problem(['options', 'max'], 'an ISO 8601 date is expected', 'invalid_option');
      if (min && max && min.ms > max.ms) problem(['options', 'min'], 'must not be after max', 'out_of_range');
      return;
    }
    families(NUMERIC, shape, problem, 'range');
  },
  generalize: (o, shape, problem) => {
    if (NUMERIC.has(shape.family)) {
      positiveNumber(o, 'step', Number.MAX_SAFE_INTEGER, problem);
      if (shape.family === 'integer' && typeof o.step === 'number' && !Number.isInteger(o.step))
        problem(['options', 'step'], 'must be an integer on an integer column', 'invalid_option');
      return;
    }
    if (TEMPORAL.has(shape.family)) {
      if (o.unit !== 'month' && o.unit !== 'year')
        problem(['options', 'unit'], "must be 'month' or 'year'", 'invalid_option');
      return;
    }
    families(NUMERIC, shape, problem, 'generalize');
  },
  shuffle: (_o, shape, problem) => {
    if (shape.family === 'json' || shape.family === 'other')
      problem(['transformer'], `shuffle does not fit a ${shape.family} column`, 'type_mismatch');
  },
  fake: (o, shape, problem) => {
    if (typeof o.kind !== 'string' || !(FAKE_KINDS as readonly string[]).includes(o.kind))
      return problem(['options', 'kind'], `must be one of ${FAKE_KINDS.join(', ')}`, 'invalid_option');
    const locale = o.locale ?? 'en';
    if (typeof locale !== 'string' || !FAKER_LOCALES.includes(locale))
      return problem(['options', 'locale'], `unknown locale ${JSON.stringify(locale)}`, 'invalid_option');
    const kind = o.kind as FakeKind;
    const native =
      (kind === 'uuid' && shape.family === 'uuid') || (kind === 'ipv4' && shape.family === 'inet');
    if (native) return;
    if (shape.family !== 'text')
      return problem(['transformer'], `fake ${kind} does not fit a ${shape.family} column`, 'type_mismatch');
    const needed = minimumLength(kind, locale);
    if (shape.maxLength !== null && shape.maxLength < needed)
      problem(
        ['transformer'],
        `fake ${kind} needs at least ${needed} characters; the column holds ${shape.maxLength}`,
        'type_mismatch',
      );
  },
  json: (o, shape, problem) => {
    if (shape.family !== 'json')
      problem(['transformer'], `json does not fit a ${shape.family} column`, 'type_mismatch');
    const paths = o.paths;
    if (
      paths === null ||
      typeof paths !== 'object' ||
      Array.isArray(paths) ||
      Object.keys(paths).length === 0
    )
      return problem(
        ['options', 'paths'],
        'must map at least one JSON path to a transformer',
        'invalid_option',
      );
    for (const [path, nested] of Object.entries(paths)) {
      const at = ['options', 'paths', path];
      if (!parseJsonPath(path)) {
        problem(at, 'is not a JSON path this service reads ($, .name, [n], [*])', 'invalid_option');
        continue;
      }
      const spec = nested as TransformerSpec;
      if (spec === null || typeof spec !== 'object' || typeof spec.transformer !== 'string') {
        problem(at, 'must be a transformer {transformer, options?}', 'invalid_option');
        continue;
      }
      if (spec.transformer === 'json' || spec.transformer === 'shuffle') {
        problem([...at, 'transformer'], `${spec.transformer} cannot be used inside json`, 'invalid_option');
        continue;
      }
      for (const p of checkTransformer(spec, jsonLeafShape(spec))) problem([...at, ...p.path], p.msg, p.type);
    }
  },
};

/** The shape a value inside a JSON document is taken for, from what the nested transformer does to it. */
export function jsonLeafShape(spec: TransformerSpec): ColumnShape {
  const o = spec.options ?? {};
  const temporal =
    (spec.transformer === 'noise' && o.days !== undefined) ||
    (spec.transformer === 'generalize' && o.unit !== undefined) ||
    (spec.transformer === 'range' && typeof o.min === 'string');
  const numeric = ['noise', 'range', 'generalize'].includes(spec.transformer) && !temporal;
  return {
    family: temporal ? 'timestamp' : numeric ? 'numeric' : 'text',
    maxLength: null,
    min: null,
    max: null,
    scale: null,
    precision: null,
    nullable: true,
  };
}

/** Every problem of a transformer on a column of this shape; none means it compiles. */
export function checkTransformer(spec: TransformerSpec, shape: ColumnShape): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const problem: Problem = (path, msg, type = 'invalid_option') => problems.push({ path, msg, type });
  if (!isTransformerKind(spec.transformer)) {
    problem(
      ['transformer'],
      `Unknown transformer ${JSON.stringify(spec.transformer)}`,
      'unknown_transformer',
    );
    return problems;
  }
  const options = spec.options ?? {};
  const known = new Set([...COMMON_OPTIONS, ...OPTIONS[spec.transformer]]);
  for (const name of Object.keys(options)) {
    if (!known.has(name))
      problem(['options', name], `${spec.transformer} takes no option ${name}`, 'invalid_option');
  }
  for (const name of COMMON_OPTIONS) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      problem(['options', name], 'must be true or false', 'invalid_option');
  }
  CHECKS[spec.transformer](options, shape, problem);
  return problems;
}
