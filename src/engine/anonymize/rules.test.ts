import { describe, expect, it } from 'vitest';
import { columnShape } from './column-type.ts';
import { keepsDistinct } from './compile.ts';
import { checkTransformer, type TransformerSpec } from './rules.ts';

const problems = (spec: TransformerSpec, type: string, nullable = true) =>
  checkTransformer(spec, columnShape(type, nullable)).map((p) => ({ path: p.path.join('.'), type: p.type }));

describe('checkTransformer', () => {
  it('accepts every transformer on a column it fits', () => {
    const fitting: [TransformerSpec, string][] = [
      [{ transformer: 'null' }, 'text'],
      [{ transformer: 'constant', options: { value: 'x' } }, 'varchar(10)'],
      [{ transformer: 'choice', options: { values: [1, 2] } }, 'smallint'],
      [{ transformer: 'hash', options: { length: 12 } }, 'varchar(40)'],
      [{ transformer: 'mask', options: { keep_start: 1, keep_end: 2, char: 'x' } }, 'text'],
      [{ transformer: 'scramble' }, 'char(8)'],
      [{ transformer: 'noise', options: { ratio: 0.2 } }, 'numeric(10,2)'],
      [{ transformer: 'noise', options: { days: 10 } }, 'timestamp without time zone'],
      [{ transformer: 'range', options: { min: 1, max: 5 } }, 'int unsigned'],
      [{ transformer: 'range', options: { min: '1990-01-01', max: '2000-01-01' } }, 'date'],
      [{ transformer: 'generalize', options: { step: 5 } }, 'bigint'],
      [{ transformer: 'generalize', options: { unit: 'year' } }, 'datetime'],
      [{ transformer: 'shuffle' }, 'integer'],
      [{ transformer: 'fake', options: { kind: 'email', locale: 'de' } }, 'varchar(64)'],
      [{ transformer: 'fake', options: { kind: 'uuid' } }, 'uuid'],
      [{ transformer: 'fake', options: { kind: 'ipv4' } }, 'inet'],
      [{ transformer: 'json', options: { paths: { '$.a[*].b': { transformer: 'redact' } } } }, 'jsonb'],
      [{ transformer: 'redact', options: { deterministic: false, keep_null: true, unique: false } }, 'text'],
    ];
    for (const [spec, type] of fitting)
      expect(problems(spec, type), `${spec.transformer} on ${type}`).toEqual([]);
  });

  it('names an unknown transformer', () => {
    const [problem] = checkTransformer({ transformer: 'tokenize' }, columnShape('text'));
    expect(problem).toEqual({
      path: ['transformer'],
      msg: 'Unknown transformer "tokenize"',
      type: 'unknown_transformer',
    });
  });

  it('refuses a transformer that does not fit the type, nullability or length', () => {
    expect(problems({ transformer: 'mask' }, 'integer')).toEqual([
      { path: 'transformer', type: 'type_mismatch' },
    ]);
    expect(problems({ transformer: 'null' }, 'text', false)).toEqual([
      { path: 'transformer', type: 'type_mismatch' },
    ]);
    expect(problems({ transformer: 'fake', options: { kind: 'email' } }, 'varchar(20)')).toEqual([
      { path: 'transformer', type: 'type_mismatch' },
    ]);
    expect(problems({ transformer: 'fake', options: { kind: 'city' } }, 'date')).toEqual([
      { path: 'transformer', type: 'type_mismatch' },
    ]);
    expect(problems({ transformer: 'constant', options: { value: 'toolong' } }, 'varchar(3)')).toEqual([
      { path: 'options.value', type: 'type_mismatch' },
    ]);
    expect(
      problems({ transformer: 'json', options: { paths: { '$.a': { transformer: 'mask' } } } }, 'text'),
    ).toEqual([{ path: 'transformer', type: 'type_mismatch' }]);
  });

  it('refuses options out of range or unknown', () => {
    expect(problems({ transformer: 'hash', options: { length: 65 } }, 'text')).toEqual([
      { path: 'options.length', type: 'out_of_range' },
    ]);
    expect(problems({ transformer: 'noise', options: { ratio: 0 } }, 'integer')).toEqual([
      { path: 'options.ratio', type: 'out_of_range' },
    ]);
    expect(problems({ transformer: 'noise', options: { days: 0 } }, 'date')).toEqual([
      { path: 'options.days', type: 'out_of_range' },
    ]);
    expect(problems({ transformer: 'range', options: { min: 5, max: 1 } }, 'integer')).toEqual([
      { path: 'options.min', type: 'out_of_range' },
    ]);
    expect(problems({ transformer: 'range', options: { min: 0, max: 300 } }, 'tinyint unsigned')).toEqual([
      { path: 'options.max', type: 'type_mismatch' },
    ]);
    expect(problems({ transformer: 'mask', options: { char: '**' } }, 'text')).toEqual([
      { path: 'options.char', type: 'invalid_option' },
    ]);
    expect(problems({ transformer: 'fake', options: { kind: 'email', locale: 'xx_YY' } }, 'text')).toEqual([
      { path: 'options.locale', type: 'invalid_option' },
    ]);
    expect(problems({ transformer: 'scramble', options: { ratio: 1 } }, 'text')).toEqual([
      { path: 'options.ratio', type: 'invalid_option' },
    ]);
    expect(
      problems({ transformer: 'json', options: { paths: { 'a.b': { transformer: 'mask' } } } }, 'json'),
    ).toEqual([{ path: 'options.paths.a.b', type: 'invalid_option' }]);
    expect(
      problems({ transformer: 'json', options: { paths: { '$.a': { transformer: 'shuffle' } } } }, 'json'),
    ).toEqual([{ path: 'options.paths.$.a.transformer', type: 'invalid_option' }]);
  });
});

describe('keepsDistinct', () => {
  it('holds for permutations and long keyed tags only', () => {
    const text = columnShape('varchar(255)');
    expect(keepsDistinct({ transformer: 'shuffle' }, text)).toBe(true);
    expect(keepsDistinct({ transformer: 'hash' }, text)).toBe(true);
    expect(keepsDistinct({ transformer: 'hash' }, columnShape('varchar(8)'))).toBe(false);
    expect(keepsDistinct({ transformer: 'fake', options: { kind: 'email' } }, text)).toBe(true);
    expect(keepsDistinct({ transformer: 'fake', options: { kind: 'first_name' } }, text)).toBe(false);
    expect(keepsDistinct({ transformer: 'mask' }, text)).toBe(false);
  });
});
