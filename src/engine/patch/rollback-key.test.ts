import { describe, expect, it } from 'vitest';
import type { ColumnModel, TableModel } from '../schema/model.ts';
import { rollbackKeyOf, rowKeys } from './rollback-key.ts';

const column = (name: string, nullable = false): ColumnModel => ({
  name,
  ordinal_position: 1,
  type: 'integer',
  nullable,
  default: null,
  default_normalized: null,
  identity: null,
  auto_increment: false,
  generated: null,
  on_update: null,
  collation: null,
  comment: null,
});

function table(parts: Partial<TableModel>): TableModel {
  return {
    schema: 'public',
    name: 'people',
    comment: null,
    columns: [column('id'), column('email'), column('nick', true), column('name')],
    primary_key: null,
    unique_constraints: [],
    check_constraints: [],
    exclusion_constraints: [],
    foreign_keys: [],
    indexes: [],
    ...parts,
  };
}

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
    const partial = {
      name: 'p',
      columns: ['email'],
      include: [],
      unique: true,
      method: 'btree',
      predicate: 'id > 0',
    };
    const expression = { ...partial, columns: ['lower(email)'], predicate: null };
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
