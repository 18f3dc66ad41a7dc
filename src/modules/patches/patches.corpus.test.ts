// Data patches on real schemas, Sakila and Chinook from the shared corpus, on PostgreSQL and
// MariaDB/MySQL, through the HTTP API and the real worker. UPDATE, DELETE and INSERT are dry-run,
// executed and rolled back, each step checked against a checksum of every table the patch touches
// (md5 over all rows in primary key order); a row changed since the patch, a wrong expected_rows
// and a statement failing midway must change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import {
  corpusAvailable,
  loadMysqlSql,
  loadPostgresSql,
  loadSakilaRows,
  readCorpus,
} from '../../../test/support/corpus.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const SUITE = 'patches on Sakila and Chinook (patches.corpus.test.ts)';
const corpusUp = corpusAvailable(SUITE);
const engines = await targetEngines(SUITE);

type Dialect = 'postgresql' | 'mysql';

/** One statement of a patch; `rows` is how many rows it affects, or the SQL (`n`) counting them. */
interface Statement {
  kind: 'update' | 'delete' | 'insert';
  table: string;
  sql: string;
  rows: number | string;
}

const update = (table: string, set: string, where: string) => ({
  kind: 'update' as const,
  table,
  set,
  where,
  sql: `UPDATE ${table} SET ${set} WHERE ${where}`,
  rows: `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
});
const remove = (table: string, where: string): Statement => ({
  kind: 'delete',
  table,
  sql: `DELETE FROM ${table} WHERE ${where}`,
  rows: `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
});
const insert = (table: string, columns: string, values: string[]): Statement => ({
  kind: 'insert',
  table,
  sql: `INSERT INTO ${table} (${columns}) VALUES ${values.join(', ')}`,
  rows: values.length,
});
const tablesOf = (statements: Statement[]) => [...new Set(statements.map((s) => s.table))];
const isBacked = (s: Statement) => s.kind !== 'insert';

interface Corpus {
  name: string;
  load(dialect: Dialect, url: string): Promise<void>;
  /** The patches, in the engine's names (Chinook: PascalCase on MySQL, snake_case on PostgreSQL). */
  patches(name: (pascal: string) => string): {
    update: ReturnType<typeof update>;
    /** The update's table's primary key (one column). */
    key: string;
    delete: Statement;
    inserts: Statement[];
    /** A statement that violates a foreign key once `update` and `delete` have run. */
    breaks: Statement;
  };
}

const CORPORA: Corpus[] = [
  {
    name: 'Sakila',
    async load(dialect, url) {
      if (dialect === 'postgresql') await loadPostgresSql(url, readCorpus('sakila', 'postgres-schema.sql'));
      else await loadMysqlSql(url, readCorpus('sakila', 'mysql-schema.sql'), { dropQualifier: 'sakila' });
      await loadSakilaRows(url, ['language', 'actor', 'film', 'film_actor']);
    },
    patches: () => ({
      update: update('film', 'rental_rate = rental_rate + 1', "rating = 'PG'"),
      key: 'film_id',
      // Nothing references film_actor: its rows can go.
      delete: remove('film_actor', 'actor_id = 1'),
      // actor_id is serial / AUTO_INCREMENT and not given: the server picks the keys.
      inserts: [insert('actor', 'first_name, last_name', ["('ADA', 'LOVELACE')", "('ALAN', 'TURING')"])],
      // Film 1 is still credited to other actors.
      breaks: remove('film', 'film_id = 1'),
    }),
  },
  {
    name: 'Chinook',
    async load(dialect, url) {
      if (dialect === 'postgresql') await loadPostgresSql(url, readCorpus('chinook', 'postgres.sql'));
      else await loadMysqlSql(url, readCorpus('chinook', 'mysql.sql'));
    },
    patches: (n) => ({
      // Media type 3: "Protected MPEG-4 video file".
      update: update(n('Track'), `${n('UnitPrice')} = ${n('UnitPrice')} + 0.50`, `${n('MediaTypeId')} = 3`),
      key: n('TrackId'),
      delete: remove(n('InvoiceLine'), `${n('InvoiceId')} <= 3`),
      inserts: [
        insert(n('Genre'), `${n('GenreId')}, ${n('Name')}`, ["(26, 'Sea Shanty')", "(27, 'Chiptune')"]),
        insert(n('MediaType'), `${n('MediaTypeId')}, ${n('Name')}`, ["(6, 'FLAC audio file')"]),
      ],
      // Track 1 is on playlists and on other invoices.
      breaks: remove(n('Track'), `${n('TrackId')} = 1`),
    }),
  },
];

const ENGINES = [engines.postgresql, engines.mysql];

const snakeCase = (pascal: string) => pascal.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();

