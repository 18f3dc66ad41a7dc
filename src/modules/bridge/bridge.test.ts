// Bridge runs end to end on the real PostgreSQL and MariaDB test servers: copies in every mode and
// direction with checksums equal and foreign keys valid after, sequences moved, a subset that is
// referentially complete, create_tables across engines. Failures, cancellation and refusals are in
// bridge-failures.test.ts.
import { describe, expect, it } from 'vitest';
import { MYSQL_SCHEMA, postgresShops, shopChecksums, TABLES } from '../../../test/support/bridge-shop.ts';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';

const API = '/api/v1';
const engines = await targetEngines('bridge (bridge.test.ts)');
const up = engines.postgresql.up && engines.mysql.up;

describe.skipIf(!up)('bridge runs', () => {
  const suite = bridgeSuite({ org: 'Bridge org', project: 'Bridge' }, async ({ database }) => {
    await postgresShops(database, engines.postgresql);
    await database('my_target', engines.mysql, MYSQL_SCHEMA);
    await database('my_empty', engines.mysql, 'select 1');
    await database(
      'my_copy',
      engines.mysql,
      `${MYSQL_SCHEMA} insert into customer (id, name) values (999, 'stale');`,
    );
  });
  const { urls, ids, bridge, finished, copied } = suite;
  const checksums = (name: string) => shopChecksums(urls[name]!);

  it('copies PostgreSQL → PostgreSQL in replace mode: checksums equal, keys valid, sequences past the rows', async () => {
    const started = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'bridge_run', status: 'queued', progress: { unit: 'rows' } });
    const run = await finished(started.body.id);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(run.result).toMatchObject({
      tables: [
        { table: 'public.customer', rows: 50 },
        { table: 'public.orders', rows: 200 },
        { table: 'public.line', rows: 600 },
      ],
      rows_total: 850,
      tables_not_done: [],
      load_method: 'copy',
    });
    expect(run.result.snapshot_id).toEqual(expect.any(String));
    // The run's snapshot is of the schema read while the keys were validated, with them valid: the
    // same as reading the target again now.
    const snapshot = await suite.t.store.db
      .selectFrom('snapshots')
      .select('schema_hash')
      .where('id', '=', run.result.snapshot_id)
      .executeTakeFirstOrThrow();
    const fresh = await suite.owner.post(`${API}/connections/${ids.pg_target}/snapshots`, {});
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
    expect(snapshot.schema_hash).toBe(fresh.body.schema_hash);
    const audited = await suite.t.store.db
      .selectFrom('audit_log')
      .select(['action', 'target_id', 'details'])
      .where('action', '=', 'bridge.run')
      .execute();
    expect(audited).toEqual([
      expect.objectContaining({
        target_id: ids.pg_target,
        details: expect.objectContaining({
          run_id: started.body.id,
          mode: 'replace',
          source_connection_id: ids.pg_source,
        }),
      }),
    ]);
    expect(run.progress).toMatchObject({ done: 850 });
    expect(await checksums('pg_target')).toEqual(await checksums('pg_source'));
    const keys = await engines.postgresql.query(
      urls.pg_target!,
      "select conname, convalidated from pg_constraint where contype = 'f' order by conname",
    );
    expect(keys).toEqual([
      { conname: 'line_order_id_fkey', convalidated: true },
      { conname: 'orders_customer_id_fkey', convalidated: true },
    ]);
    const [next] = await engines.postgresql.query(
      urls.pg_target!,
      "insert into customer (name) values ('new') returning id",
    );
    expect(next!.id).toBe(51);
    await engines.postgresql.query(urls.pg_target!, 'delete from customer where id = 51');
  });

  it('upserts by primary key and appends, leaving other rows alone', async () => {
    await engines.postgresql.query(urls.pg_target!, "update customer set name = 'changed' where id <= 5");
    await engines.postgresql.query(urls.pg_target!, "insert into customer (id, name) values (1000, 'kept')");
    const run = await finished(
      (
        await bridge({
          source_connection_id: ids.pg_source,
          target_connection_id: ids.pg_target,
          tables: ['customer'],
          mode: 'upsert',
        })
      ).body.id,
    );
    expect(run.status).toBe('succeeded');
    const rows = await engines.postgresql.query(
      urls.pg_target!,
      "select count(*)::int as n, count(*) filter (where name = 'changed')::int as changed from customer",
    );
    expect(rows).toEqual([{ n: 51, changed: 0 }]);
    await engines.postgresql.query(urls.pg_target!, 'delete from customer where id = 1000');

    const append = await finished(
      (
        await bridge({
          source_connection_id: ids.pg_source,
          target_connection_id: ids.pg_target,
          tables: ['line'],
          mode: 'append',
          filters: { line: 'n = 1' },
        })
      ).body.id,
    );
    // The lines of n = 1 are there already: the primary key refuses them, and the table is untouched.
    expect(append.status).toBe('failed');
    expect(append.error).toMatch(/duplicate key|line/);
    expect(append.result).toMatchObject({ tables_done: [], tables_not_done: ['public.line'] });
    expect((await tableChecksum(urls.pg_target!, 'line')).rows).toBe(600);
  });

  it('copies PostgreSQL → MariaDB (LOAD DATA, foreign key checks off then verified) and back with create_tables', async () => {
    const run = await finished(
      (
        await bridge({
          source_connection_id: ids.pg_source,
          target_connection_id: ids.my_target,
          filters: { orders: 'id <= 100', line: 'order_id <= 100' },
        })
      ).body.id,
    );
    expect(run.error).toBeNull();
    expect(run.result).toMatchObject({
      tables: [
        { table: 'public.customer', rows: 50 },
        { table: 'public.orders', rows: 100 },
        { table: 'public.line', rows: 300 },
      ],
      load_method: 'load_data',
    });
    const [line] = await engines.mysql.query(
      urls.my_target!,
      "select sum(note = '') as empty, sum(note is null) as nulls, max(note) as top from line",
    );
    expect(line).toMatchObject({ empty: '100', nulls: '0', top: 'ñ 3' });
    const [customer] = await engines.mysql.query(
      urls.my_target!,
      'select count(*) as n, sum(email is null) as no_email from customer',
    );
    expect(customer).toMatchObject({ n: 50, no_email: '16' });

    const back = await finished(
      (
        await bridge({
          source_connection_id: ids.my_target,
          target_connection_id: ids.pg_empty,
          create_tables: true,
        })
      ).body.id,
    );
    expect(back.error).toBeNull();
    expect([...back.result.tables_created].sort()).toEqual([
      'public.customer',
      'public.line',
      'public.orders',
    ]);
    const [created] = await engines.postgresql.query(
      urls.pg_empty!,
      "select (select count(*)::int from line) as lines, (select data_type from information_schema.columns where table_name = 'orders' and column_name = 'placed_at') as placed_type, (select count(*)::int from pg_constraint where contype = 'f' and convalidated) as keys",
    );
    expect(created).toEqual({ lines: 300, placed_type: 'timestamp without time zone', keys: 2 });
    const neutral = async (url: string, engine: typeof engines.postgresql, cast: (c: string) => string) =>
      engine.query(
        url,
        `select ${['id', 'customer_id', 'total', 'placed_at'].map((c) => `${cast(c)} as ${c}`).join(', ')} from orders order by id`,
      );
    expect(await neutral(urls.pg_empty!, engines.postgresql, (c) => `${c}::text`)).toEqual(
      await neutral(urls.my_target!, engines.mysql, (c) => `cast(${c} as char)`),
    );
  });

  it('copies MariaDB → MariaDB in replace mode: checksums equal, key checks back on', async () => {
    const run = await finished(
      (await bridge({ source_connection_id: ids.my_target, target_connection_id: ids.my_copy })).body.id,
    );
    expect(run.error).toBeNull();
    expect(run.result.rows_total).toBe(450);
    for (const table of TABLES)
      expect(await tableChecksum(urls.my_copy!, table), table).toEqual(
        await tableChecksum(urls.my_target!, table),
      );
    // The key was checked on the copied rows: an orphan is refused again afterwards.
    await expect(
      engines.mysql.query(urls.my_copy!, 'insert into orders (customer_id) values (12345)'),
    ).rejects.toThrow(/foreign key constraint fails/);
  });

  it('creates the tables on MariaDB from PostgreSQL (types mapped, keys and foreign keys) and upserts there', async () => {
    const run = await copied({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.my_empty,
      create_tables: true,
    });
    expect(run.error).toBeNull();
    expect(run.result.rows_total).toBe(850);
    const columns = await engines.mysql.query(
      urls.my_empty!,
      "select table_name as t, column_name as c, column_type as type, extra from information_schema.columns where table_schema = database() and column_name in ('id', 'name', 'total', 'placed_at') order by 1, 2",
    );
    expect(columns).toEqual([
      { t: 'customer', c: 'id', type: 'int(11)', extra: 'auto_increment' },
      { t: 'customer', c: 'name', type: 'longtext', extra: '' },
      { t: 'orders', c: 'id', type: 'bigint(20)', extra: 'auto_increment' },
      { t: 'orders', c: 'placed_at', type: 'datetime(6)', extra: '' },
      { t: 'orders', c: 'total', type: 'decimal(12,2)', extra: '' },
    ]);
    const keys = await engines.mysql.query(
      urls.my_empty!,
      'select count(*) as n from information_schema.referential_constraints where constraint_schema = database()',
    );
    expect(keys).toEqual([{ n: 2 }]);

    await engines.mysql.query(urls.my_empty!, "update customer set name = 'changed' where id <= 3");
    const upsert = await finished(
      (
        await bridge({
          source_connection_id: ids.pg_source,
          target_connection_id: ids.my_empty,
          tables: ['customer'],
          mode: 'upsert',
        })
      ).body.id,
    );
    expect(upsert.error).toBeNull();
    expect(
      await engines.mysql.query(
        urls.my_empty!,
        "select count(*) as n, sum(name = 'changed') as changed from customer",
      ),
    ).toEqual([{ n: 50, changed: '0' }]);
  });

  it('computes a subset on a MariaDB source too (its own key tables, dropped after)', async () => {
    const run = await finished(
      (
        await bridge({
          source_connection_id: ids.my_target,
          target_connection_id: ids.my_copy,
          subset: { table: 'orders', where: 'id <= 4' },
        })
      ).body.id,
    );
    expect(run.error).toBeNull();
    expect(run.result.tables).toEqual([
      { table: 'customer', rows: 4 },
      { table: 'orders', rows: 4 },
      { table: 'line', rows: 12 },
    ]);
    const leftovers = await engines.mysql.query(
      urls.my_target!,
      "select count(*) as n from information_schema.tables where table_schema = database() and table_name like '\\_dbops\\_bak\\_%'",
    );
    expect(leftovers).toEqual([{ n: 0 }]);
  });

  it('copies a subset closed over foreign keys: children of the start rows, then their parents', async () => {
    await engines.postgresql.query(urls.pg_target!, 'truncate line, orders, customer');
    const run = await finished(
      (
        await bridge({
          source_connection_id: ids.pg_source,
          target_connection_id: ids.pg_target,
          subset: { table: 'orders', where: 'id <= 4' },
        })
      ).body.id,
    );
    expect(run.error).toBeNull();
    // Orders 1-4 belong to customers 2-5; their lines come along; a customer's other orders do not.
    expect(run.result.tables).toEqual([
      { table: 'public.customer', rows: 4 },
      { table: 'public.orders', rows: 4 },
      { table: 'public.line', rows: 12 },
    ]);
    const orphans = await engines.postgresql.query(
      urls.pg_target!,
      'select count(*)::int as n from orders o left join customer c on c.id = o.customer_id where c.id is null',
    );
    expect(orphans).toEqual([{ n: 0 }]);
  });
});
