// Lint of object changes on planned facts and a target model: who reads a dropped view, which
// triggers call a changed function, a detached partition, a materialized view built.
import { describe, expect, it } from 'vitest';
import { makeSchema } from '../../../test/support/schema-models.ts';
import type { SchemaModel } from '../schema/model.ts';
import type { ViewModel } from '../schema/objects.ts';
import { operationFacts } from './facts.ts';
import { lintStatements } from './lint.ts';
import type { MigrationOperation } from './operations.ts';

const view = (name: string, reads: string | null, materialized = false): ViewModel => ({
  schema: 'public',
  name,
  materialized,
  definition: 'SELECT 1',
  columns: [],
  options: [],
  indexes: [],
  comment: null,
  depends_on: reads === null ? [] : [{ kind: 'view', schema: 'public', name: reads, column: null }],
});
const target: SchemaModel = {
  ...makeSchema([]),
  views: [view('base', null), view('reader', 'base')],
  triggers: [
    {
      schema: 'public',
      table: 't',
      name: 'stamp',
      definition: 'CREATE TRIGGER stamp …',
      state: 'O',
      comment: null,
      depends_on: [{ kind: 'routine', schema: 'public', name: 'touch()', column: null }],
    },
  ],
};
const routine = {
  schema: 'public',
  name: 'touch()',
  kind: 'function' as const,
  arguments: '',
  result: 'trigger',
  definition: 'CREATE OR REPLACE FUNCTION public.touch() …',
  comment: null,
  depends_on: [],
};
const lint = (ops: MigrationOperation[]) =>
  lintStatements(
    ops.map((op) => ({ facts: operationFacts(op, 'postgresql') })),
    { dialect: 'postgresql', target, lock_timeout_ms: 1_000 },
  ).map((w) => `${w.rule}:${w.severity}:${w.object}`);

describe('lint of objects', () => {
  it('warns on a view others read, and only informs when the migration creates it again', () => {
    expect(lint([{ kind: 'drop_view', view: view('base', null) }])).toEqual([
      'drop-view-with-dependents:warning:public.base',
    ]);
    expect(
      lint([
        { kind: 'drop_view', view: view('base', null) },
        { kind: 'create_view', view: view('base', null) },
      ]),
    ).toEqual(['drop-view-with-dependents:info:public.base']);
    expect(lint([{ kind: 'drop_view', view: view('reader', 'base') }])).toEqual([]);
  });

  it('warns on a function triggers call, a detached partition, and a materialized view built', () => {
    expect(lint([{ kind: 'replace_routine', before: routine, after: routine }])).toEqual([
      'function-used-by-trigger:warning:public.touch()',
    ]);
    const t = { schema: 'public', name: 'p_2024' };
    expect(
      lint([
        { kind: 'detach_partition', table: t, parent: { schema: 'public', name: 'p' }, bound: 'DEFAULT' },
      ]),
    ).toEqual(['detach-partition:warning:public.p_2024']);
    expect(lint([{ kind: 'create_view', view: view('mv', null, true) }])).toEqual([
      'materialized-view-rebuilt:info:public.mv',
    ]);
  });
});
