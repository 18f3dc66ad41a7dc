import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeTable } from '../../../test/support/schema-models.ts';
import type { TableModel } from '../schema/model.ts';
import { rollbackKeyOf, rowKeys } from './rollback-key.ts';

const table = (parts: Partial<TableModel>): TableModel =>
  makeTable('people', {
    columns: ['id', 'email', 'name']
      .map((name) => makeColumn(name, { nullable: false }))
      .toSpliced(2, 0, makeColumn('nick')),
    ...parts,
  });

const pk = { name: 'people_pkey', columns: ['id'], deferrable: false, initially_deferred: false };
const uniqueOn = (...columns: string[]) => ({
  name: `u_${columns.join('_')}`,
  columns,
  deferrable: false,
  initially_deferred: false,
});
const update = (...set: string[]) => ({
  kind: 'update' as const,
  table: 'people',
  set_columns: set,
  upsert: false,
});
const insert = { kind: 'insert' as const, table: 'people', set_columns: [], upsert: false };

describe('rollbackKeyOf', () => {
  it('finds rows by the primary key, else by a unique key on NOT NULL columns', () => {
    expect(
      rollbackKeyOf(update('name'), table({ primary_key: pk }), { flavor: 'postgresql', rules: false }).key,
    ).toEqual(['id']);
    expect(
      rollbackKeyOf(update('name'), table({ unique_constraints: [uniqueOn('email')] }), {
        flavor: 'postgresql',
        rules: false,
      }).key,
    ).toEqual(['email']);
  });

  it('does not trust a unique key with a nullable column, a partial or an expression index', () => {
    const partial = makeIndex('p', ['email'], { unique: true, predicate: 'id > 0' });
    const expression = makeIndex('e', ['lower(email)'], { unique: true });
    const verdict = rollbackKeyOf(
      update('name'),
      table({ unique_constraints: [uniqueOn('nick')], indexes: [partial, expression] }),
      { flavor: 'postgresql', rules: false },
    );
    expect(verdict).toMatchObject({ reversible: false, reason: expect.stringMatching(/no primary key/) });
  });

  it('finds an UPDATE that changes the primary key by another key it leaves alone', () => {
    const both = table({ primary_key: pk, unique_constraints: [uniqueOn('email')] });
    expect(rollbackKeyOf(update('id', 'name'), both, { flavor: 'postgresql', rules: false }).key).toEqual([
      'email',
    ]);
    expect(rollbackKeyOf(update('id', 'email'), both, { flavor: 'postgresql', rules: false })).toMatchObject({
      reversible: false,
      reason: expect.stringMatching(/changes every key/),
    });
  });

  it('records INSERTs through RETURNING: not on MySQL 8, and never an upsert', () => {
    const keyed = table({ primary_key: pk });
    expect(rollbackKeyOf(insert, keyed, { flavor: 'mariadb', rules: false }).reversible).toBe(true);
    expect(rollbackKeyOf(insert, keyed, { flavor: 'mysql', rules: false }).reason).toMatch(/RETURNING/);
    expect(
      rollbackKeyOf({ ...insert, upsert: true }, keyed, { flavor: 'postgresql', rules: false }).reason,
    ).toMatch(/on conflict/);
  });

  it('does not trust a table with rewrite rules', () => {
    expect(
      rollbackKeyOf(update('name'), table({ primary_key: pk }), { flavor: 'postgresql', rules: true }).reason,
    ).toMatch(/rewrite rules/);
  });

  it('lists the primary key first', () => {
    expect(rowKeys(table({ primary_key: pk, unique_constraints: [uniqueOn('email')] }))).toEqual([
      ['id'],
      ['email'],
    ]);
  });
});
