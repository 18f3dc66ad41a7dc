import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { diffSchemas, diffUnmanaged, isEmptyDiff, type SchemaDiff, summarizeDiff } from './diff.ts';
import type { ForeignKeyModel, SchemaModel, TableModel } from './model.ts';
import { CHANGE_SEVERITY } from './severity.ts';

const base = (): TableModel =>
  makeTable('orders', {
    columns: [
      makeColumn('id', { nullable: false, ordinal_position: 1 }),
      makeColumn('status', {
        type: 'text',
        ordinal_position: 2,
        default: "'new'::text",
        default_normalized: "'new'",
      }),
      makeColumn('customer_id', { ordinal_position: 3 }),
    ],
    primary_key: { name: 'orders_pkey', columns: ['id'], deferrable: false, initially_deferred: false },
    indexes: [makeIndex('orders_status_idx', ['status'])],
  });

const fk = (fields: Partial<ForeignKeyModel> = {}): ForeignKeyModel => ({
  name: 'orders_customer_fkey',
  columns: ['customer_id'],
  referenced_schema: 'public',
  referenced_table: 'customers',
  referenced_columns: ['id'],
  on_update: 'no action',
  on_delete: 'no action',
  deferrable: false,
  initially_deferred: false,
  ...fields,
});

/** The changes of the one modified table, as [kind, object, severity]. */
function changesOf(diff: SchemaDiff): [string, string, string][] {
  expect(diff.tables_modified).toHaveLength(1);
  return diff.tables_modified[0]!.changes.map((c) => [c.kind, c.object, c.severity]);
}

function diffTable(
  edit: (table: TableModel) => void,
  dialect: SchemaModel['dialect'] = 'postgresql',
): SchemaDiff {
  const after = base();
  edit(after);
  return diffSchemas(makeSchema([base()], { dialect }), makeSchema([after], { dialect }));
}

