import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { ForeignKeyModel } from '../schema/model.ts';
import { type ConfigRule, checkConfigRules } from './config-check.ts';

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

const MODEL = makeSchema([
  makeTable('customers', {
    columns: [
      makeColumn('email', { type: 'character varying(120)', nullable: false }),
      makeColumn('name', { type: 'text' }),
      makeColumn('full', { type: 'text', generated: { expression: 'name', stored: true } }),
      makeColumn('born', { type: 'date' }),
    ],
    primary_key: pk('email'),
  }),
  makeTable('orders', {
    columns: [
      makeColumn('id', { type: 'bigint', nullable: false }),
      makeColumn('customer_email', { type: 'character varying(200)' }),
    ],
    primary_key: pk('id'),
    foreign_keys: [fk('orders_customer', ['customer_email'], 'customers', ['email'])],
  }),
  makeTable('order_notes', {
    columns: [
      makeColumn('order_id', { type: 'bigint', nullable: false }),
      makeColumn('author_email', { type: 'character varying(50)' }),
    ],
    primary_key: pk('order_id'),
    foreign_keys: [fk('notes_author', ['author_email'], 'customers', ['email'])],
  }),
  makeTable('log', { columns: [makeColumn('message', { type: 'text' })] }),
]);

const check = (...rules: ConfigRule[]) => checkConfigRules(MODEL, rules);
const email: ConfigRule = {
  table: 'customers',
  column: 'email',
  transformer: 'fake',
  options: { kind: 'email' },
};

describe('checkConfigRules', () => {
  it('accepts fitting rules and names tables as the schema does', () => {
    const { problems, checked } = check({
      table: 'public.customers',
      column: 'name',
      transformer: 'fake',
      options: { kind: 'full_name' },
    });
    expect(problems).toEqual([]);
    expect(checked.rules).toEqual([
      { table: 'public.customers', column: 'name', transformer: 'fake', options: { kind: 'full_name' } },
    ]);
  });

  it('names unknown tables, columns and transformers, generated columns and keyless tables', () => {
    const { problems } = check(
      { table: 'clients', column: 'x', transformer: 'null' },
      { table: 'customers', column: 'mail', transformer: 'null' },
      { table: 'customers', column: 'name', transformer: 'tokenize' },
      { table: 'customers', column: 'full', transformer: 'null' },
      { table: 'log', column: 'message', transformer: 'redact' },
      { table: 'customers', column: 'born', transformer: 'mask' },
    );
    expect(problems.map((p) => [p.loc.join('.'), p.type, p.msg])).toEqual([
      ['rules.0.table', 'unknown_table', 'Unknown table clients'],
      ['rules.1.column', 'unknown_column', 'Unknown column public.customers.mail'],
      ['rules.2.transformer', 'unknown_transformer', 'public.customers.name: Unknown transformer "tokenize"'],
      ['rules.3.column', 'generated_column', expect.stringMatching(/generated column/)],
      ['rules.4.table', 'no_row_key', expect.stringMatching(/public.log has no primary key/)],
      ['rules.5.transformer', 'type_mismatch', 'public.customers.born: mask does not fit a date column'],
    ]);
  });

  it('refuses unique where the transformer cannot keep values distinct, and two rules on one column', () => {
    const { problems } = check(
      { table: 'customers', column: 'name', transformer: 'mask', options: { unique: true } },
      { table: 'customers', column: 'name', transformer: 'null' },
    );
    expect(problems.map((p) => p.type)).toEqual(['unique_unsupported', 'duplicate_rule']);
  });

  it('applies a rule on a referenced key to the referencing columns that can hold its values', () => {
    const { problems, checked } = checkConfigRules(
      makeSchema(MODEL.tables.filter((t) => t.name !== 'order_notes')),
      [email],
    );
    expect(problems).toEqual([]);
    expect(checked.propagated).toEqual([
      {
        table: 'public.orders',
        column: 'customer_email',
        from: { table: 'public.customers', column: 'email' },
        via: 'orders_customer',
      },
    ]);
  });

  it('refuses when a referencing column is too short, has another rule, or the key rule is random', () => {
    expect(check(email).problems.map((p) => p.type)).toEqual(['referencing_column_mismatch']);
    expect(check(email).problems[0]?.msg).toMatch(
      /public.order_notes.author_email references public.customers.email .*50 characters/,
    );
    const model = makeSchema(MODEL.tables.filter((t) => t.name !== 'order_notes'));
    const conflicting = checkConfigRules(model, [
      email,
      { table: 'orders', column: 'customer_email', transformer: 'hash' },
    ]);
    expect(conflicting.problems.map((p) => p.type)).toEqual(['conflicting_rule']);
    const same = checkConfigRules(model, [email, { ...email, table: 'orders', column: 'customer_email' }]);
    expect(same.problems).toEqual([]);
    expect(same.checked.propagated).toEqual([]);
    const random = checkConfigRules(model, [{ ...email, options: { kind: 'email', deterministic: false } }]);
    expect(random.problems.map((p) => p.type)).toEqual(['referenced_key']);
  });
});
