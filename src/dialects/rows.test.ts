// The row pipeline on the real servers: every common type leaves and arrives through the dialects'
// row sessions in all four directions, and what arrives is what left (server-side checksums, and
// values read back directly). Also: a value the target cannot hold fails the load naming it, a
// PostgreSQL array is refused for MySQL before anything is sent, and a PostgreSQL table emptied in
// the load's transaction is written frozen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEngines } from '../../test/support/engines.ts';
import { tableChecksum } from '../../test/support/target-query.ts';
import { targetConfig } from '../../test/support/targets.ts';
import { decodeRow } from '../engine/rows/copy-text.ts';
import type { RowSession, TargetHandle } from './dialect.ts';
import { dialects } from './index.ts';

const engines = await targetEngines('row pipeline tests');
const both = engines.postgresql.up && engines.mysql.up;

const PG_TABLE = `
  create type mood as enum ('sad', 'ok', 'happy');
  create table t (
    id integer primary key, s smallint, b bigint, n numeric(38,10), r real, d double precision,
    flag boolean, day date, at_time time, ts timestamp, tstz timestamptz, j jsonb, u uuid,
    bin bytea, txt text, vc varchar(20), m mood
  );
  insert into t values
    (1, -32768, 9223372036854775807, 1234567890123456789012345678.0123456789, 3.25, 0.1,
     true, '2024-02-29', '23:59:59.5', '2024-01-02 03:04:05.123456', '2024-06-01 12:00:00+02',
     '{"a": [1, "é"], "b": null}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
     '\\x000a0d5c09ff', E'tab\\there\\nnew line \\\\ backslash ñ 日本 🎉 \\f feed \\013 vtab \\b bs \\\\f', '', 'happy'),
    (2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null),
    (3, 0, 0, -0.0000000001, -1.5e10, 1e-300, false, '1970-01-01', '00:00:00', '1999-12-31 23:59:59',
     '2000-01-01 00:00:00+00', '[]', '00000000-0000-0000-0000-000000000000', '\\x', '\\N', 'x', 'sad');
`;

const MYSQL_TABLE = `
  create table t (
    id int primary key, s smallint, b bigint, n decimal(38,10), r float, d double,
    flag tinyint(1), day date, at_time time(6), ts datetime(6), tstz timestamp(6) null, j json,
    u char(36), bin longblob, txt longtext, vc varchar(20), m enum('sad','ok','happy')
  ) character set utf8mb4;
`;

interface Side {
  url: string;
  drop(): Promise<void>;
  handle: TargetHandle;
  session: RowSession;
}

async function side(engine: typeof engines.postgresql, ddl: string): Promise<Side> {
  const db = await engine.create();
  await engine.load(db.url, ddl);
  const handle = await dialects[engine.dialect].open(targetConfig(db.url));
  return { ...db, handle, session: await handle.rowSession() };
}

async function close(s: Side | undefined): Promise<void> {
  if (!s) return;
  await s.session.close();
  await s.handle.close();
  await s.drop();
}

const COLUMNS = [
  'id',
  's',
  'b',
  'n',
  'r',
  'd',
  'flag',
  'day',
  'at_time',
  'ts',
  'tstz',
  'j',
  'u',
  'bin',
  'txt',
  'vc',
  'm',
];

/** Copies table t from one side to the other through the pipeline; returns the writer's result. */
async function copy(from: Side, to: Side, where?: string) {
  const model = (s: Side) => s.handle.introspect().then((m) => m.tables.find((t) => t.name === 't')!);
  const [source, target] = [await model(from), await model(to)];
  const kinds = (s: Side, table: typeof source) =>
    COLUMNS.map((c) =>
      dialects[s.handle.dialect].rows.valueKind(table.columns.find((x) => x.name === c)!.type),
    );
  const table = (s: Side, t: typeof source) => ({
    schema: t.schema,
    name: 't',
    columns: COLUMNS,
    kinds: kinds(s, t),
  });
  return to.session.writeRows(
    table(to, target),
    from.session.readRows({ ...table(from, source), ...(where !== undefined && { where }) }),
  );
}

