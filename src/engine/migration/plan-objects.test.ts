// The planner's ordering of objects, on models alone: views that read a retyped column step aside
// (dependents first) and come back (dependencies first), schemas come first and go last,
// functions that cannot be replaced take their views and triggers with them, and a cycle of views
// is broken rather than looping.
import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { SchemaModel } from '../schema/model.ts';
import type { DependencyRef, RoutineModel, TriggerModel, ViewModel } from '../schema/objects.ts';
import { dependencyOrder } from './dependency-order.ts';
import { invertOperation } from './invert.ts';
import { type MigrationOperation, operationObject } from './operations.ts';
import { planOperations } from './plan.ts';

const dep = (kind: DependencyRef['kind'], name: string, column: string | null = null): DependencyRef => ({
  kind,
  schema: 'public',
  name,
  column,
});
const view = (name: string, depends_on: DependencyRef[], definition = `SELECT … ${name}`): ViewModel => ({
  schema: 'public',
  name,
  materialized: false,
  definition,
  columns: [],
  options: [],
  indexes: [],
  comment: null,
  depends_on,
});
const fn = (name: string, result: string): RoutineModel => ({
  schema: 'public',
  name,
  kind: 'function',
  arguments: '',
  result,
  definition: `CREATE FUNCTION … RETURNS ${result}`,
  comment: null,
  depends_on: [],
});
const trigger = (name: string, fnName: string): TriggerModel => ({
  schema: 'public',
  table: 't',
  name,
  definition: `CREATE TRIGGER ${name} …`,
  state: 'O',
  comment: null,
  depends_on: [dep('routine', fnName)],
});
const model = (type: string, fields: Partial<SchemaModel> = {}): SchemaModel => ({
  ...makeSchema([makeTable('t', { columns: [makeColumn('id'), makeColumn('at', { type })] })]),
  schemas: [{ name: 'public', comment: null }],
  views: [],
  routines: [],
  triggers: [],
  extensions: [],
  types: [],
  ...fields,
});
const steps = (ops: MigrationOperation[]) => ops.map((op) => `${op.kind} ${operationObject(op)}`);

describe('planning objects', () => {
  it('drops the views over a retyped column dependents first, and creates them back dependencies first', () => {
    const views = [
      view('v1', [dep('table', 't', 'at')]),
      view('v2', [dep('view', 'v1', 'at')]),
      view('other', [dep('table', 't', 'id')]),
    ];
    const plan = planOperations(
      model('timestamp with time zone', { views }),
      model('timestamp without time zone', { views }),
    );
    expect(steps(plan.operations)).toEqual([
      'drop_view public.v2',
      'drop_view public.v1',
      'alter_column public.t.at',
      'create_view public.v1',
      'create_view public.v2',
    ]);
  });

  it('creates a schema first and drops one last', () => {
    const source = model('integer', {
      schemas: [
        { name: 'public', comment: null },
        { name: 'app', comment: null },
      ],
    });
    const target = model('integer', {
      schemas: [
        { name: 'public', comment: null },
        { name: 'old', comment: null },
      ],
    });
    const ops = steps(planOperations(source, target).operations);
    expect(ops[0]).toBe('create_schema app');
    expect(ops.at(-1)).toBe('drop_schema old');
  });

  it('replaces a function whose body changes, and drops and recreates one whose result changes with its trigger', () => {
    const target = model('integer', {
      routines: [fn('body()', 'integer'), fn('result()', 'trigger')],
      triggers: [trigger('tr', 'result()')],
    });
    const source = model('integer', {
      routines: [{ ...fn('body()', 'integer'), definition: 'other body' }, fn('result()', 'event_trigger')],
      triggers: [trigger('tr', 'result()')],
    });
    const ops = planOperations(source, target).operations;
    expect(steps(ops)).toEqual([
      'drop_trigger public.t.tr',
      'replace_routine public.body()',
      'drop_routine public.result()',
      'create_routine public.result()',
      'create_trigger public.t.tr',
    ]);
    // Every step has its inverse.
    expect(ops.every((op) => invertOperation(op, 'postgresql') !== null)).toBe(true);
  });

  it('ignores the objects of a model taken before the engine knew them (no drop of everything)', () => {
    const old = makeSchema([makeTable('t', { columns: [makeColumn('id'), makeColumn('at')] })]);
    const current = model('integer', { views: [view('v', [])] });
    expect(steps(planOperations(old, current).operations)).toEqual([]);
  });

  it('orders by dependency and breaks a cycle instead of looping', () => {
    const items = [
      { key: 'a', deps: ['b'] },
      { key: 'b', deps: ['c'] },
      { key: 'c', deps: ['a'] },
      { key: 'd', deps: [] },
    ];
    const order = dependencyOrder(
      items,
      (i) => i.key,
      (i) => i.deps,
    ).map((i) => i.key);
    expect(order).toEqual(['c', 'b', 'a', 'd']);
  });
});
