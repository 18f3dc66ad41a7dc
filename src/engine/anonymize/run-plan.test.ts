import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { ForeignKeyModel } from '../schema/model.ts';
import { type ConfigRule, checkConfigRules } from './config-check.ts';
import { planRun, strictViolations } from './run-plan.ts';

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
const pk = (...columns: string[]) => ({ name: 'pk', columns, deferrable: false, initially_deferred: false });
const text = (name: string, fields = {}) => makeColumn(name, { type: 'character varying(100)', ...fields });

const MODEL = makeSchema([
  makeTable('users', {
    columns: [text('login', { nullable: false }), text('city'), text('nick')],
    primary_key: pk('login'),
    unique_constraints: [
      { name: 'users_nick', columns: ['nick'], deferrable: false, initially_deferred: false },
    ],
  }),
  makeTable('posts', {
    columns: [makeColumn('id', { nullable: false }), text('author')],
    primary_key: pk('id'),
    foreign_keys: [fk('posts_author', ['author'], 'users', ['login'])],
  }),
  makeTable('likes', {
    columns: [makeColumn('id', { nullable: false }), text('who')],
    primary_key: pk('id'),
    foreign_keys: [fk('likes_who', ['who'], 'users', ['login'])],
  }),
  makeTable('cities', {
    columns: [text('name', { nullable: false }), text('mayor')],
    primary_key: pk('name'),
  }),
]);

function plan(rules: ConfigRule[]) {
  const { problems, checked } = checkConfigRules(MODEL, rules);
  expect(problems).toEqual([]);
  return planRun(MODEL, checked);
}

describe('planRun', () => {
  it('groups a table with the tables its transformed keys reach, referenced first, with the foreign keys to set aside', () => {
    const { groups, uniqueViolations } = plan([
      { table: 'posts', column: 'id', transformer: 'shuffle' },
      { table: 'users', column: 'login', transformer: 'hash', options: { length: 20 } },
      { table: 'cities', column: 'mayor', transformer: 'fake', options: { kind: 'full_name' } },
    ]);
    expect(uniqueViolations).toEqual([]);
    expect(groups.map((g) => g.tables.map((t) => t.table))).toEqual([
      ['public.cities'],
      ['public.users', 'public.likes', 'public.posts'],
    ]);
    const [, users] = groups;
    expect(users?.foreignKeys).toEqual([
      { table: 'public.posts', name: 'posts_author' },
      { table: 'public.likes', name: 'likes_who' },
    ]);
    const posts = users?.tables.find((t) => t.table === 'public.posts');
    expect(posts).toMatchObject({
      key: ['id'],
      columns: [
        { column: 'id', from: null, rule: { transformer: 'shuffle' }, unique: true },
        { column: 'author', from: { table: 'public.users', column: 'login' }, rule: { transformer: 'hash' } },
      ],
    });
    expect(posts?.columns[1]?.shape.maxLength).toBe(100);
    expect(users?.tables[0]?.columns[0]?.unique).toBe(true);
  });

  it('names unique columns whose rule cannot keep them distinct', () => {
    const { uniqueViolations } = plan([
      { table: 'users', column: 'nick', transformer: 'fake', options: { kind: 'first_name' } },
      { table: 'users', column: 'city', transformer: 'null' },
    ]);
    expect(uniqueViolations).toEqual([
      {
        table: 'public.users',
        column: 'nick',
        message: expect.stringMatching(/public.users.nick must stay unique/),
      },
    ]);
  });

  it('strict mode refuses what the scan found uncovered', () => {
    expect(
      strictViolations([
        { column: 'a', covered: true },
        { column: 'b', covered: false },
      ]),
    ).toEqual([{ column: 'b', covered: false }]);
  });
});