describe.skipIf(!both)('row pipeline between PostgreSQL and MariaDB', () => {
  let pgA: Side | undefined;
  let pgB: Side | undefined;
  let pgC: Side | undefined;
  let myA: Side | undefined;
  let myB: Side | undefined;

  beforeAll(async () => {
    pgA = await side(engines.postgresql, PG_TABLE);
    pgB = await side(engines.postgresql, PG_TABLE.replace(/insert into t values[\s\S]*$/, ''));
    pgC = await side(engines.postgresql, PG_TABLE.replace(/insert into t values[\s\S]*$/, ''));
    myA = await side(engines.mysql, MYSQL_TABLE);
    myB = await side(engines.mysql, MYSQL_TABLE);
  });
  afterAll(async () => {
    for (const s of [pgA, pgB, pgC, myA, myB]) await close(s);
  });

  it('PostgreSQL → PostgreSQL keeps every value (checksum equal)', async () => {
    const result = await copy(pgA!, pgB!);
    expect(result).toEqual({ rows: 3, method: 'copy' });
    expect(await tableChecksum(pgB!.url, 't')).toEqual(await tableChecksum(pgA!.url, 't'));
  });

  it('PostgreSQL → MariaDB → PostgreSQL comes back identical, and MariaDB holds the values', async () => {
    expect(await copy(pgA!, myA!)).toEqual({ rows: 3, method: 'load_data' });
    const [row1] = await engines.mysql.query(
      myA!.url,
      `select n, flag, hex(bin) as bin, txt, vc, m, cast(j as char) as j, tstz, ts, at_time from t where id = 1`,
    );
    expect(row1).toMatchObject({
      n: '1234567890123456789012345678.0123456789',
      flag: 1,
      bin: '000A0D5C09FF',
      txt: 'tab\there\nnew line \\ backslash ñ 日本 🎉 \f feed \v vtab \b bs \\f',
      vc: '',
      m: 'happy',
    });
    expect(JSON.parse(String(row1!.j))).toEqual({ a: [1, 'é'], b: null });
    // The connection's session is not in UTC; read the stored UTC value as text.
    const [utc] = await engines.mysql.query(
      myA!.url,
      "select convert_tz(tstz, @@session.time_zone, '+00:00') as tstz from t where id = 1",
    );
    expect(String(utc!.tstz)).toContain('10:00:00');
    const [nulls] = await engines.mysql.query(
      myA!.url,
      `select sum(vc is null) as vc_null, sum(vc = '') as vc_empty, sum(txt = '\\\\N') as literal_backslash_n from t`,
    );
    expect(nulls).toMatchObject({ vc_null: '1', vc_empty: '1', literal_backslash_n: '1' });

    expect(await copy(myA!, pgC!)).toEqual({ rows: 3, method: 'copy' });
    expect(await tableChecksum(pgC!.url, 't')).toEqual(await tableChecksum(pgA!.url, 't'));
  });

  it('MariaDB → MariaDB keeps every value (checksum equal)', async () => {
    await engines.mysql.query(myB!.url, 'delete from t');
    expect(await copy(myA!, myB!)).toEqual({ rows: 3, method: 'load_data' });
    expect(await tableChecksum(myB!.url, 't')).toEqual(await tableChecksum(myA!.url, 't'));
  });

  it('PostgreSQL: a table emptied in the open transaction is written frozen (COPY FREEZE), values intact', async () => {
    const target = (await pgB!.handle.introspect()).tables.find((t) => t.name === 't')!;
    const source = (await pgA!.handle.introspect()).tables.find((t) => t.name === 't')!;
    const kinds = (table: typeof source) =>
      COLUMNS.map((c) => dialects.postgresql.rows.valueKind(table.columns.find((x) => x.name === c)!.type));
    await pgB!.session.query('BEGIN');
    await pgB!.session.query('TRUNCATE TABLE t');
    const written = await pgB!.session.writeRows(
      {
        schema: target.schema,
        name: 't',
        columns: COLUMNS,
        kinds: kinds(target),
        emptiedInTransaction: true,
      },
      pgA!.session.readRows({ schema: source.schema, name: 't', columns: COLUMNS, kinds: kinds(source) }),
    );
    await pgB!.session.query('COMMIT');
    expect(written).toEqual({ rows: 3, method: 'copy' });
    // Frozen on the way in, the pages are all-visible already (PostgreSQL 14+): an index-only scan
    // fetches no row from the heap, where freshly written rows would each need a visibility check.
    await pgB!.session.query('SET enable_seqscan = off');
    await pgB!.session.query('SET enable_bitmapscan = off');
    const { rows: plan } = await pgB!.session.query(
      'EXPLAIN (ANALYZE, FORMAT JSON) SELECT id FROM t WHERE id > 0',
    );
    await pgB!.session.query('RESET enable_seqscan');
    await pgB!.session.query('RESET enable_bitmapscan');
    expect(JSON.stringify(plan)).toContain('"Index Only Scan"');
    expect(JSON.stringify(plan)).toContain('"Heap Fetches":0');
    expect(await tableChecksum(pgB!.url, 't')).toEqual(await tableChecksum(pgA!.url, 't'));
  });

  it('a filter is applied on the source', async () => {
    const batches = [];
    const source = (await pgA!.handle.introspect()).tables.find((t) => t.name === 't')!;
    for await (const batch of pgA!.session.readRows({
      schema: source.schema,
      name: 't',
      columns: ['id', 'vc'],
      kinds: ['integer', 'text'],
      where: '"id" >= 2',
    }))
      batches.push(batch);
    const lines = Buffer.concat(batches.map((b) => b.data))
      .toString()
      .trim()
      .split('\n')
      .map(decodeRow);
    expect(lines.sort()).toEqual([
      ['2', null],
      ['3', 'x'],
    ]);
  });

  it('a value the target cannot hold fails the load, naming the column, and leaves nothing', async () => {
    const rows = async function* () {
      yield { data: Buffer.from('10\tnot a number\n'), rows: 1 };
    };
    const table = { schema: null, name: 't', columns: ['id', 's'], kinds: ['integer', 'integer'] as const };
    await expect(myB!.session.writeRows({ ...table, kinds: [...table.kinds] }, rows())).rejects.toThrow(
      /Loading t failed: Incorrect integer value.*`t`.`s` at row 1/,
    );
    const pgSchema = (await pgB!.handle.introspect()).tables[0]!.schema;
    await expect(
      pgB!.session.writeRows({ ...table, schema: pgSchema, kinds: [...table.kinds] }, rows()),
    ).rejects.toThrow(/invalid input syntax for type smallint.*COPY t, line 1, column s/);
    expect(
      await engines.postgresql.query(pgB!.url, 'select count(*)::int as n from t where id = 10'),
    ).toEqual([{ n: 0 }]);
  });

  it('a PostgreSQL array is refused for MySQL, not for PostgreSQL', () => {
    expect(dialects.postgresql.rows.valueKind('integer[]')).toBe('array');
    expect(dialects.mysql.rows.refusal('array', 'json')).toMatch(/array/);
    expect(dialects.postgresql.rows.refusal('array', 'integer[]')).toBeNull();
  });
});
