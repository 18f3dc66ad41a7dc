// The objects beyond tables in the pure engine: their hash (stable for schemas without them), their
// diff into objects_* with severities, the model version, and old snapshots without the sections.
import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { diffSchemas, isEmptyDiff, summarizeDiff } from './diff.ts';
import { schemaHash } from './hash.ts';
import type { SchemaModel } from './model.ts';
import type { ViewModel } from './objects.ts';
import { isOutdatedModel, SCHEMA_MODEL_VERSION } from './version.ts';

const view = (name: string, definition: string, fields: Partial<ViewModel> = {}): ViewModel => ({
  schema: 'public',
  name,
  materialized: false,
  definition,
  columns: [{ name: 'id', type: 'integer' }],
  options: [],
  indexes: [],
  comment: null,
  depends_on: [],
  ...fields,
});

const base = (): SchemaModel => makeSchema([makeTable('t', { columns: [makeColumn('id')] })]);

const withObjects = (fields: Partial<SchemaModel> = {}): SchemaModel => ({
  ...base(),
  model_version: SCHEMA_MODEL_VERSION,
  schemas: [{ name: 'public', comment: 'standard public schema' }],
  views: [],
  routines: [],
  triggers: [],
  extensions: [],
  types: [],
  ...fields,
});

describe('objects in hashes and diffs', () => {
  it('hashes a schema without objects as the model before them did (no alert after an upgrade)', () => {
    expect(schemaHash(withObjects())).toBe(schemaHash(base()));
    expect(schemaHash(withObjects({ views: [view('v', 'SELECT 1')] }))).not.toBe(schemaHash(base()));
    expect(schemaHash(withObjects({ schemas: [{ name: 'app', comment: null }] }))).not.toBe(
      schemaHash(base()),
    );
  });

  it('leaves dependencies out of the hash: they are recorded, not compared', () => {
    const a = withObjects({ views: [view('v', 'SELECT 1')] });
    const b = withObjects({
      views: [
        view('v', 'SELECT 1', { depends_on: [{ kind: 'table', schema: 'public', name: 't', column: 'id' }] }),
      ],
    });
    expect(schemaHash(a)).toBe(schemaHash(b));
  });

  it('reports objects added (minor), removed (critical) and changed (moderate; a comment: minor)', () => {
    const from = withObjects({
      views: [view('gone', 'SELECT 1'), view('kept', 'SELECT 1'), view('noted', 'SELECT 1')],
    });
    const to = withObjects({
      views: [
        view('kept', 'SELECT 2'),
        view('noted', 'SELECT 1', { comment: 'hello' }),
        view('mv', 'SELECT 3', { materialized: true }),
      ],
      routines: [
        {
          schema: 'public',
          name: 'f(integer)',
          kind: 'function',
          arguments: 'a integer',
          result: 'integer',
          definition: 'CREATE OR REPLACE FUNCTION public.f(a integer) …',
          comment: null,
          depends_on: [],
        },
      ],
    });
    const diff = diffSchemas(from, to);
    expect(diff.objects_added).toEqual([
      { kind: 'function', name: 'public.f(integer)', severity: 'minor', changes: [] },
      { kind: 'materialized_view', name: 'public.mv', severity: 'minor', changes: [] },
    ]);
    expect(diff.objects_removed).toEqual([
      { kind: 'view', name: 'public.gone', severity: 'critical', changes: [] },
    ]);
    expect(diff.objects_modified).toEqual([
      {
        kind: 'view',
        name: 'public.kept',
        severity: 'moderate',
        changes: [{ kind: 'definition', from: 'SELECT 1', to: 'SELECT 2', severity: 'moderate' }],
      },
      {
        kind: 'view',
        name: 'public.noted',
        severity: 'minor',
        changes: [{ kind: 'comment', from: null, to: 'hello', severity: 'minor' }],
      },
    ]);
    expect(summarizeDiff(diff)).toEqual({
      severity: 'critical',
      summary: { critical: 1, moderate: 1, minor: 3 },
    });
    expect(isEmptyDiff(diff)).toBe(false);
    expect(isEmptyDiff(diffSchemas(to, to))).toBe(true);
  });

  it('compares no section an old snapshot lacks, and says it must be re-taken', () => {
    const old = base();
    const current = withObjects({ views: [view('v', 'SELECT 1')] });
    expect(diffSchemas(old, current).objects_added).toEqual([]);
    expect(isOutdatedModel(old)).toBe(true);
    expect(isOutdatedModel(current)).toBe(false);
  });
});
