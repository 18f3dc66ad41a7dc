// Pure checks of planning rules that the fixture round trips (test/fixtures/schema) prove on real
// servers: MySQL column moves, the order around serial ↔ identity, comments apart from definitions.
import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { SchemaModel } from '../schema/model.ts';
import { type MigrationOperation, operationObject } from './operations.ts';
import { planOperations } from './plan.ts';
import { columnMoves } from './plan-tables.ts';

const steps = (ops: MigrationOperation[]) =>
  ops.map(
    (op) => `${op.kind === 'alter_column' ? `alter_column:${op.change}` : op.kind} ${operationObject(op)}`,
  );

describe('column moves (MySQL)', () => {
  const table = (...names: string[]) => makeTable('t', { columns: names.map((name) => makeColumn(name)) });

  it('moves the existing columns that do not follow their source predecessor, and nothing else', () => {
    const moves = columnMoves(table('id', 'a', 'b', 'c'), table('b', 'id', 'c', 'a'));
    const order = (ops: MigrationOperation[]) =>
      ops.map((op) => (op.kind === 'move_column' ? `${op.column.name}>${op.after ?? 'FIRST'}` : ''));
    expect(order(moves)).toEqual(['b>FIRST', 'c>id']);
    expect(columnMoves(table('id', 'a'), table('id', 'x', 'a'))).toEqual([]);
    expect(columnMoves(table('id', 'gone', 'a'), table('id', 'a'))).toEqual([]);
  });

  it('says where each moved column was, for the rollback', () => {
    const [move] = columnMoves(table('a', 'b'), table('b', 'a'));
    expect(move).toMatchObject({ kind: 'move_column', after: null, from: 'a' });
  });
});

describe('PostgreSQL plans around sequences and comments', () => {
  it('drops a serial sequence between the default and ADD IDENTITY, so the identity takes its name', () => {
    const nextval = "nextval('public.t_id_seq'::regclass)";
    const serial = makeColumn('id', { nullable: false, default: nextval, default_normalized: nextval });
    const target: SchemaModel = {
      ...makeSchema([makeTable('t', { columns: [serial] })]),
      sequences: [
        {
          schema: 'public',
          name: 't_id_seq',
          data_type: 'integer',
          start: '1',
          increment: '1',
          min_value: '1',
          max_value: '2147483647',
          cache: '1',
          cycle: false,
          owned_by: { schema: 'public', table: 't', column: 'id' },
          used_by: [{ schema: 'public', table: 't', column: 'id' }],
        },
      ],
    };
    const identity = makeColumn('id', { nullable: false, identity: 'by_default' });
    const source = makeSchema([makeTable('t', { columns: [identity] })]);
    const ops = steps(planOperations(source, target).operations);
    const at = (step: string) => ops.findIndex((s) => s.startsWith(step));
    expect(at('alter_column:drop_default')).toBeLessThan(at('drop_sequence'));
    expect(at('drop_sequence')).toBeLessThan(at('alter_column:add_identity'));
  });

  it('changes a comment on a constraint or index in place, without dropping it', () => {
    const pk = { name: 't_pkey', columns: ['id'], deferrable: false, initially_deferred: false };
    const index = {
      name: 't_v',
      columns: ['v'],
      include: [],
      unique: false,
      method: 'btree',
      predicate: null,
    };
    const columns = [makeColumn('id', { nullable: false }), makeColumn('v')];
    const target = makeSchema([makeTable('t', { columns, primary_key: pk, indexes: [index] })]);
    const source = makeSchema([
      makeTable('t', {
        columns,
        primary_key: { ...pk, comment: 'the key' },
        indexes: [{ ...index, comment: 'lookup' }],
      }),
    ]);
    const ops = planOperations(source, target).operations;
    expect(ops.map((op) => op.kind)).toEqual(['comment_object', 'comment_object']);
  });
});
