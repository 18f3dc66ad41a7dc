// The row producer alone: rows are a function of the seed and the row number, not of the batch
// size; another seed gives other rows; an explicit faker method gives the same values whichever
// row a stream starts from (it is reseeded per block of 1,000 rows, not per value).
import { describe, expect, it } from 'vitest';
import { makeColumn } from '../../../test/support/schema-models.ts';
import type { ColumnModel, SchemaModel, TableModel } from '../schema/model.ts';
import type { SeedDefinition } from './definition.ts';
import { planSeed } from './plan.ts';
import { KeyPool, poolKey, tableProducer } from './table-rows.ts';

const column = (name: string, type: string, extra: Partial<ColumnModel> = {}): ColumnModel =>
  makeColumn(name, { type, nullable: false, ...extra });

const people: TableModel = {
  schema: 'public',
  name: 'people',
  comment: null,
  columns: [
    column('id', 'integer'),
    column('email', 'character varying(80)'),
    column('full_name', 'text'),
    column('nickname', 'text', { nullable: true }),
    column('born', 'date'),
    column('score', 'integer'),
  ],
  primary_key: { name: 'people_pkey', columns: ['id'], deferrable: false, initially_deferred: false },
  unique_constraints: [
    { name: 'people_email_key', columns: ['email'], deferrable: false, initially_deferred: false },
  ],
  check_constraints: [
    { name: 'people_score_check', expression: 'CHECK (((score >= 10) AND (score <= 20)))' },
  ],
  exclusion_constraints: [],
  foreign_keys: [],
  indexes: [],
};

const model: SchemaModel = {
  dialect: 'postgresql',
  flavor: 'postgresql',
  server_version: '16',
  tables: [people],
  enums: [],
  sequences: [],
  unmanaged: [],
} as unknown as SchemaModel;

const definition: SeedDefinition = {
  tables: [
    { table: 'people', rows: 2500, columns: { nickname: { kind: 'faker', method: 'internet.username' } } },
  ],
};

function rows(seed: number, batchRows: number): string {
  const { plan, problems } = planSeed(model, definition, () => false);
  expect(problems).toEqual([]);
  const table = plan!.tables[0]!;
  const pools = new Map([[poolKey(table.key, ['id']), new KeyPool([])]]);
  const producer = tableProducer(table, {
    seed,
    locale: 'en',
    keyBase: new Map([['id', 0n]]),
    pools,
    recorded: [],
  });
  return [...producer.batches(batchRows)].map((b) => b.data.toString('utf8')).join('');
}

describe('the seed row producer', () => {
  it('writes the same bytes whatever the batch size, and other bytes for another seed', () => {
    const a = rows(42, 7);
    expect(rows(42, 1000)).toBe(a);
    expect(rows(42, 100_000)).toBe(a);
    expect(rows(43, 1000)).not.toBe(a);
    const lines = a.trimEnd().split('\n');
    expect(lines).toHaveLength(2500);
    const fields = lines.map((l) => l.split('\t'));
    expect(fields.map((f) => f[0])).toEqual(Array.from({ length: 2500 }, (_, i) => String(i + 1)));
    expect(new Set(fields.map((f) => f[1])).size).toBe(2500);
    expect(fields.every((f) => Number(f[5]) >= 10 && Number(f[5]) <= 20)).toBe(true);
    expect(fields.every((f) => (f[1] as string).length <= 80 && (f[1] as string).includes('@'))).toBe(true);
  });

  it('gives a row the same faker value whether the stream starts at it or before it', () => {
    const { plan } = planSeed(model, definition, () => false);
    const table = plan!.tables[0]!;
    const make = () =>
      tableProducer(table, {
        seed: 5,
        locale: 'en',
        keyBase: new Map([['id', 0n]]),
        pools: new Map(),
        recorded: [],
      });
    const inOrder = make();
    const all = Array.from({ length: 1500 }, (_, i) => inOrder.row(i));
    const jumped = make();
    expect(jumped.row(1234)).toEqual(all[1234]);
    expect(jumped.row(1235)).toEqual(all[1235]);
    expect(make().row(3)).toEqual(all[3]);
  });

  it('infers the generator of a column named like an inherited member (constructor, toString)', () => {
    const odd: TableModel = {
      ...people,
      name: 'odd',
      columns: [column('id', 'integer'), column('constructor', 'text'), column('toString', 'text')],
      unique_constraints: [],
      check_constraints: [],
    };
    const { plan, problems } = planSeed(
      { ...model, tables: [odd] } as SchemaModel,
      { tables: [{ table: 'odd', rows: 3 }] },
      () => false,
    );
    expect(problems).toEqual([]);
    const resolved = plan!.tables[0]!.columns.filter((c) => c.name !== 'id');
    // Inferred from name and type by a rule, not taken for a generator given under that name.
    expect(resolved.map((c) => [c.name, c.origin])).toEqual([
      ['constructor', 'text'],
      ['toString', 'text'],
    ]);
  });

  it('writes the key of a table whose other columns the database fills', () => {
    const counters: TableModel = {
      ...people,
      name: 'counters',
      columns: [
        column('id', 'integer', { default: "nextval('counters_id_seq'::regclass)" }),
        column('at', 'timestamp', { default: 'now()' }),
      ],
      primary_key: { name: 'counters_pkey', columns: ['id'], deferrable: false, initially_deferred: false },
      unique_constraints: [],
      check_constraints: [],
    };
    const only = planSeed(
      { ...model, tables: [counters] },
      { tables: [{ table: 'counters', rows: 3, columns: { at: { kind: 'default' } } }] },
      () => false,
    );
    expect(only.problems).toEqual([]);
    const producer = tableProducer(only.plan!.tables[0]!, {
      seed: 1,
      locale: 'en',
      keyBase: new Map([['id', 7n]]),
      pools: new Map(),
      recorded: [],
    });
    expect(producer.columns).toEqual(['id']);
    expect([...producer.batches(10)].map((b) => b.data.toString())).toEqual(['8\n9\n10\n']);
  });
});
