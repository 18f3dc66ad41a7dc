// The MySQL row reader on the real MariaDB test server: bytes printed in the neutral format exactly
// as the format's own encoder prints the same values (escapes, NULL, binary, BIT, multibyte text),
// a row larger than a batch, and back-pressure: with a slow consumer the connection is paused and
// every row still arrives; a consumer that stops early leaves the connection usable.
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestMysqlDatabase,
  mysqlAvailable,
  type TestMysqlDatabase,
} from '../../../test/support/mysql.ts';
import { countRows, encodeRow } from '../../engine/rows/copy-text.ts';
import { type CoreConnection, readNeutralBatches } from './mysql.row-reader.ts';

const up = await mysqlAvailable();

describe.skipIf(!up)('MySQL row reader', () => {
  let database: TestMysqlDatabase;
  let connection: mysql.Connection;
  let pauses = 0;
  let core: CoreConnection;

  beforeAll(async () => {
    database = (await createTestMysqlDatabase())!;
    connection = await mysql.createConnection({ uri: database.url });
    await connection.query("SET NAMES utf8mb4, time_zone = '+00:00'");
    const real = (connection as unknown as { connection: CoreConnection }).connection;
    // The real connection, counting the pauses it is asked for.
    core = {
      query: (options) => real.query(options),
      pause: () => {
        pauses++;
        real.pause();
      },
      resume: () => real.resume(),
    };
  });
  afterAll(async () => {
    await connection?.end();
    await database?.drop();
  });

  const read = async (sql: string, kinds: Parameters<typeof readNeutralBatches>[2]) => {
    const parts: Buffer[] = [];
    let rows = 0;
    for await (const batch of readNeutralBatches(core, sql, kinds, (e) => e as Error)) {
      expect(countRows(batch.data)).toBe(batch.rows);
      parts.push(batch.data);
      rows += batch.rows;
    }
    return { text: Buffer.concat(parts).toString('utf8'), rows };
  };

  it('prints every kind of value as the neutral encoder does', async () => {
    await connection.query(
      'create table v (id int, t text, b longblob, f bit(10), d decimal(30,10), at datetime(6), e varchar(5))',
    );
    await connection.query(
      `insert into v values (1, 'tab\\there\\nline\\rcr \\\\ back ñ 日本 🎉', x'000A0D5C09FF', b'1000000001',
        -12345678901234567890.0123456789, '2024-02-29 23:59:59.5', ''),
        (2, null, null, null, null, null, null), (3, '\\\\N', x'', b'0', 0, '1970-01-01', 'x')`,
    );
    const { text, rows } = await read('select * from v order by id', [
      'integer',
      'text',
      'binary',
      'integer',
      'decimal',
      'timestamp',
      'text',
    ]);
    expect(rows).toBe(3);
    expect(text).toBe(
      encodeRow([
        '1',
        'tab\there\nline\rcr \\ back ñ 日本 🎉',
        '\\x000a0d5c09ff',
        '513',
        '-12345678901234567890.0123456789',
        '2024-02-29 23:59:59.500000',
        '',
      ]) +
        encodeRow([null, null, null, null, null, null, null].map((v, i) => (i === 0 ? '2' : v))) +
        encodeRow(['3', '\\N', '\\x', '0', '0.0000000000', '1970-01-01 00:00:00.000000', 'x']),
    );
  });

  it('holds a row larger than a batch', async () => {
    const { text, rows } = await read("select repeat('a\\\\', 1500000) as big, 1 as n", ['text', 'integer']);
    expect(rows).toBe(1);
    expect(text).toBe(`${'a\\\\'.repeat(1_500_000)}\t1\n`);
  });

  it('pauses the connection for a slow consumer and still delivers every row', async () => {
    pauses = 0;
    const sql = "select seq, repeat('x', 200) from seq_1_to_60000";
    let rows = 0;
    for await (const batch of readNeutralBatches(core, sql, ['integer', 'text'], (e) => e as Error)) {
      rows += batch.rows;
      await sleep(20);
    }
    expect(rows).toBe(60_000);
    expect(pauses).toBeGreaterThan(0);
  });

  it('leaves the connection usable when the consumer stops early', async () => {
    const sql = "select seq, repeat('x', 200) from seq_1_to_60000";
    for await (const batch of readNeutralBatches(core, sql, ['integer', 'text'], (e) => e as Error)) {
      expect(batch.rows).toBeGreaterThan(0);
      break;
    }
    const [answer] = await connection.query('select 41 + 1 as n');
    expect((answer as { n: number }[])[0]!.n).toBe(42);
  });

  it('turns a failing query into the session error', async () => {
    const failing = readNeutralBatches(core, 'select * from no_such_table', ['text'], (e) =>
      Object.assign(new Error('mapped'), { cause: e }),
    );
    await expect(failing.next()).rejects.toThrow('mapped');
  });
});
