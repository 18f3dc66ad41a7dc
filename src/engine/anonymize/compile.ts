// Turns a checked transformer (rules.ts) and the shape of its column into a function of one value:
// what the row pipeline calls per row, so everything that can be decided once (options, purpose
// label, dictionaries, lengths) is decided here. `shuffle` is not a function of one value: it
// permutes a column (shuffle.ts).
import type { ColumnShape } from './column-type.ts';
import { redactText } from './detectors.ts';
import { DISTINCT_FAKE_KINDS, type FakeKind, fakeValue } from './fake.ts';
import { editAt, parseJsonPath } from './json-path.ts';
import {
  type ByteSource,
  canonicalJson,
  keyedSource,
  pick,
  purposeLabel,
  randomSource,
  unitFraction,
} from './keyed.ts';
import { generalizeNumber, type NumberInput, noiseNumber, rangeNumber } from './numbers.ts';
import { COMMON_OPTIONS, jsonLeafShape, type TransformerKind, type TransformerSpec } from './rules.ts';
import { generalizeTemporal, noiseTemporal, rangeTemporal, readTemporal, temporalLike } from './temporal.ts';
import { fitText, hashHex, maskText, scrambleText } from './text.ts';

export interface ValueTransformer {
  (value: unknown): unknown;
  /**
   * The same transformer of a text given as its UTF-8 bytes, data[start, end), for those that only
   * hash their input (hash, fake): the row pipeline then makes no string of the field.
   */
  utf8?: (data: Uint8Array, start: number, end: number) => unknown;
}

/** The options that change a transformer's output, with their defaults: its purpose label's part. */
export function significantOptions(spec: TransformerSpec): Record<string, unknown> {
  const options = { ...(spec.options ?? {}) };
  for (const common of COMMON_OPTIONS) delete options[common];
  if (spec.transformer === 'fake') options.locale ??= 'en';
  return options;
}

/** The purpose label of a transformer: its kind and significant options, never its table or column. */
export function transformerPurpose(spec: TransformerSpec): string {
  return purposeLabel(spec.transformer, significantOptions(spec));
}

/** The text a keyed transformer hashes: equal values of either side of a foreign key give equal text. */
export function inputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('hex');
  if (value === null || value === undefined) return '';
  return canonicalJson(value);
}

function isNumberInput(value: unknown): value is NumberInput {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'bigint') return true;
  return typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value);
}

/** Transformers that make a value out of nothing when keep_null is false; the others derive from the input. */
const GENERATING: ReadonlySet<TransformerKind> = new Set(['constant', 'choice', 'range', 'fake', 'hash']);

/** Whether distinct inputs keep distinct outputs (a permutation, or a keyed tag of 60 bits or more). */
export function keepsDistinct(spec: TransformerSpec, shape: ColumnShape): boolean {
  const o = spec.options ?? {};
  switch (spec.transformer) {
    case 'shuffle':
      return true;
    case 'hash':
      return Math.min(Number(o.length ?? 64), shape.maxLength ?? 64) >= 16;
    case 'fake':
      return DISTINCT_FAKE_KINDS.has(o.kind as FakeKind);
    default:
      return false;
  }
}

/**
 * The longest text a transformer writes into a column of `shape`: a number when its options fix it,
 * `input` when the output is as long as the input (mask, scramble), null when only the column's
 * length bounds it. What a referencing column must hold to take a key's rule.
 */
export function outputLengthBound(spec: TransformerSpec, shape: ColumnShape): number | 'input' | null {
  const o = spec.options ?? {};
  switch (spec.transformer) {
    case 'hash':
      return Math.min(Number(o.length ?? 64), shape.maxLength ?? 64);
    case 'mask':
    case 'scramble':
      return 'input';
    case 'constant':
      return typeof o.value === 'string' ? Array.from(o.value).length : null;
    case 'choice':
      return Array.isArray(o.values) && o.values.every((v) => typeof v === 'string')
        ? Math.max(...o.values.map((v: string) => Array.from(v).length))
        : null;
    case 'fake':
      return o.kind === 'uuid' ? 36 : null;
    default:
      return null;
  }
}

