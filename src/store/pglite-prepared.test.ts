// The embedded store's named statements: the rows and errors `PGlite.query()` would give, each data
// statement parsed once, never run inside another caller's open transaction, and parsed again after
// a schema change broke it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './db.ts';

describe('the embedded store’s prepared statements', () => {
  let store: Store;

  beforeAll(async () => {
    store = await openStore({ kind: 'pglite-memory' });
    await sql`create table probe (id int primary key, label text, at timestamptz, big bigint,
      doc jsonb, tags text[], flag boolean)`.execute(store.db);
  });
  afterAll(async () => {
    await store?.close();
  });

  const named = async () => {
    const { rows } = await store.pglite!.query<{ statement: string }>(
      'select statement from pg_prepared_statements where not from_sql',
    );
    return rows.map((row) => row.statement);
  };

  it('gives the rows and counts PGlite’s own query gives, for every parameter and column type', async () => {
    const at = new Date('2026-11-28T10:00:00.123Z');
    const inserted = await store.db
      .insertInto('probe' as never)
      .values({
        id: 1,
        label: null,
        at,
        big: 9007199254740993n,
        doc: '{"a":[1,2]}',
        tags: ['x', 'y,z'],
        flag: true,
      } as never)
      .executeTakeFirst();
    expect(inserted.numInsertedOrUpdatedRows).toBe(1n);
    const select = 'select * from probe where id = $1 and at = $2 and flag = $3 and tags = $4';
    const values = [1, at, true, ['x', 'y,z']];
    const { rows } = await sql`select * from probe where id = ${1} and at = ${at} and flag = ${true}
      and tags = ${['x', 'y,z']}`.execute(store.db);
    const direct = await store.pglite!.query(select, values);
    expect(rows).toEqual(direct.rows);
    expect(rows).toEqual([
      { id: 1, label: null, at, big: 9007199254740993n, doc: { a: [1, 2] }, tags: ['x', 'y,z'], flag: true },
    ]);
    expect(await named()).toContainEqual(expect.stringContaining('select * from probe where id = $1'));
    const updated = await sql`update probe set label = ${'one'} where id = ${1}`.execute(store.db);
    expect(updated.numAffectedRows).toBe(1n);
  });

  it('parses a statement once, however often it runs', async () => {
    const before = (await named()).length;
    for (let i = 0; i < 5; i++) await sql`select label from probe where id = ${i}`.execute(store.db);
    expect((await named()).length).toBe(before + 1);
  });

  it('throws the database’s error with its code and stays usable', async () => {
    const duplicate = sql`insert into probe (id) values (${1})`.execute(store.db);
    await expect(duplicate).rejects.toMatchObject({ code: '23505' });
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from probe where id > ${0}`.execute(
      store.db,
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('runs inside its own transaction, and waits outside another one', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const transaction = store.db.transaction().execute(async (trx) => {
      await sql`insert into probe (id, label) values (${2}, ${'rolled back'})`.execute(trx);
      order.push('inserted');
      await held;
      throw new Error('roll back');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outside = sql<{ n: number }>`select count(*)::int as n from probe where label = ${'rolled back'}`
      .execute(store.db)
      .then((result) => {
        order.push('read');
        return result.rows[0]?.n;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['inserted']);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await outside).toBe(0);
    expect(order).toEqual(['inserted', 'read']);
  });

  it('parses a statement again once a schema change broke it', async () => {
    const read = () => sql`select * from probe where id = ${1}`.execute(store.db);
    await read();
    await sql`alter table probe add column extra int`.execute(store.db);
    // PostgreSQL refuses the old plan of a `select *` once (as a server would), then it is parsed anew.
    await read().catch((error: { code?: string }) => expect(error.code).toBe('0A000'));
    const { rows } = await read();
    expect(rows[0]).toHaveProperty('extra', null);
  });
});
