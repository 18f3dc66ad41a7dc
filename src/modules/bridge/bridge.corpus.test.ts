// Bridge runs on real schemas from the shared corpus, through the HTTP API and the real worker:
// Sakila on PostgreSQL copied into an empty PostgreSQL with create_tables (enums, domains, arrays,
// tsvector, triggers; checksums equal per table), Sakila into MariaDB's own Sakila schema (the
// PostgreSQL array column refused before anything is written; the other tables copied), and
// Chinook from MariaDB into an empty PostgreSQL with create_tables (types mapped across engines).
import { describe, expect, it } from 'vitest';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import {
  corpusAvailable,
  loadMysqlSql,
  loadPostgresSql,
  loadSakilaRows,
  readCorpus,
} from '../../../test/support/corpus.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';

const SUITE = 'bridge on Sakila and Chinook (bridge.corpus.test.ts)';
const corpusUp = corpusAvailable(SUITE);
const engines = await targetEngines(SUITE);
const SAKILA = ['language', 'category', 'actor', 'film', 'film_actor', 'film_category'] as const;

describe.skipIf(!(corpusUp && engines.postgresql.up && engines.mysql.up))('bridge on the corpus', () => {
  const suite = bridgeSuite(
    { org: 'Corpus bridge', project: 'Corpus' },
    async ({ database }) => {
      await database('sakila_pg', engines.postgresql, async (url) => {
        await loadPostgresSql(url, readCorpus('sakila', 'postgres-schema.sql'));
        await loadSakilaRows(url, [...SAKILA]);
      });
      // Domains are outside what the migration planner creates (the schema model lists them as
      // unmanaged): the target has Sakila's `year` domain, as a DBA would create it first.
      await database('empty_pg', engines.postgresql, (url) =>
        loadPostgresSql(
          url,
          'CREATE DOMAIN public.year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901 AND VALUE <= 2155)',
        ),
      );
      await database('sakila_my', engines.mysql, (url) =>
        loadMysqlSql(url, readCorpus('sakila', 'mysql-schema.sql'), { dropQualifier: 'sakila' }),
      );
      await database('chinook_my', engines.mysql, (url) =>
        loadMysqlSql(url, readCorpus('chinook', 'mysql.sql')),
      );
      await database('empty_pg2', engines.postgresql, async () => {});
    },
    120_000,
  );
  const { urls, ids, copied: copy } = suite;

  it('Sakila PostgreSQL → empty PostgreSQL with create_tables: every table equal', async () => {
    const run = await copy({
      source_connection_id: ids.sakila_pg,
      target_connection_id: ids.empty_pg,
      tables: [...SAKILA],
      create_tables: true,
    });
    expect(run.error).toBeNull();
    expect(run.result.tables_created).toHaveLength(SAKILA.length);
    for (const table of SAKILA)
      expect(await tableChecksum(urls.empty_pg!, table), table).toEqual(
        await tableChecksum(urls.sakila_pg!, table),
      );
    expect(run.result.rows_total).toBeGreaterThan(7_000);
  });

  it('Sakila PostgreSQL → MariaDB: the array column is refused before writing; the other tables copy', async () => {
    const refused = await copy({
      source_connection_id: ids.sakila_pg,
      target_connection_id: ids.sakila_my,
      tables: ['film'],
    });
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(
      /film\.special_features: a PostgreSQL array cannot be stored.*nothing was written/,
    );
    expect(await engines.mysql.query(urls.sakila_my!, 'select count(*) as n from film')).toEqual([{ n: 0 }]);

    const run = await copy({
      source_connection_id: ids.sakila_pg,
      target_connection_id: ids.sakila_my,
      tables: ['language', 'category', 'actor'],
    });
    expect(run.error).toBeNull();
    for (const table of ['language', 'category', 'actor']) {
      const [source] = await engines.postgresql.query(
        urls.sakila_pg!,
        `select count(*)::int as n, string_agg(name_of, '|' order by id) as names from (select ${table}_id as id, ${table === 'actor' ? "first_name || ' ' || last_name" : 'name'} as name_of from ${table}) x`,
      );
      const [target] = await engines.mysql.query(
        urls.sakila_my!,
        `select count(*) as n, group_concat(name_of order by id separator '|') as names from (select ${table}_id as id, ${table === 'actor' ? "concat(first_name, ' ', last_name)" : 'trim(name)'} as name_of from ${table}) x`,
      );
      expect(Number(target!.n), table).toBe(source!.n);
      expect(String(target!.names), table).toBe(String(source!.names).replace(/ +(\||$)/g, '$1'));
    }
  });

  it('Chinook MariaDB → empty PostgreSQL with create_tables: every row, decimals exact', async () => {
    const run = await copy({
      source_connection_id: ids.chinook_my,
      target_connection_id: ids.empty_pg2,
      create_tables: true,
    });
    expect(run.error).toBeNull();
    expect(run.result.tables_created).toHaveLength(11);
    for (const table of [
      'Album',
      'Artist',
      'Customer',
      'Employee',
      'Genre',
      'Invoice',
      'InvoiceLine',
      'MediaType',
      'Playlist',
      'PlaylistTrack',
      'Track',
    ]) {
      const [source] = await engines.mysql.query(urls.chinook_my!, `select count(*) as n from \`${table}\``);
      const [target] = await engines.postgresql.query(
        urls.empty_pg2!,
        `select count(*)::int as n from "${table}"`,
      );
      expect(target!.n, table).toBe(Number(source!.n));
    }
    const [sourceSum] = await engines.mysql.query(
      urls.chinook_my!,
      'select cast(sum(`Total`) as char) as s, cast(max(`InvoiceDate`) as char) as d from `Invoice`',
    );
    const [targetSum] = await engines.postgresql.query(
      urls.empty_pg2!,
      'select sum("Total")::text as s, max("InvoiceDate")::text as d from "Invoice"',
    );
    expect(targetSum).toEqual(sourceSum);
    const keys = await engines.postgresql.query(
      urls.empty_pg2!,
      "select count(*)::int as n, bool_and(convalidated) as ok from pg_constraint where contype = 'f'",
    );
    expect(keys).toEqual([{ n: 11, ok: true }]);
  });
});
