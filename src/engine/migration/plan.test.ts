import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { ForeignKeyModel, SchemaModel } from '../schema/model.ts';
import { invertOperation } from './invert.ts';
import { type MigrationOperation, operationObject } from './operations.ts';
import { planOperations } from './plan.ts';

const fk = (name: string, columns: string[], table: string, referenced: string[]): ForeignKeyModel => ({
  name,
  columns,
  referenced_schema: 'public',
  referenced_table: table,
  referenced_columns: referenced,
  on_update: 'no action',
  on_delete: 'no action',
  deferrable: false,
  initially_deferred: false,
});
const pk = (name: string, columns: string[]) => ({
  name,
  columns,
  deferrable: false,
  initially_deferred: false,
});
const steps = (ops: MigrationOperation[]) =>
  ops.map(
    (op) => `${op.kind === 'alter_column' ? `alter_column:${op.change}` : op.kind} ${operationObject(op)}`,
  );

describe('planOperations', () => {
  it('orders a plan safely: foreign keys dropped first, tables and columns, keys, indexes, foreign keys, drops last', () => {
    const id = makeColumn('id', { nullable: false });
    const target = makeSchema([
      makeTable('a', { columns: [id, makeColumn('old')], primary_key: pk('a_pkey', ['id']) }),
      makeTable('b', {
        columns: [id, makeColumn('a_id')],
        foreign_keys: [fk('b_a_fkey', ['a_id'], 'a', ['id'])],
      }),
      makeTable('gone', { columns: [id] }),
    ]);
    const source = makeSchema([
      makeTable('a', {
        columns: [id, makeColumn('new', { type: 'text' })],
        primary_key: pk('a_pkey', ['id']),
        indexes: [makeIndex('a_new_idx', ['new'])],
      }),
      makeTable('b', { columns: [id, makeColumn('a_id')] }),
      makeTable('c', {
        columns: [id, makeColumn('b_id')],
        foreign_keys: [fk('c_b_fkey', ['b_id'], 'b', ['id'])],
      }),
    ]);
    expect(steps(planOperations(source, target).operations)).toEqual([
      'drop_foreign_key public.b.b_a_fkey',
      'create_table public.c',
      'add_column public.a.new',
      'create_index public.a.a_new_idx',
      'add_foreign_key public.c.c_b_fkey',
      // Tables before columns: a dropped child is backed up with the columns its parent still has.
      'drop_table public.gone',
      'drop_column public.a.old',
    ]);
  });

  it('changes a column in steps the server accepts: default off before the type, NOT NULL before an identity', () => {
    const target = makeSchema([
      makeTable('t', {
        columns: [
          makeColumn('c', { default: '77', default_normalized: '77' }),
          makeColumn('d', { type: 'integer', nullable: false, identity: 'always' }),
          makeColumn('e', {
            type: 'character varying(10)',
            default: "'x'::character varying",
            default_normalized: "'x'",
          }),
        ],
      }),
    ]);
    const source = makeSchema([
      makeTable('t', {
        columns: [
          makeColumn('c', { nullable: false, identity: 'by_default' }),
          makeColumn('d'),
          makeColumn('e', { type: 'text', default: "'x'::text", default_normalized: "'x'" }),
        ],
      }),
    ]);
    expect(steps(planOperations(source, target).operations)).toEqual([
      'alter_column:drop_default public.t.c',
      'alter_column:set_not_null public.t.c',
      'alter_column:add_identity public.t.c',
      'alter_column:drop_identity public.t.d',
      'alter_column:drop_not_null public.t.d',
      'alter_column:drop_default public.t.e',
      'alter_column:type public.t.e',
      'alter_column:set_default public.t.e',
    ]);
  });

  it('keeps to include_tables / exclude_tables', () => {
    const target = makeSchema([makeTable('keep'), makeTable('audit_log'), makeTable('other')]);
    const source = makeSchema([
      makeTable('keep', { columns: [makeColumn('x')] }),
      makeTable('audit_log', { columns: [makeColumn('x')] }),
    ]);
    expect(steps(planOperations(source, target, { exclude_tables: ['audit_*'] }).operations)).toEqual([
      'add_column public.keep.x',
      'drop_table public.other',
    ]);
    expect(steps(planOperations(source, target, { include_tables: ['public.keep'] }).operations)).toEqual([
      'add_column public.keep.x',
    ]);
  });

  it('adds enum values in place (first, outside the transaction) and recreates an enum whose values were removed', () => {
    const uses = [{ schema: 'public', table: 't', column: 'status' }];
    const status = makeColumn('status', {
      type: 'public.mood',
      default: "'ok'::public.mood",
      default_normalized: "'ok'",
    });
    const base = (values: string[], levels: string[]): SchemaModel =>
      makeSchema(
        [
          makeTable('t', {
            columns: [
              status,
              { ...status, name: 'level', type: 'public.level', default: null, default_normalized: null },
            ],
          }),
        ],
        {
          enums: [
            { schema: 'public', name: 'mood', values, used_by: uses },
            { schema: 'public', name: 'level', values: levels, used_by: [{ ...uses[0]!, column: 'level' }] },
          ],
        },
      );
    const plan = planOperations(
      base(['low', 'ok', 'high', 'top'], ['a', 'b']),
      base(['ok', 'high'], ['a', 'b', 'c']),
    );
    expect(
      plan.operations.map((op) => (op.kind === 'add_enum_value' ? [op.value, op.before, op.after] : op.kind)),
    ).toEqual([['low', 'ok', null], ['top', null, 'high'], 'recreate_enum']);
    const recreate = plan.operations[2] as Extract<MigrationOperation, { kind: 'recreate_enum' }>;
    expect(recreate.values).toEqual(['a', 'b']);
    expect(recreate.uses.map((use) => use.column.name)).toEqual(['level']);
  });

  it('moves sequence ownership: detached before drops, attached after the columns exist', () => {
    const sequence = {
      schema: 'public',
      name: 's',
      data_type: 'integer',
      start: '1',
      increment: '1',
      min_value: '1',
      max_value: '2147483647',
      cache: '1',
      cycle: false,
    };
    const col = (name: string) =>
      makeColumn(name, {
        default: "nextval('public.s'::regclass)",
        default_normalized: "nextval('public.s')",
      });
    const target = makeSchema(
      [makeTable('a', { columns: [col('id')] }), makeTable('b', { columns: [col('id')] })],
      {
        sequences: [{ ...sequence, owned_by: { schema: 'public', table: 'a', column: 'id' }, used_by: [] }],
      },
    );
    const source = makeSchema(
      [makeTable('a', { columns: [col('id')] }), makeTable('b', { columns: [col('id')] })],
      {
        sequences: [{ ...sequence, owned_by: { schema: 'public', table: 'b', column: 'id' }, used_by: [] }],
      },
    );
    const [op] = planOperations(source, target).operations;
    expect(op).toMatchObject({ kind: 'set_sequence_owner', after: { table: 'b' }, before: { table: 'a' } });
  });

  it('drops and re-adds the foreign keys that use a primary key being replaced', () => {
    const id = makeColumn('id', { nullable: false });
    const key = fk('child_parent_fkey', ['parent_id'], 'parent', ['id']);
    const child = makeTable('child', { columns: [makeColumn('parent_id')], foreign_keys: [key] });
    const target = makeSchema([
      makeTable('parent', { columns: [id], primary_key: pk('parent_pkey', ['id']) }),
      child,
    ]);
    const source = makeSchema([
      makeTable('parent', { columns: [id], primary_key: { ...pk('parent_pkey', ['id']), deferrable: true } }),
      child,
    ]);
    expect(steps(planOperations(source, target).operations)).toEqual([
      'drop_foreign_key public.child.child_parent_fkey',
      'drop_primary_key public.parent.parent_pkey',
      'add_primary_key public.parent.parent_pkey',
      'add_foreign_key public.child.child_parent_fkey',
    ]);
  });

  it('on MySQL, drops and re-adds foreign keys around a type change of their columns', () => {
    const mysql = { dialect: 'mysql' as const, flavor: 'mariadb' as const };
    const key = { ...fk('c_p', ['p_id'], 'p', ['id']), referenced_schema: null };
    const table = (type: string) => [
      makeTable('p', {
        schema: null,
        columns: [makeColumn('id', { type, nullable: false })],
        primary_key: pk('PRIMARY', ['id']),
      }),
      makeTable('c', { schema: null, columns: [makeColumn('p_id', { type })], foreign_keys: [key] }),
    ];
    const plan = planOperations(makeSchema(table('bigint'), mysql), makeSchema(table('int'), mysql));
    expect(steps(plan.operations)).toEqual([
      'drop_foreign_key c.c_p',
      'alter_column:type p.id',
      'alter_column:type c.p_id',
      'add_foreign_key c.c_p',
    ]);
  });

  it('backs up a dropped column by a key the plan keeps, and cannot without one', () => {
    const id = makeColumn('id', { nullable: false });
    const target = makeSchema([
      makeTable('keyed', { columns: [id, makeColumn('old')], primary_key: pk('keyed_pkey', ['id']) }),
      makeTable('loose', { columns: [makeColumn('a'), makeColumn('old')] }),
    ]);
    const source = makeSchema([
      makeTable('keyed', { columns: [id], primary_key: pk('keyed_pkey', ['id']) }),
      makeTable('loose', { columns: [makeColumn('a')] }),
    ]);
    const plan = planOperations(source, target, { backup_drops: true, plan_id: '7f3c-11aa' });
    expect(steps(plan.operations)).toEqual([
      'ensure_backup_schema dbops_backup',
      'backup_column public.keyed.old',
      'drop_column public.keyed.old',
      'drop_column public.loose.old',
    ]);
    expect(plan.operations[1]).toMatchObject({ backup: '7f3c11aa_1_keyed_old', key: [{ name: 'id' }] });
    expect(plan.notes.map((note) => note.object)).toEqual(['public.loose.old']);
    // The backed-up drop has a rollback (add the column back, restore, re-apply its definition); the other none.
    expect(invertOperation(plan.operations[2]!, 'postgresql')?.operations.map((op) => op.kind)).toEqual([
      'add_column',
      'restore_column',
    ]);
    expect(invertOperation(plan.operations[3]!, 'postgresql')).toBeNull();
  });

  it('refuses a cross-dialect pair and backups without a plan id', () => {
    const pg = makeSchema([]);
    expect(() => planOperations(pg, makeSchema([], { dialect: 'mysql', flavor: 'mysql' }))).toThrow(
      /postgresql.*mysql/,
    );
    expect(() => planOperations(pg, pg, { backup_drops: true })).toThrow(/plan_id/);
  });

  it('reports what it does not manage instead of touching it', () => {
    const target = makeSchema([], {
      unmanaged: [{ kind: 'view', schema: 'public', name: 'v', table: null }],
    });
    const source = makeSchema([], {
      unmanaged: [{ kind: 'function', schema: 'public', name: 'f()', table: null }],
    });
    const plan = planOperations(source, target);
    expect(plan.operations).toEqual([]);
    expect(plan.notes.map((note) => note.object)).toEqual(['function public.f()', 'view public.v']);
  });
});
