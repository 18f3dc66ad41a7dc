// The PostgreSQL store names its data statements: each is parsed once per connection, DDL is not
// named, and a connection whose prepared `select *` a schema change broke is dropped, not reused.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../test/support/databases.ts';
import { openStore, type Store } from './db.ts';
import { StatementNames } from './prepared-statements.ts';

describe('StatementNames', () => {
  it('names each data statement once and leaves DDL unnamed', () => {
    const names = new StatementNames();
    const select = names.of('select 1 where $1::int > 0');
    expect(select).toMatch(/^dbops_\d+$/);
    expect(names.of('select 1 where $1::int > 0')).toBe(select);
    expect(names.of('  WITH x AS (select 1) select * from x')).not.toBe(select);
    expect(names.of('create table t (a int)')).toBeUndefined();
    expect(names.of('begin')).toBeUndefined();
  });
});

describe('a PostgreSQL store with prepared statements', async () => {
  const available = await pgAvailable();
  if (!available) reportSkipped('prepared statements', 'PostgreSQL', testPgUrl);
  let database: TestPgDatabase | undefined;
  let store: Store;

  beforeAll(async () => {
    database = await createTestPgDatabase();
    if (!database) return;
    // One connection, so every query below sees what the ones before it prepared.
    store = await openStore({ kind: 'postgres', url: database.url, poolSize: 1 });
    await sql`create table probe (id int primary key, label text)`.execute(store.db);
    await sql`insert into probe values (1, 'one')`.execute(store.db);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const prepared = async () => {
    const { rows } = await sql<{ statement: string }>`
      select statement from pg_prepared_statements where not from_sql`.execute(store.db);
    return rows.map((row) => row.statement);
  };

  it.skipIf(!available)(
    'parses a data statement once per connection, and runs it with new values',
    async () => {
      const read = (id: number) =>
        store.db
          .selectFrom('probe' as never)
          .selectAll()
          .where('id' as never, '=', id as never);
      expect(await read(1).execute()).toEqual([{ id: 1, label: 'one' }]);
      expect(await read(2).execute()).toEqual([]);
      const statements = await prepared();
      expect(statements.filter((text) => text.includes('from "probe"'))).toHaveLength(1);
      expect(statements.some((text) => text.startsWith('create table'))).toBe(false);
    },
  );

  it.skipIf(!available)('prepares again a statement first sent into an aborted transaction', async () => {
    const labelOf = (id: number) => sql<{ label: string }>`select label from probe where id = ${id}`;
    await expect(
      store.db.transaction().execute(async (trx) => {
        await expect(sql`select 1 / 0`.execute(trx)).rejects.toThrow(/division by zero/);
        await labelOf(1).execute(trx);
      }),
    ).rejects.toThrow(/current transaction is aborted/);
    expect((await labelOf(1).execute(store.db)).rows).toEqual([{ label: 'one' }]);
  });

  it.skipIf(!available)('drops a connection whose prepared select a schema change broke', async () => {
    const all = () => sql`select * from probe`.execute(store.db);
    await all();
    await sql`alter table probe add column extra int`.execute(store.db);
    await expect(all()).rejects.toThrow(/cached plan must not change result type/);
    // A new connection: prepared again against the new table.
    expect((await all()).rows).toEqual([{ id: 1, label: 'one', extra: null }]);
  });
});
