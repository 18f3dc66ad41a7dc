import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { checkConfigRules } from './config-check.ts';
import { compileTableTransforms, positionalTransform } from './row-transform.ts';
import { planRun } from './run-plan.ts';

const pk = (...columns: string[]) => ({ name: 'pk', columns, deferrable: false, initially_deferred: false });
const MODEL = makeSchema([
  makeTable('users', {
    columns: [
      makeColumn('id', { nullable: false }),
      makeColumn('email', { type: 'character varying(100)', nullable: false }),
      makeColumn('score'),
    ],
    primary_key: pk('id'),
  }),
  makeTable('orders', {
    columns: [makeColumn('id', { nullable: false }), makeColumn('buyer', { type: 'character varying(100)' })],
    primary_key: pk('id'),
    foreign_keys: [
      {
        name: 'orders_buyer',
        columns: ['buyer'],
        referenced_schema: 'public',
        referenced_table: 'users',
        referenced_columns: ['email'],
        on_update: 'no action',
        on_delete: 'no action',
        deferrable: false,
        initially_deferred: false,
      },
    ],
  }),
]);

function transforms(key = Buffer.alloc(32, 3)) {
  const { problems, checked } = checkConfigRules(MODEL, [
    { table: 'users', column: 'email', transformer: 'fake', options: { kind: 'email' } },
    { table: 'users', column: 'score', transformer: 'shuffle' },
  ]);
  expect(problems).toEqual([]);
  return compileTableTransforms(planRun(MODEL, checked), key);
}

describe('compileTableTransforms', () => {
  it('gives a referencing column the same value as the key it references, leaving other columns alone', () => {
    const t = transforms();
    const users = t.get('public.users')!;
    const orders = t.get('public.orders')!;
    const user = users.row({ id: 1, email: 'ada@x.org', score: 3 });
    const order = orders.row({ id: 10, buyer: 'ada@x.org' });
    expect(user.email).toMatch(/@example\.net$/);
    expect(order.buyer).toBe(user.email);
    expect(order.id).toBe(10);
    expect(user.score).toBe(3);
  });

  it('shuffles within a batch by a keyed order of the rows, keeping every value and not changing the input', () => {
    const users = transforms().get('public.users')!;
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, email: `u${i}@x.org`, score: i * 10 }));
    const out = users.batch(rows);
    expect(out.map((r) => r.score).sort((a, b) => Number(a) - Number(b))).toEqual(rows.map((r) => r.score));
    expect(out.filter((r, i) => r.score === rows[i]?.score).length).toBeLessThan(10);
    expect(users.batch(rows)).toEqual(out);
    expect(rows[0]).toEqual({ id: 0, email: 'u0@x.org', score: 0 });
    expect(transforms(Buffer.alloc(32, 4)).get('public.users')!.batch(rows)).not.toEqual(out);
  });
});

describe('positionalTransform', () => {
  it("takes and gives the row pipeline's text rows, matching a referencing column to its key", () => {
    const t = transforms();
    const users = positionalTransform(t.get('public.users')!, ['id', 'email', 'score']);
    const orders = positionalTransform(t.get('public.orders')!, ['buyer', 'id']);
    const input = ['1', 'ada@x.org', '30'];
    const user = users(input);
    expect(user[0]).toBe('1');
    expect(user[1]).toMatch(/@example\.net$/);
    expect(user[2]).toBe('30');
    expect(input[1]).toBe('ada@x.org');
    expect(orders(['ada@x.org', '10'])).toEqual([user[1], '10']);
    expect(users(['2', null, null])).toEqual(['2', null, null]);
  });
});
