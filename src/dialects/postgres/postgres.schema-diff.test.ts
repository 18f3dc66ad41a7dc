// The migra schema-diff pairs of the shared corpus: a.sql and b.sql loaded into two databases, both
// introspected, and the diff from A to B must name every in-scope difference of the pair (and
// nothing else). Out-of-scope objects (extensions, views) show in the unmanaged lists only.
import { describe, expect, it } from 'vitest';
import {
  corpusAvailable,
  loadPostgresSql,
  readCorpus,
  schemaDiffCases,
} from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { diffRows } from '../../../test/support/schema-models.ts';
import { targetConfig } from '../../../test/support/targets.ts';
import { diffSchemas, diffUnmanaged } from '../../engine/schema/diff.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'schema-diff corpus (src/dialects/postgres/postgres.schema-diff.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

const corpusUp = corpusAvailable('schema-diff corpus (src/dialects/postgres/postgres.schema-diff.test.ts)');

type Row = [string, string, string, string];

const EXPECTED: Record<string, Row[]> = {
  collations: [
    ['public.t', 'column_collation_changed', 'b', 'moderate'],
    ['public.t', 'column_added', 'c', 'minor'],
  ],
  constraints: [
    ['public.circles', 'table_added', 'public.circles', 'minor'],
    ['public.c', 'column_not_null_added', 'cc', 'moderate'],
    ['public.c', 'primary_key_added', 'c_pkey', 'moderate'],
    ['public.circles_dropexclude', 'exclusion_constraint_removed', 'circles_dropexclude_c_excl', 'moderate'],
    ['public.t1', 'column_not_null_added', 'a', 'moderate'],
    ['public.t1', 'column_added', 'price', 'minor'],
    ['public.t1', 'primary_key_added', 't1_pkey', 'moderate'],
    ['public.t1', 'check_constraint_added', 'x', 'moderate'],
    ['public.t1', 'index_removed', 't1_a_idx', 'minor'],
    ['public.t2', 'column_removed', 'price', 'critical'],
    ['public.t2', 'column_not_null_dropped', 'a', 'minor'],
    ['public.t2', 'primary_key_removed', 't2_pkey', 'moderate'],
    ['public.t2', 'check_constraint_removed', 'x', 'moderate'],
    ['public.t2', 'foreign_key_changed', 't2_bb_fkey', 'moderate'],
    ['public.t2', 'index_added', 't2_a_idx', 'minor'],
  ],
  enumdefaults: [
    ['public.orders', 'column_type_changed', 'othercolumn', 'moderate'],
    ['public.orders', 'enum_values_added', 'public.order_status', 'minor'],
  ],
  generated_added: [['public.t', 'table_removed', 'public.t', 'critical']],
  identitycols: [
    ['public.t2', 'table_added', 'public.t2', 'minor'],
    ['public.t', 'table_removed', 'public.t', 'critical'],
    ['public.gen', 'column_generated_changed', 'adding', 'moderate'],
    ['public.gen', 'column_generated_changed', 'removing', 'moderate'],
    ['public.identchanges', 'column_not_null_added', 'c', 'moderate'],
    ['public.identchanges', 'column_default_changed', 'c', 'minor'],
    ['public.identchanges', 'column_identity_changed', 'c', 'moderate'],
    ['public.identchanges', 'column_identity_changed', 'e', 'moderate'],
    ['public.identchanges', 'column_identity_changed', 'd', 'moderate'],
    ['public.identchanges', 'column_not_null_dropped', 'f', 'minor'],
    ['public.identchanges', 'column_identity_changed', 'f', 'moderate'],
  ],
  seq: [
    ['public.unwanted', 'table_removed', 'public.unwanted', 'critical'],
    ['public.test', 'sequence_changed', 'public.test_id_seq', 'minor'],
    ['public.test2', 'sequence_changed', 'public.test2_id_seq', 'minor'],
  ],
  singleschema: [
    ['public.t', 'table_removed', 'public.t', 'critical'],
    ['goodschema.t', 'column_added', 'name', 'minor'],
    ['goodschema.t', 'index_removed', 't_id_idx', 'minor'],
  ],
};

async function introspectScript(sql: string): Promise<SchemaModel> {
  const database = (await createTestPgDatabase())!;
  try {
    await loadPostgresSql(database.url, sql);
    const handle = await postgresDialect.open(targetConfig(database.url));
    try {
      return await handle.introspect();
    } finally {
      await handle.close();
    }
  } finally {
    await database.drop();
  }
}

describe.skipIf(!pgUp || !corpusUp)('schema-diff corpus on PostgreSQL', () => {
  it('has an expectation for every case of the corpus', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(schemaDiffCases());
  });

  it.each(Object.keys(EXPECTED))('%s: the diff names every in-scope difference', async (name) => {
    const [a, b] = await Promise.all([
      introspectScript(readCorpus('schema-diff', name, 'a.sql')),
      introspectScript(readCorpus('schema-diff', name, 'b.sql')),
    ]);
    const diff = diffSchemas(a, b);
    expect(diffRows(diff)).toEqual(EXPECTED[name]);
    // And the way back names the same objects.
    expect(diffRows(diffSchemas(b, a)).length).toBeGreaterThan(0);
  });

  it('details what changed in from/to', async () => {
    const [a, b] = await Promise.all([
      introspectScript(readCorpus('schema-diff', 'constraints', 'a.sql')),
      introspectScript(readCorpus('schema-diff', 'constraints', 'b.sql')),
    ]);
    const changes = diffSchemas(a, b).tables_modified.flatMap((t) => t.changes);
    expect(changes.find((c) => c.object === 't2_bb_fkey')).toMatchObject({
      from: 'FOREIGN KEY (bb) REFERENCES public.b (bb) ON UPDATE NO ACTION ON DELETE NO ACTION',
      to: 'FOREIGN KEY (bb) REFERENCES public.b (bb) ON UPDATE NO ACTION ON DELETE NO ACTION DEFERRABLE INITIALLY DEFERRED',
    });
    expect(changes.find((c) => c.object === 'c_pkey')).toMatchObject({
      to: 'PRIMARY KEY (cc) DEFERRABLE INITIALLY DEFERRED',
    });
  });

  it('lists extensions and views as unmanaged, by name only', async () => {
    const [a, b] = await Promise.all([
      introspectScript(readCorpus('schema-diff', 'singleschema', 'a.sql')),
      introspectScript(readCorpus('schema-diff', 'singleschema', 'b.sql')),
    ]);
    expect(b.unmanaged).toEqual(
      expect.arrayContaining([
        { kind: 'extension', schema: null, name: 'citext', table: null },
        { kind: 'view', schema: 'goodschema', name: 'v', table: null },
      ]),
    );
    // An enum no column uses is managed all the same (functions and applications use it by name).
    expect(b.enums).toContainEqual(
      expect.objectContaining({ schema: 'goodschema', name: 'sdfasdfasdf', used_by: [] }),
    );
    expect(b.unmanaged.some((o) => o.kind === 'enum')).toBe(false);
    // citext's own types and functions belong to the extension and are not listed one by one.
    expect(b.unmanaged.filter((o) => o.name.startsWith('citext')).map((o) => o.kind)).toEqual(['extension']);
    const unmanaged = diffUnmanaged(a, b);
    expect(unmanaged.added.map((o) => `${o.kind} ${o.name}`)).toEqual(['extension citext']);
    expect(unmanaged.removed.map((o) => `${o.kind} ${o.name}`)).toEqual(['extension hstore']);
  });
});

describe.skipIf(!pgUp)('extended statistics on PostgreSQL', () => {
  it('lists CREATE STATISTICS objects as unmanaged, with their table, so drift names one that appears', async () => {
    const table = 'create table public.invoice (id int primary key, city text, zip text);';
    const [a, b] = await Promise.all([
      introspectScript(table),
      introspectScript(
        `${table} create statistics public.invoice_city_zip (dependencies) on city, zip from public.invoice;`,
      ),
    ]);
    expect(b.unmanaged).toContainEqual({
      kind: 'statistics',
      schema: 'public',
      name: 'invoice_city_zip',
      table: 'invoice',
    });
    expect(diffUnmanaged(a, b).added.map((o) => `${o.kind} ${o.name}`)).toEqual([
      'statistics invoice_city_zip',
    ]);
  });
});
