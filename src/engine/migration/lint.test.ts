import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { StatementFact } from './facts.ts';
import { type LintWarning, lintStatements } from './lint.ts';
import type { LintContext, TableStats } from './lint-context.ts';
import type { TableRef } from './operations.ts';

const full = { schema: 'public', name: 'full' };
const empty = { schema: 'public', name: 'empty' };
const target = makeSchema([
  makeTable('full', { columns: [makeColumn('a'), makeColumn('b')] }),
  makeTable('empty', { columns: [makeColumn('a')] }),
]);
const stats: TableStats[] = [
  { schema: 'public', name: 'full', rows: 10, bytes: 8192, populated: true },
  { schema: 'public', name: 'empty', rows: 0, bytes: 8192, populated: false },
];
const pg: LintContext = { dialect: 'postgresql', target, stats, lock_timeout_ms: 1_000 };

const lint = (facts: StatementFact[][], context: LintContext = pg) =>
  lintStatements(
    facts.map((f) => ({ facts: f })),
    context,
  );
const rules = (warnings: LintWarning[]) =>
  warnings.map((w) => `${w.rule}:${w.severity}:${w.statement_index}`);

describe('lint: the extra rules', () => {
  it('set-not-null on a populated table, not on an empty one', () => {
    expect(rules(lint([[{ action: 'set_not_null', table: full, column: 'a' }]]))).toEqual([
      'set-not-null:warning:0',
    ]);
    expect(lint([[{ action: 'set_not_null', table: empty, column: 'a' }]])).toEqual([]);
  });

  it('index-not-concurrent on PostgreSQL only, and not with CONCURRENTLY', () => {
    const index = (concurrently: boolean, table: TableRef = full): StatementFact => ({
      action: 'create_index',
      table,
      name: 'i',
      unique: false,
      concurrently,
    });
    expect(rules(lint([[index(false)]]))).toEqual(['index-not-concurrent:warning:0']);
    expect(lint([[index(true)]])).toEqual([]);
    expect(lint([[index(false, { schema: null, name: 'full' })]], { ...pg, dialect: 'mysql' })).toEqual([]);
  });

  it('constraint-not-valid for foreign keys and checks, not with NOT VALID', () => {
    const key = (notValid: boolean): StatementFact => ({
      action: 'add_constraint',
      table: full,
      constraint: 'foreign_key',
      name: 'k',
      columns: ['a'],
      not_valid: notValid,
    });
    expect(rules(lint([[key(false)]]))).toEqual(['constraint-not-valid:warning:0']);
    expect(lint([[key(true)]])).toEqual([]);
  });

  it('drop-table and drop-column: warnings, or information when backed up', () => {
    expect(
      rules(
        lint([
          [{ action: 'drop_table', table: full, backed_up: false }],
          [{ action: 'drop_column', table: full, column: 'a', backed_up: true }],
        ]),
      ),
    ).toEqual(['drop-table:warning:0', 'drop-column:info:1']);
  });

  it('rename of a table or a column', () => {
    expect(
      rules(
        lint([
          [{ action: 'rename_table', table: full, to: 'x' }],
          [{ action: 'rename_column', table: full, column: 'a', to: 'c' }],
        ]),
      ),
    ).toEqual(['rename:warning:0', 'rename:warning:1']);
  });

  it('unique-on-existing on a populated table only', () => {
    const unique = (table: typeof full): StatementFact => ({
      action: 'add_constraint',
      table,
      constraint: 'unique',
      name: 'u',
      columns: ['a'],
      not_valid: false,
    });
    expect(rules(lint([[unique(full)]]))).toEqual(['unique-on-existing:warning:0']);
    expect(lint([[unique(empty)]])).toEqual([]);
  });

  it('lock-timeout-missing when the apply sets none and the SQL neither, and never for new tables', () => {
    const noTimeout = { ...pg, lock_timeout_ms: null };
    const alter: StatementFact = { action: 'drop_default', table: full, column: 'a' };
    expect(rules(lint([[alter]], noTimeout))).toEqual(['lock-timeout-missing:warning:0']);
    expect(lint([[{ action: 'set_lock_timeout' }], [alter]], noTimeout)).toEqual([]);
    expect(lint([[alter]])).toEqual([]);
    const created = { schema: 'public', name: 'created' };
    expect(
      lint(
        [
          [{ action: 'create_table', table: created }],
          [{ action: 'drop_default', table: created, column: 'a' }],
        ],
        noTimeout,
      ),
    ).toEqual([]);
  });

  it('transaction-control and parse-error are errors', () => {
    const warnings = lintStatements(
      [
        { facts: [{ action: 'transaction_control' }] },
        { facts: null, parse_error: 'syntax error at or near "x"' },
      ],
      pg,
    );
    expect(rules(warnings)).toEqual(['transaction-control:error:0', 'parse-error:error:1']);
    expect(warnings[1]!.message).toContain('syntax error at or near "x"');
  });

  it('without statistics, rules about rows fire and say that it is unknown', () => {
    const warnings = lint([[{ action: 'set_not_null', table: empty, column: 'a' }]], { ...pg, stats: null });
    expect(rules(warnings)).toEqual(['set-not-null:warning:0']);
    expect(warnings[0]!.message).toContain('no statistics');
  });

  it('stays quiet about tables the migration creates', () => {
    const created = { schema: 'public', name: 'created' };
    expect(
      lint([
        [{ action: 'create_table', table: created }],
        [{ action: 'create_index', table: created, name: 'i', unique: true, concurrently: false }],
        [{ action: 'set_not_null', table: created, column: 'a' }],
      ]),
    ).toEqual([]);
  });

  it('partition-over-default when a default partition may hold rows, not when it is empty', () => {
    const parent = { schema: 'public', name: 'sale' };
    const partitionOf = (bound: string) => ({ key: null, parent, bound });
    const tree = makeSchema([
      makeTable('sale', { partitioning: { key: 'LIST (region)', parent: null, bound: null } }),
      makeTable('sale_rest', { partitioning: partitionOf('DEFAULT') }),
    ]);
    const create = [
      [{ action: 'create_table', table: { schema: 'public', name: 'sale_eu' }, partition_of: parent }],
    ] as StatementFact[][];
    const populated = (yes: boolean): TableStats[] => [
      { schema: 'public', name: 'sale_rest', rows: yes ? 5 : 0, bytes: 8192, populated: yes },
    ];
    const warnings = lint(create, { ...pg, target: tree, stats: populated(true) });
    expect(rules(warnings)).toEqual(['partition-over-default:warning:0']);
    expect(warnings[0]!.message).toContain('default partition public.sale_rest');
    expect(lint(create, { ...pg, target: tree, stats: populated(false) })).toEqual([]);
    // Without a default partition there is nothing to check.
    expect(lint(create, { ...pg, target: makeSchema([tree.tables[0]!]), stats: null })).toEqual([]);
  });
});