function compileCore(
  spec: TransformerSpec,
  shape: ColumnShape,
  source: ByteSource,
  key: Buffer,
): ValueTransformer {
  const o = spec.options ?? {};
  const bytes = (v: unknown) => source.bytes(inputText(v));
  const signed = (v: unknown) => unitFraction(bytes(v)) * 2 - 1;
  const text = (v: unknown) => (typeof v === 'string' ? v : inputText(v));
  const dateOnly = shape.family === 'date';
  const numeric = shape.family === 'integer' || shape.family === 'numeric';
  switch (spec.transformer as Exclude<TransformerKind, 'shuffle'>) {
    case 'null':
      return () => null;
    case 'constant':
      return () => o.value;
    case 'choice': {
      const values = o.values as unknown[];
      return (v) => pick(values, bytes(v));
    }
    case 'hash': {
      const length = Math.min(Number(o.length ?? 64), shape.maxLength ?? 64);
      return Object.assign((v: unknown) => hashHex(source.bytes(inputText(v)), length), {
        utf8: (data: Uint8Array, start: number, end: number) =>
          hashHex(source.utf8Bytes(data, start, end), length),
      });
    }
    case 'mask': {
      const mask = {
        keep_start: Number(o.keep_start ?? 0),
        keep_end: Number(o.keep_end ?? 4),
        char: String(o.char ?? '*'),
      };
      return (v) => maskText(text(v), mask);
    }
    case 'scramble':
      return (v) => scrambleText(source, text(v));
    case 'redact':
      return (v) => fitText(redactText(text(v)), shape.maxLength);
    case 'noise': {
      if (numeric)
        return (v) => (isNumberInput(v) ? noiseNumber(v, Number(o.ratio), signed(v), shape) : null);
      const days = Number(o.days);
      return (v) => {
        const t = readTemporal(v);
        return t ? noiseTemporal(t, days, signed(v), dateOnly) : null;
      };
    }
    case 'range': {
      if (numeric) {
        const [min, max] = [Number(o.min), Number(o.max)];
        return (v) =>
          rangeNumber(
            isNumberInput(v) ? v : null,
            min,
            max,
            unitFraction(bytes(v)),
            shape,
            typeof v === 'string' ? 'string' : 'number',
          );
      }
      const [min, max] = [readTemporal(o.min)?.ms ?? 0, readTemporal(o.max)?.ms ?? 0];
      return (v) => temporalLike(v, dateOnly)(rangeTemporal(min, max, unitFraction(bytes(v)), dateOnly));
    }
    case 'generalize': {
      if (numeric) return (v) => (isNumberInput(v) ? generalizeNumber(v, Number(o.step), shape) : null);
      const unit = o.unit as 'month' | 'year';
      return (v) => {
        const t = readTemporal(v);
        return t ? generalizeTemporal(t, unit) : null;
      };
    }
    case 'fake': {
      const kind = o.kind as FakeKind;
      const locale = String(o.locale ?? 'en');
      const fake = (b: Buffer) => fitText(fakeValue(kind, locale, b, shape.maxLength), shape.maxLength);
      return Object.assign((v: unknown) => fake(bytes(v)), {
        utf8: (data: Uint8Array, start: number, end: number) => fake(source.utf8Bytes(data, start, end)),
      });
    }
    case 'json': {
      const edits = Object.entries(o.paths as Record<string, TransformerSpec>).map(([path, nested]) => ({
        steps: parseJsonPath(path) ?? [],
        apply: compileTransformer(nested, jsonLeafShape(nested), key),
      }));
      return (v) => {
        const asText = typeof v === 'string';
        let doc: unknown = v;
        if (asText) {
          try {
            doc = JSON.parse(v);
          } catch {
            // Not a document: nothing can be found at a path, and nothing of it may pass in clear.
            return null;
          }
        }
        for (const edit of edits) doc = editAt(doc, edit.steps, edit.apply);
        return asText ? JSON.stringify(doc) : doc;
      };
    }
  }
}

/**
 * A checked transformer (not shuffle) as a function of one value, for a column of this shape.
 * Deterministic transformers are keyed HMACs under `key`, the config's secret.
 */
export function compileTransformer(spec: TransformerSpec, shape: ColumnShape, key: Buffer): ValueTransformer {
  if (spec.transformer === 'shuffle') throw new Error('shuffle permutes a column; see shuffle.ts');
  const o = spec.options ?? {};
  const deterministic = o.deterministic !== false;
  const source = deterministic ? keyedSource(key, transformerPurpose(spec)) : randomSource();
  const core = compileCore(spec, shape, source, key);
  const keepNull = o.keep_null !== false || !GENERATING.has(spec.transformer as TransformerKind);
  const transformer: ValueTransformer = (value) => {
    if (value === null || value === undefined) return keepNull ? null : core(null);
    return core(value);
  };
  // Bytes are never NULL: the wrapper's NULL handling does not apply to them.
  if (core.utf8) transformer.utf8 = core.utf8;
  return transformer;
}