describe.skipIf(!corpusUp)('data patches on the corpus schemas', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];
  /** Each engine and corpus's loaded database (its URL), by `${corpus} on ${engine}`. */
  const loaded = new Map<string, Promise<string>>();

  beforeAll(async () => {
    // The four databases are independent (each its own throw-away database) and their loads wait
    // mostly on the servers: they load side by side, and while the app starts. A failed load fails
    // the describe that awaits it.
    for (const engine of ENGINES) {
      if (!engine.up) continue;
      for (const corpus of CORPORA) {
        const load = (async () => {
          const database = await engine.create();
          databases.push(database);
          await corpus.load(engine.dialect, database.url);
          return database.url;
        })();
        load.catch(() => {});
        loaded.set(`${corpus.name} on ${engine.name}`, load);
      }
    }
    ({ t, owner, projectId } = await createWorkerProject({
      org: 'Corpus patches',
      project: 'Corpus patches',
    }));
  });
  afterAll(async () => {
    // A load still running (its describe failed first) has a database to drop too.
    await Promise.allSettled(loaded.values());
    await closeSuite(t, databases);
  });

  for (const engine of ENGINES) {
    for (const corpus of CORPORA) {
      describe(`${corpus.name} on ${engine.name}`, { skip: !engine.up }, () => {
        const p = corpus.patches(engine.dialect === 'postgresql' ? snakeCase : (name) => name);
        let url: string;
        let connectionId: string;

        beforeAll(async () => {
          const load = loaded.get(`${corpus.name} on ${engine.name}`);
          if (!load) throw new Error(`${corpus.name} on ${engine.name} was not loaded`);
          url = await load;
          const connection = await owner.post(
            `${API}/connections`,
            connectionBody(projectId, url, { name: `${corpus.name} on ${engine.name}` }),
          );
          expect(connection.status).toBe(201);
          connectionId = connection.body.id;
        });

        const checksums = async (tables: string[]) =>
          Object.fromEntries(
            await Promise.all(tables.map(async (table) => [table, await tableChecksum(url, table)])),
          );
        const counted = async (s: Statement) =>
          typeof s.rows === 'number' ? s.rows : Number((await engine.query(url, s.rows))[0]!.n);
        const create = async (statements: Statement[]) => {
          const created = await owner.post(`${API}/patches`, {
            project_id: projectId,
            connection_id: connectionId,
            title: `${corpus.name}: ${statements.map((s) => s.kind).join(', ')}`,
            sql: statements.map((s) => s.sql).join(';\n'),
          });
          expect(created.status).toBe(201);
          return created.body as { id: string; statements: Record<string, unknown>[] };
        };
        /** POST /patches/{id}/{action}, expecting 202, and the run once it has ended. */
        const runOf = async (
          patchId: string,
          action: 'execute' | 'rollback',
          body: Record<string, unknown>,
        ) => {
          const started = await owner.post(`${API}/patches/${patchId}/${action}`, body);
          expect(started.status, JSON.stringify(started.body)).toBe(202);
          expect(started.body).toMatchObject({ kind: `patch_${action}`, subject_id: patchId });
          return waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
        };
        const statusOf = async (patchId: string) =>
          (await owner.get(`${API}/patches/${patchId}`)).body.status;

        /** Dry-run, execute and roll back `statements`, checking every touched table at each step. */
        async function roundTrip(statements: Statement[]) {
          const tables = tablesOf(statements);
          const affected = await Promise.all(statements.map(counted));
          expect(Math.min(...affected), 'every statement affects rows').toBeGreaterThan(0);
          const total = affected.reduce((a, b) => a + b, 0);
          const backed = statements.flatMap((s, index) =>
            isBacked(s) ? [{ index, rows: affected[index] }] : [],
          );
          const before = await checksums(tables);

          const patch = await create(statements);
          expect(patch.statements.map(({ index, kind, table }) => ({ index, kind, table }))).toEqual(
            statements.map(({ kind, table }, index) => ({ index, kind, table })),
          );

          const dry = await owner.post(`${API}/patches/${patch.id}/dry-run`);
          expect(dry.status).toBe(200);
          expect(dry.body.statements.map((s: { affected_rows: number }) => s.affected_rows)).toEqual(
            affected,
          );
          expect(dry.body.total_affected_rows).toBe(total);
          expect(await checksums(tables)).toEqual(before);

          const executed = await runOf(patch.id, 'execute', {});
          expect(executed.error).toBeNull();
          expect(executed.status).toBe('succeeded');
          expect(executed.result).toMatchObject({ affected_rows: affected, total_affected_rows: total });
          const backups = executed.result.backups as { index: number; rows: number }[];
          expect(
            backups.filter((b) => isBacked(statements[b.index]!)).map(({ index, rows }) => ({ index, rows })),
          ).toEqual(backed);
          const after = await checksums(tables);
          for (const table of tables) {
            const delta = statements.reduce(
              (sum, s, i) =>
                s.table !== table
                  ? sum
                  : sum + (s.kind === 'insert' ? affected[i]! : s.kind === 'delete' ? -affected[i]! : 0),
              0,
            );
            expect(after[table].sum, `${table} changed`).not.toBe(before[table].sum);
            expect(after[table].rows, `${table} rows`).toBe(before[table].rows + delta);
          }

          // A table with a primary key can be restored, INSERT included (its rows deleted by key).
          const saved = (await owner.get(`${API}/patches/${patch.id}`)).body;
          expect(saved.statements.map((s: { reversible: boolean }) => s.reversible)).toEqual(
            statements.map(() => true),
          );
          const rolled = await runOf(patch.id, 'rollback', {});
          expect(rolled.error).toBeNull();
          expect(rolled.status).toBe('succeeded');
          expect(rolled.result).toMatchObject({ conflicts: [], forced: false, exact: true, warnings: [] });
          const restored = rolled.result.restored as { index: number; rows: number }[];
          expect(
            restored
              .filter((r) => isBacked(statements[r.index]!))
              .map(({ index, rows }) => ({ index, rows })),
          ).toEqual([...backed].reverse());
          expect(await checksums(tables)).toEqual(before);
          expect(await statusOf(patch.id)).toBe('rolled_back');
        }

        it(`UPDATE ${p.update.table}: dry-run, execute, rollback to the exact table`, () =>
          roundTrip([p.update]));
        it(`DELETE from ${p.delete.table}: dry-run, execute, rollback to the exact table`, () =>
          roundTrip([p.delete]));
        it(`INSERT into ${tablesOf(p.inserts).join(' and ')}: dry-run, execute, rollback deletes the rows`, () =>
          roundTrip(p.inserts));

        it('a row changed since the patch fails the rollback, listed, nothing restored; force restores', async () => {
          const { update: u, key } = p;
          const tables = tablesOf([u, p.delete]);
          const [{ id }] = (await engine.query(
            url,
            `SELECT min(${key}) AS id FROM ${u.table} WHERE ${u.where}`,
          )) as [{ id: number }];
          const before = await checksums(tables);
          const patch = await create([u, p.delete]);
          expect((await runOf(patch.id, 'execute', {})).status).toBe('succeeded');

          await engine.query(url, `UPDATE ${u.table} SET ${u.set} WHERE ${key} = ${id}`);
          const changed = await checksums(tables);
          const refused = await runOf(patch.id, 'rollback', {});
          expect(refused.status).toBe('failed');
          expect(refused.error).toMatch(/^1 rows? changed since the patch; nothing was restored/);
          expect(refused.result.restored).toBe(false);
          expect(refused.result.conflicts).toEqual([{ index: 0, table: u.table, keys: [{ [key]: id }] }]);
          expect(await checksums(tables)).toEqual(changed);
          expect(await statusOf(patch.id)).toBe('executed');

          const forced = await runOf(patch.id, 'rollback', { force: true });
          expect(forced.error).toBeNull();
          expect(forced.status).toBe('succeeded');
          expect(forced.result).toMatchObject({ forced: true, conflicts: [{ index: 0, table: u.table }] });
          expect(await checksums(tables)).toEqual(before);
          expect(await statusOf(patch.id)).toBe('rolled_back');
        });

        it('an expected_rows that differs changes nothing: the run and the patch fail', async () => {
          const statements = [p.update, p.delete];
          const tables = tablesOf(statements);
          const affected = await Promise.all(statements.map(counted));
          const total = affected[0]! + affected[1]!;
          const before = await checksums(tables);
          const patch = await create(statements);
          const run = await runOf(patch.id, 'execute', { expected_rows: total + 1 });
          expect(run.status).toBe('failed');
          expect(run.error).toMatch(`affect ${total} rows, not the ${total + 1} expected`);
          expect(run.result).toMatchObject({
            affected_rows: affected,
            expected_rows: total + 1,
            changed: false,
          });
          expect(await checksums(tables)).toEqual(before);
          expect(await statusOf(patch.id)).toBe('failed');
        });

        it('a later statement failing on a foreign key leaves no partial change', async () => {
          const statements = [p.update, p.delete, p.breaks];
          const tables = tablesOf(statements);
          const before = await checksums(tables);
          const patch = await create(statements);
          const dry = await owner.post(`${API}/patches/${patch.id}/dry-run`);
          expect(dry.status).toBe(422);
          expect(dry.body.detail[0].msg).toMatch(/^Statement 3 failed/);
          expect(await checksums(tables)).toEqual(before);

          const run = await runOf(patch.id, 'execute', {});
          expect(run.status).toBe('failed');
          expect(run.error).toMatch(/^The patch failed and was rolled back/);
          expect(run.result).toMatchObject({ changed: false });
          expect(await checksums(tables)).toEqual(before);
          expect(await statusOf(patch.id)).toBe('failed');
        });
      });
    }
  }
});
