// Drift on a real server compares what the server prints in normal form: a re-check with nothing
// changed reports nothing; out-of-band changes (a column added, a varchar widened under its CHECK
// and a view, an index dropped) report exactly those, not the CHECK the retype re-prints; and a
// widening planned from a source reads as one ALTER whose lint recommends nothing instead.
import { describe, expect, it } from 'vitest';
import { corpusAvailable, readCorpus } from '../../../test/support/corpus.ts';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import { loadedDatabase } from '../../../test/support/migrations.ts';
import { readSchemaFixture, withDatabases } from '../../../test/support/schema-fixtures.ts';
import { planMigration } from '../../engine/migration/migration.ts';
import { diffSchemas } from '../../engine/schema/diff.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'normalised drift (src/dialects/postgres/postgres.drift-normalised.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

const corpusUp = corpusAvailable('Sakila drift (src/dialects/postgres/postgres.drift-normalised.test.ts)');

const changeRows = (diff: ReturnType<typeof diffSchemas>) =>
  diff.tables_modified.flatMap((table) =>
    table.changes.map((change) => [table.table, change.kind, change.object, change.severity]),
  );

describe.skipIf(!pgUp)('PostgreSQL drift in normal form', () => {
  it('reports exactly the three out-of-band changes, not the CHECK a widening re-prints', async () => {
    await withDatabases(async (open) => {
      const db = await loadedDatabase(
        postgresDialect,
        readSchemaFixture('postgres', 'varchar-widened-under-check', 'a.sql'),
      );
      open.push(db);
      const baseline = await db.handle.introspect();
      const again = await db.handle.introspect();
      expect(schemaHash(again)).toBe(schemaHash(baseline));
      expect(changeRows(diffSchemas(baseline, again))).toEqual([]);

      await db.run(`
        DROP VIEW public.open_ticket;
        ALTER TABLE public.ticket ALTER COLUMN status TYPE varchar(40);
        CREATE VIEW public.open_ticket AS SELECT id, status, subject FROM public.ticket WHERE status <> 'closed';
        ALTER TABLE public.ticket ADD COLUMN assignee text;
        DROP INDEX public.ticket_opened_at;`);
      const drifted = await db.handle.introspect();
      const ticket = drifted.tables.find((t) => t.name === 'ticket')!;
      // The server does print the CHECK otherwise now: the normal form is what hides it.
      expect(ticket.check_constraints[0]!.expression).not.toBe(
        baseline.tables.find((t) => t.name === 'ticket')!.check_constraints[0]!.expression,
      );
      expect(changeRows(diffSchemas(baseline, drifted)).sort()).toEqual(
        [
          ['public.ticket', 'column_added', 'assignee', 'minor'],
          ['public.ticket', 'column_type_changed', 'status', 'moderate'],
          ['public.ticket', 'index_removed', 'ticket_opened_at', 'minor'],
        ].sort(),
      );
    });
  });

  it('plans a widening as the one ALTER, with the view aside, and no CHECK dropped and re-added', async () => {
    await withDatabases(async (open) => {
      const [target, source] = await Promise.all([
        loadedDatabase(
          postgresDialect,
          readSchemaFixture('postgres', 'varchar-widened-under-check', 'a.sql'),
        ),
        loadedDatabase(
          postgresDialect,
          readSchemaFixture('postgres', 'varchar-widened-under-check', 'b.sql'),
        ),
      ]);
      open.push(target, source);
      const migration = planMigration(
        await source.handle.introspect(),
        await target.handle.introspect(),
        postgresDialect,
      );
      expect(migration.statements.map((s) => s.kind)).toEqual([
        'drop_view',
        'alter_column_type',
        'create_view',
      ]);
      const applied = await target.handle.apply(migration.statements, { lockTimeoutMs: 5_000 });
      expect(applied.failed).toBeNull();
      expect(
        planMigration(await source.handle.introspect(), await target.handle.introspect(), postgresDialect)
          .sql,
      ).toBe('');
    });
  });

  it.skipIf(!corpusUp)(
    'on Sakila: nothing after a re-check, then exactly the three out-of-band changes',
    async () => {
      await withDatabases(async (open) => {
        const db = await loadedDatabase(postgresDialect, readCorpus('sakila', 'postgres-schema.sql'));
        open.push(db);
        const baseline = await db.handle.introspect();
        const again = await db.handle.introspect();
        expect(schemaHash(again)).toBe(schemaHash(baseline));
        expect(diffSchemas(baseline, again)).toMatchObject({
          tables_added: [],
          tables_removed: [],
          tables_modified: [],
          objects_added: [],
          objects_removed: [],
          objects_modified: [],
        });
        await db.run(`
        ALTER TABLE public.actor ADD COLUMN nickname text;
        ALTER TABLE public.customer ALTER COLUMN email TYPE varchar(100);
        DROP INDEX public.idx_actor_last_name;`);
        const drifted = diffSchemas(baseline, await db.handle.introspect());
        expect(changeRows(drifted).sort()).toEqual(
          [
            ['public.actor', 'column_added', 'nickname', 'minor'],
            ['public.actor', 'index_removed', 'idx_actor_last_name', 'minor'],
            ['public.customer', 'column_type_changed', 'email', 'moderate'],
          ].sort(),
        );
        expect([...(drifted.objects_added ?? []), ...(drifted.objects_removed ?? [])]).toEqual([]);
      });
    },
  );
});