describe('diffSchemas', () => {
  it('finds nothing between a model and itself, or a reordered copy of it', () => {
    const model = makeSchema([base(), makeTable('customers')]);
    expect(isEmptyDiff(diffSchemas(model, model))).toBe(true);
    const reordered = makeSchema([
      makeTable('customers'),
      { ...base(), columns: [...base().columns].reverse() },
    ]);
    expect(isEmptyDiff(diffSchemas(model, reordered))).toBe(true);
  });

  it('reports tables added (minor) and removed (critical) with schema-qualified names', () => {
    const diff = diffSchemas(makeSchema([base()]), makeSchema([makeTable('customers')]));
    expect(diff.tables_added).toEqual([{ table: 'public.customers', severity: 'minor' }]);
    expect(diff.tables_removed).toEqual([{ table: 'public.orders', severity: 'critical' }]);
    expect(diff.tables_modified).toEqual([]);
  });

  it('applies the fixed severities of docs/contract.md §6', () => {
    expect(changesOf(diffTable((t) => t.columns.pop()))).toEqual([
      ['column_removed', 'customer_id', 'critical'],
    ]);
    expect(changesOf(diffTable((t) => t.columns.push(makeColumn('note', { type: 'text' }))))).toEqual([
      ['column_added', 'note', 'minor'],
    ]);
    expect(changesOf(diffTable((t) => (t.columns[2]!.type = 'bigint')))).toEqual([
      ['column_type_changed', 'customer_id', 'moderate'],
    ]);
    expect(
      changesOf(diffTable((t) => t.indexes.push(makeIndex('orders_customer_idx', ['customer_id'])))),
    ).toEqual([['index_added', 'orders_customer_idx', 'minor']]);
  });

  it('grades nullability by direction', () => {
    expect(changesOf(diffTable((t) => (t.columns[2]!.nullable = false)))).toEqual([
      ['column_not_null_added', 'customer_id', 'moderate'],
    ]);
    expect(changesOf(diffTable((t) => (t.columns[0]!.nullable = true)))).toEqual([
      ['column_not_null_dropped', 'id', 'minor'],
    ]);
  });

  it('compares normalised defaults: a reformatted raw default is no change', () => {
    const same = diffTable((t) => {
      t.columns[1]!.default = "'new'::character varying";
    });
    expect(isEmptyDiff(same)).toBe(true);
    const changed = diffTable((t) => {
      t.columns[1]!.default = "'old'::text";
      t.columns[1]!.default_normalized = "'old'";
    });
    expect(changed.tables_modified[0]!.changes).toEqual([
      { kind: 'column_default_changed', object: 'status', from: "'new'", to: "'old'", severity: 'minor' },
    ]);
  });

  it('calls a default that differs only in casts and parentheses cosmetic, and leaves it out of the summary', () => {
    const diff = diffTable((t) => {
      t.columns[1]!.default = "('new'::text)::character varying";
      t.columns[1]!.default_normalized = "('new')::character varying";
    });
    expect(changesOf(diff)).toEqual([['column_default_reformatted', 'status', 'cosmetic']]);
    expect(summarizeDiff(diff)).toEqual({
      severity: 'cosmetic',
      summary: { critical: 0, moderate: 0, minor: 0 },
    });
  });

  it('reports identity, generation, collation and comment changes', () => {
    const diff = diffTable((t) => {
      t.columns[0]!.identity = 'always';
      t.columns[2]!.generated = { expression: 'id * 2', stored: true };
      t.columns[1]!.collation = '"C"';
      t.columns[1]!.comment = 'workflow state';
    });
    expect(changesOf(diff)).toEqual([
      ['column_identity_changed', 'id', 'moderate'],
      ['column_collation_changed', 'status', 'moderate'],
      ['column_comment_changed', 'status', 'minor'],
      ['column_generated_changed', 'customer_id', 'moderate'],
    ]);
    expect(diff.tables_modified[0]!.changes[0]!.to).toBe('GENERATED ALWAYS AS IDENTITY');
  });

  it('grades constraints as severity.ts documents', () => {
    const diff = diffTable((t) => {
      t.primary_key = {
        name: 'orders_pkey',
        columns: ['id', 'status'],
        deferrable: false,
        initially_deferred: false,
      };
      t.unique_constraints.push({
        name: 'orders_status_key',
        columns: ['status'],
        deferrable: false,
        initially_deferred: false,
      });
      t.check_constraints.push({ name: 'positive_id', expression: 'id > 0' });
      t.foreign_keys.push(fk());
      t.indexes = [];
    });
    expect(changesOf(diff)).toEqual([
      ['primary_key_changed', 'orders_pkey', 'moderate'],
      ['unique_constraint_added', 'orders_status_key', 'moderate'],
      ['check_constraint_added', 'positive_id', 'moderate'],
      ['foreign_key_added', 'orders_customer_fkey', 'minor'],
      ['index_removed', 'orders_status_idx', 'minor'],
    ]);
  });

  it('reports a dropped foreign key as moderate and a changed action as a change', () => {
    const before = makeSchema([{ ...base(), foreign_keys: [fk()] }]);
    expect(changesOf(diffSchemas(before, makeSchema([base()])))).toEqual([
      ['foreign_key_removed', 'orders_customer_fkey', 'moderate'],
    ]);
    const cascade = makeSchema([{ ...base(), foreign_keys: [fk({ on_delete: 'cascade' })] }]);
    const diff = diffSchemas(before, cascade);
    expect(changesOf(diff)).toEqual([['foreign_key_changed', 'orders_customer_fkey', 'moderate']]);
    expect(diff.tables_modified[0]!.changes[0]!.to).toContain('ON DELETE CASCADE');
  });

  it('pairs a constraint or index that only changed its name as renamed', () => {
    const diff = diffTable((t) => {
      t.indexes = [makeIndex('idx_status', ['status'])];
    });
    expect(diff.tables_modified[0]!.changes).toEqual([
      {
        kind: 'index_renamed',
        object: 'idx_status',
        from: 'orders_status_idx',
        to: 'idx_status',
        severity: 'minor',
      },
    ]);
  });

  it('on MySQL, does not report the index InnoDB creates for a new foreign key', () => {
    const mysqlTable = (fields: Partial<TableModel>) => ({ ...base(), schema: null, ...fields });
    const before = makeSchema([mysqlTable({})], { dialect: 'mysql', flavor: 'mariadb' });
    const after = makeSchema(
      [
        mysqlTable({
          foreign_keys: [fk({ referenced_schema: null })],
          indexes: [...base().indexes, makeIndex('orders_customer_fkey', ['customer_id'])],
        }),
      ],
      { dialect: 'mysql', flavor: 'mariadb' },
    );
    expect(changesOf(diffSchemas(before, after))).toEqual([
      ['foreign_key_added', 'orders_customer_fkey', 'minor'],
    ]);
    // On PostgreSQL the same index is something someone created.
    const pgAfter = makeSchema([
      {
        ...base(),
        foreign_keys: [fk()],
        indexes: [...base().indexes, makeIndex('orders_customer_fkey', ['customer_id'])],
      },
    ]);
    expect(changesOf(diffSchemas(makeSchema([base()]), pgAfter)).map(([kind]) => kind)).toEqual([
      'foreign_key_added',
      'index_added',
    ]);
  });

  it('reports enum value changes under every table that uses the enum', () => {
    const enumModel = (values: string[]) => ({
      schema: 'public',
      name: 'mood',
      values,
      used_by: [
        { schema: 'public', table: 'orders', column: 'status' },
        { schema: 'public', table: 'customers', column: 'mood' },
      ],
    });
    const tables = [
      base(),
      makeTable('customers', { columns: [makeColumn('mood', { type: 'public.mood' })] }),
    ];
    const before = makeSchema(tables, { enums: [enumModel(['sad', 'ok'])] });
    const added = diffSchemas(before, makeSchema(tables, { enums: [enumModel(['sad', 'ok', 'happy'])] }));
    expect(added.tables_modified.map((t) => [t.table, t.changes.map((c) => [c.kind, c.severity])])).toEqual([
      ['public.customers', [['enum_values_added', 'minor']]],
      ['public.orders', [['enum_values_added', 'minor']]],
    ]);
    const reordered = diffSchemas(before, makeSchema(tables, { enums: [enumModel(['ok', 'sad'])] }));
    expect(reordered.tables_modified[0]!.changes[0]).toMatchObject({
      kind: 'enum_values_changed',
      severity: 'moderate',
    });
  });

  it('summarises by severity and names the highest', () => {
    const diff = diffSchemas(
      makeSchema([base(), makeTable('gone')]),
      makeSchema([{ ...base(), columns: base().columns.slice(0, 2) }, makeTable('new')]),
    );
    expect(summarizeDiff(diff)).toEqual({
      severity: 'critical',
      summary: { critical: 2, moderate: 0, minor: 1 },
    });
    expect(summarizeDiff(diffSchemas(makeSchema([]), makeSchema([])))).toEqual({
      severity: null,
      summary: { critical: 0, moderate: 0, minor: 0 },
    });
  });

  it('grades every kind it can emit from the one severity table', () => {
    const severities = new Set(Object.values(CHANGE_SEVERITY));
    expect(severities).toEqual(new Set(['critical', 'moderate', 'minor', 'cosmetic']));
  });
});

describe('diffUnmanaged', () => {
  it('lists unmanaged objects that appeared or disappeared', () => {
    const view = { kind: 'view' as const, schema: 'public', name: 'v', table: null };
    const trigger = { kind: 'trigger' as const, schema: 'public', name: 'audit', table: 'orders' };
    expect(
      diffUnmanaged(makeSchema([], { unmanaged: [view] }), makeSchema([], { unmanaged: [trigger] })),
    ).toEqual({
      added: [trigger],
      removed: [view],
    });
  });
});
