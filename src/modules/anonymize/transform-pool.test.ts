// The transform pool against the same transforms run on one thread: the same rows out, batch by
// batch in order (a shuffle included, whose result depends on batch boundaries), the stage's extra
// fields appended (original key, rank across batches), and a failing transform failing the stream.
import { afterEach, describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { checkConfigRules } from '../../engine/anonymize/config-check.ts';
import { compileTableTransforms, positionalBatchTransform } from '../../engine/anonymize/row-transform.ts';
import { planRun } from '../../engine/anonymize/run-plan.ts';
import { decodeRow, encodeRow, type RowBatch } from '../../engine/rows/copy-text.ts';
import { transformRowBatches } from '../../engine/rows/transform.ts';
import { createTransformPool, type TransformPool } from './transform-pool.ts';

const MODEL = makeSchema([
  makeTable('people', {
    columns: [
      makeColumn('id', { nullable: false }),
      makeColumn('email', { type: 'character varying(100)', nullable: false }),
      makeColumn('score'),
    ],
    primary_key: { name: 'pk', columns: ['id'], deferrable: false, initially_deferred: false },
  }),
]);
const { checked } = checkConfigRules(MODEL, [
  { table: 'people', column: 'email', transformer: 'fake', options: { kind: 'email' } },
  { table: 'people', column: 'score', transformer: 'shuffle' },
]);
const PLAN = planRun(MODEL, checked);
const KEY = Buffer.alloc(32, 7);
const COLUMNS = ['id', 'email', 'score'];

async function* batches(count: number, size: number): AsyncGenerator<RowBatch> {
  for (let b = 0; b < count; b++) {
    let text = '';
    for (let i = 0; i < size; i++) {
      const n = b * size + i;
      text += encodeRow([String(n), `p${n}@mail.org`, n % 5 === 0 ? null : String(n * 3)]);
    }
    yield { data: Buffer.from(text), rows: size };
  }
}
async function collect(stream: AsyncIterable<RowBatch>): Promise<{ rows: number; values: string[][] }[]> {
  const out: { rows: number; values: string[][] }[] = [];
  for await (const batch of stream)
    out.push({
      rows: batch.rows,
      values: batch.data
        .toString('utf8')
        .split('\n')
        .slice(0, -1)
        .map((line) => decodeRow(line) as string[]),
    });
  return out;
}

describe('the transform pool', () => {
  let pool: TransformPool | undefined;
  afterEach(async () => {
    await pool?.close();
  });

  it('gives the batches one thread gives, in order, with the same boundaries', async () => {
    pool = createTransformPool(PLAN, KEY, 3);
    const one = positionalBatchTransform(compileTableTransforms(PLAN, KEY).get('public.people')!, COLUMNS);
    const expected = await collect(transformRowBatches(batches(40, 50), one));
    const got = await collect(pool.transform('public.people', COLUMNS)(batches(40, 50)));
    expect(got).toEqual(expected);
    expect(got).toHaveLength(40);
    expect(got[7]!.values[0]![0]).toBe('350');
    expect(got[7]!.values[0]![1]).toMatch(/@example\.net$/);
  });

  it("appends each row's original key and its rank across batches", async () => {
    pool = createTransformPool(PLAN, KEY, 2);
    const got = await collect(
      pool.transform('public.people', COLUMNS, { keyAt: [1], rank: true })(batches(3, 4)),
    );
    const rows = got.flatMap((b) => b.values);
    expect(rows.map((r) => r[4])).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    expect(rows.map((r) => r[3])).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}@mail.org`));
    expect(rows.every((r) => r[1] !== r[3])).toBe(true);
  });

  it('transforms only the ruled fields when no shuffled column is streamed, extras included', async () => {
    // Without `score` (the shuffled column) the workers take the field-only path: same rows as one thread.
    const columns = ['id', 'email'];
    async function* twoFields(): AsyncGenerator<RowBatch> {
      for await (const batch of batches(3, 4)) {
        const lines = batch.data.toString().split('\n').slice(0, -1);
        const text = lines.map((l) => encodeRow(decodeRow(l).slice(0, 2))).join('');
        yield { data: Buffer.from(text), rows: batch.rows };
      }
    }
    pool = createTransformPool(PLAN, KEY, 2);
    const one = positionalBatchTransform(compileTableTransforms(PLAN, KEY).get('public.people')!, columns);
    const expected = await collect(transformRowBatches(twoFields(), one));
    const got = await collect(
      pool.transform('public.people', columns, { keyAt: [1], rank: true })(twoFields()),
    );
    const rows = got.flatMap((b) => b.values);
    expect(rows.map((r) => r.slice(0, 2))).toEqual(expected.flatMap((b) => b.values));
    expect(rows.map((r) => r[2])).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}@mail.org`));
    expect(rows.map((r) => r[3])).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    expect(rows.every((r) => r[1]!.endsWith('@example.net'))).toBe(true);
  });

  it('fails the stream when a batch cannot be transformed', async () => {
    pool = createTransformPool(PLAN, KEY, 2);
    await expect(collect(pool.transform('public.nobody', COLUMNS)(batches(2, 3)))).rejects.toThrow(
      /anonymization transform failed: no transform for public.nobody/,
    );
  });
});
