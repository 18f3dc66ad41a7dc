import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { SchemaModel } from '../schema/model.ts';
import type { DependencyRef, RoutineModel } from '../schema/objects.ts';
import { invertOperation } from './invert.ts';
import { type MigrationOperation, operationObject } from './operations.ts';
import { planOperations } from './plan.ts';
import { namedTypeKey, orderByDependencies } from './plan-graph.ts';

const routine = (schema: string, name: string, depends_on: DependencyRef[]): RoutineModel => ({
  schema,
  name,
  kind: 'function',
  arguments: '',
  result: 'integer',
  definition: `CREATE FUNCTION ${schema}.${name} …`,
  comment: null,
  depends_on,
});
const typeRef = (schema: string, name: string): DependencyRef => ({
  kind: 'type',
  schema,
  name,
  column: null,
});
const routineRef = (schema: string, name: string): DependencyRef => ({
  kind: 'routine',
  schema,
  name,
  column: null,
});
const withObjects = (model: SchemaModel, routines: RoutineModel[]): SchemaModel => ({
  ...model,
  schemas: [],
  views: [],
  routines,
  triggers: [],
  extensions: [],
});
const names = (ops: MigrationOperation[]) => ops.map((op) => `${op.kind} ${operationObject(op)}`);

describe('orderByDependencies', () => {
  const product = makeTable('product', { schema: 'shop', columns: [makeColumn('id')] });
  const setof = routine('shop', 'products_in()', [typeRef('shop', 'product')]);
  const caller = routine('report', 'cheapest()', [routineRef('util', 'with_tax()')]);
  const callee = routine('util', 'with_tax()', []);

  it('creates a function returning a table’s rows after the table, and a caller after its callee in another schema', () => {
    const empty = withObjects(makeSchema([]), []);
    const full = withObjects(makeSchema([product]), [caller, setof, callee]);
    const order = names(planOperations(full, empty).operations);
    expect(order.indexOf('create_routine shop.products_in()')).toBeGreaterThan(
      order.indexOf('create_table shop.product'),
    );
    expect(order.indexOf('create_routine report.cheapest()')).toBeGreaterThan(
      order.indexOf('create_routine util.with_tax()'),
    );
  });

  it('drops them the other way round, and the rollback of either plan is ordered too', () => {
    const empty = withObjects(makeSchema([]), []);
    const full = withObjects(makeSchema([product]), [caller, setof, callee]);
    const order = names(planOperations(empty, full).operations);
    expect(order.indexOf('drop_routine shop.products_in()')).toBeLessThan(
      order.indexOf('drop_table shop.product'),
    );
    expect(order.indexOf('drop_routine report.cheapest()')).toBeLessThan(
      order.indexOf('drop_routine util.with_tax()'),
    );
    const forward = planOperations(full, empty).operations;
    const rollback = [...forward]
      .reverse()
      .flatMap((op) => invertOperation(op, 'postgresql')?.operations ?? []);
    const back = names(rollback);
    expect(back.indexOf('drop_routine shop.products_in()')).toBeLessThan(
      back.indexOf('drop_table shop.product'),
    );
  });

  it('keeps the given order where no dependency says otherwise, and breaks a cycle where it is entered', () => {
    const a = routine('s', 'a()', [routineRef('s', 'b()')]);
    const b = routine('s', 'b()', [routineRef('s', 'a()')]);
    const c = routine('s', 'c()', []);
    const ops: MigrationOperation[] = [a, b, c].map((r) => ({ kind: 'create_routine', routine: r }));
    expect(names(orderByDependencies(ops))).toEqual([
      'create_routine s.a()',
      'create_routine s.b()',
      'create_routine s.c()',
    ]);
    const d = routine('s', 'd()', [routineRef('s', 'c()')]);
    const more: MigrationOperation[] = [d, c].map((r) => ({ kind: 'create_routine', routine: r }));
    expect(names(orderByDependencies(more))).toEqual(['create_routine s.c()', 'create_routine s.d()']);
  });
});

describe('namedTypeKey', () => {
  it('names user types however qualified, quoted, sized or made arrays, and no built-in type', () => {
    expect(namedTypeKey('shop.order_state[]')).toBe('type:shop.order_state');
    expect(namedTypeKey('"Sales"."Re.gion"(3)')).toBe('type:Sales.Re.gion');
    expect(namedTypeKey('character varying(20)')).toBeNull();
    expect(namedTypeKey('timestamp with time zone[]')).toBeNull();
  });
});
