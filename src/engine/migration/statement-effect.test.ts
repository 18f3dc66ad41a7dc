// The classification of the statement a killed MySQL apply had in flight (statement-effect.ts): by
// its facts where they tell, by the tables it touches against the schema before the first or after
// the last statement otherwise, and null (never a guess) when neither tells or they disagree.
import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { TableModel } from '../schema/model.ts';
import type { StatementFact } from './facts.ts';
import { statementEffect } from './statement-effect.ts';

const a = { schema: null, name: 'a' };
const b = { schema: null, name: 'b' };
const mysql = (tables: TableModel[]) =>
  makeSchema(
    tables.map((t) => ({ ...t, schema: null })),
    { dialect: 'mysql', flavor: 'mariadb', server_version: '10.11' },
  );

const before = mysql([
  makeTable('a', { columns: [makeColumn('id'), makeColumn('n', { type: 'int' })] }),
  makeTable('b', {
    columns: [makeColumn('id'), makeColumn('m', { type: 'int', default: '0', default_normalized: '0' })],
  }),
]);
const after = mysql([
  makeTable('a', {
    columns: [makeColumn('id'), makeColumn('n', { type: 'bigint' }), makeColumn('note')],
    indexes: [makeIndex('a_n', ['n'])],
  }),
  makeTable('b', {
    columns: [makeColumn('id'), makeColumn('m', { type: 'int', default: '1', default_normalized: '1' })],
  }),
]);

// 0: a.n int → bigint; 1: add a.note and index a_n; 2: b.m default (a restated definition).
const facts: StatementFact[][] = [
  [{ action: 'alter_column_type', table: a, column: 'n', from: 'int', to: 'bigint' }],
  [
    {
      action: 'add_column',
      table: a,
      column: 'note',
      not_null: false,
      has_default: false,
      volatile_default: false,
      computed: false,
    },
    { action: 'create_index', table: a, name: 'a_n', unique: false, concurrently: false },
  ],
  [{ action: 'modify_column', table: b, column: 'm', type: 'int', not_null: false }],
];

const midway = mysql([
  makeTable('a', { columns: [makeColumn('id'), makeColumn('n', { type: 'bigint' })] }),
  before.tables[1]!,
]);

describe('the effect of the statement in flight, from the live schema', () => {
  it('a type change between two known types: the live type tells', () => {
    expect(statementEffect({ index: 0, facts, live: before, before, after }).applied).toBe(false);
    expect(statementEffect({ index: 0, facts, live: midway, before, after }).applied).toBe(true);
  });

  it('a column and an index added: both there, or neither', () => {
    expect(statementEffect({ index: 1, facts, live: midway, before, after }).applied).toBe(false);
    const done = mysql([after.tables[0]!, before.tables[1]!]);
    expect(statementEffect({ index: 1, facts, live: done, before, after }).applied).toBe(true);
    // One without the other cannot come from one atomic statement: it is not guessed.
    const half = mysql([{ ...after.tables[0]!, indexes: [] }, before.tables[1]!]);
    expect(statementEffect({ index: 1, facts, live: half, before, after })).toMatchObject({ applied: null });
  });

  it('a definition restated whole: the table against the schema before the first statement', () => {
    const done = mysql([after.tables[0]!, before.tables[1]!]);
    expect(statementEffect({ index: 2, facts, live: done, before, after }).applied).toBe(false);
    expect(statementEffect({ index: 2, facts, live: after, before, after }).applied).toBe(true);
  });

  it('a table touched before and after it, with facts that do not tell: null', () => {
    const restated: StatementFact[][] = [
      [{ action: 'modify_column', table: b, column: 'm', type: 'int', not_null: false }],
      [{ action: 'modify_column', table: b, column: 'm', type: 'int', not_null: false }],
      [{ action: 'modify_column', table: b, column: 'm', type: 'int', not_null: false }],
    ];
    expect(statementEffect({ index: 1, facts: restated, live: after, before, after }).applied).toBeNull();
  });

  it('data and statements that do not parse: null', () => {
    const data: StatementFact[][] = [[{ action: 'data_change', table: a }]];
    expect(statementEffect({ index: 0, facts: data, live: after, before, after }).applied).toBeNull();
    expect(statementEffect({ index: 0, facts: [null], live: after, before, after }).applied).toBeNull();
  });
});
