import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { applyFilter, compileFilter, DEFAULT_OBJECT_FILTER } from './filter.ts';
import { tableKey } from './model.ts';

describe('the default object filter', () => {
  const keep = compileFilter();

  it.each([
    '_orders_gho',
    '_orders_ghc',
    '_orders_del',
    '_orders_20240102030405_del',
    '_orders_ghk', // gh-ost
    '_orders_new',
    '_orders_old', // pt-online-schema-change, Spirit
    '_orders_chkpnt',
    '_orders_sentinel', // Spirit
    'lhmn_orders',
    'lhma_1700000000_orders', // LHM
    '_vt_hld_6ace8bcef73211ea87e9f875a4d24e90_20200915120410', // Vitess
    '#sql-1a2b_3c',
    '#sql2-704a-1b', // interrupted ALTER
    'pgosc_st_orders_1234',
    'pgosc_op_table_orders', // pg-osc
    '_pgroll_new_orders', // pgroll
    'pgschemadiff_tmp_orders', // pg-schema-diff
    '_dbops_bak_orders_20240101', // this service's MySQL backups
  ])('leaves out the shadow table %s', (name) => {
    expect(keep.table(name)).toBe(false);
  });

  it.each([
    'orders',
    'order_items',
    'new_orders',
    'old_customers',
    '_private',
    'customers_new_v2',
    'delivery',
  ])('keeps the ordinary table %s', (name) => {
    expect(keep.table(name)).toBe(true);
  });

  it('leaves out REINDEX CONCURRENTLY leftovers and tool triggers, keeps ordinary ones', () => {
    expect(keep.index('orders_pkey_ccnew')).toBe(false);
    expect(keep.index('orders_status_idx_ccnew1')).toBe(false);
    expect(keep.index('orders_status_idx_ccold')).toBe(false);
    expect(keep.index('orders_status_idx')).toBe(true);
    expect(keep.trigger('pt_osc_shop_orders_ins')).toBe(false);
    expect(keep.trigger('orders_audit')).toBe(true);
    expect(keep.schema('dbops_backup')).toBe(false);
    expect(keep.schema('public')).toBe(true);
  });
});

describe('applyFilter', () => {
  it('removes shadow tables, indexes, columns, schemas and what only they use', () => {
    const model = makeSchema(
      [
        makeTable('orders', {
          columns: [makeColumn('id'), makeColumn('_pgroll_new_status')],
          indexes: [makeIndex('orders_id_idx', ['id']), makeIndex('orders_id_idx_ccnew', ['id'])],
        }),
        makeTable('_orders_gho'),
        makeTable('orders_1', { schema: 'dbops_backup' }),
      ],
      {
        enums: [
          {
            schema: 'public',
            name: 'ghost_only',
            values: ['a'],
            used_by: [{ schema: 'public', table: '_orders_gho', column: 's' }],
          },
          {
            schema: 'public',
            name: 'kept',
            values: ['a'],
            used_by: [{ schema: 'public', table: 'orders', column: 's' }],
          },
        ],
        unmanaged: [
          { kind: 'trigger', schema: 'public', name: 'pt_osc_db_orders_ins', table: 'orders' },
          { kind: 'trigger', schema: 'public', name: 'audit', table: '_orders_gho' },
          { kind: 'view', schema: 'dbops_backup', name: 'v', table: null },
          { kind: 'view', schema: 'public', name: 'v', table: null },
        ],
      },
    );
    const filtered = applyFilter(model, compileFilter(DEFAULT_OBJECT_FILTER));
    expect(filtered.tables.map(tableKey)).toEqual(['public.orders']);
    expect(filtered.tables[0]!.columns.map((c) => c.name)).toEqual(['id']);
    expect(filtered.tables[0]!.indexes.map((i) => i.name)).toEqual(['orders_id_idx']);
    expect(filtered.enums.map((e) => e.name)).toEqual(['kept']);
    expect(filtered.unmanaged).toEqual([{ kind: 'view', schema: 'public', name: 'v', table: null }]);
  });

  it('takes a configured list instead of the default', () => {
    const keep = compileFilter({ ...DEFAULT_OBJECT_FILTER, tables: ['^tmp_'] });
    expect(keep.table('tmp_orders')).toBe(false);
    expect(keep.table('_orders_gho')).toBe(true);
  });
});
