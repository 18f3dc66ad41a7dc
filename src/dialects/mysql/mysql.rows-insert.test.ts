// The MySQL row session's fallback on a real MariaDB: when local files are refused (here the client
// does not offer them, so the server refuses `LOAD DATA LOCAL` before asking for a file), the rows
// arrive as multi-row INSERT batches with the same conversions as LOAD DATA (binary, booleans,
// timestamps written by PostgreSQL, NULL apart from the empty string, escapes), and the result says
// `insert_batches`. The same rows through a session that may use local files say `load_data`.
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEngines } from '../../../test/support/engines.ts';
import { encodeRow, type RowBatch } from '../../engine/rows/copy-text.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';
import { classifyMysqlError } from './mysql.errors.ts';
import { openMysqlRowSession } from './mysql.rows.ts';

const engines = await targetEngines('MySQL INSERT fallback (mysql.rows-insert.test.ts)');

const TABLE =
  'create table t (id int primary key, flag tinyint(1), bin blob, ts datetime(6), txt text) character set utf8mb4';
const COLUMNS = ['id', 'flag', 'bin', 'ts', 'txt'];
const KINDS: ValueKind[] = ['integer', 'boolean', 'binary', 'timestamptz', 'text'];
const ROWS = 2_500;
const row = (i: number) => [
  String(i),
  i % 3 === 0 ? null : i % 2 === 0 ? 't' : 'f',
  i % 5 === 0 ? '\\x' : `\\x00ff${(i % 256).toString(16).padStart(2, '0')}`,
  '2024-06-01 10:00:00.25+00',
  i % 7 === 0 ? '' : `tab\there ñ ${i}\nline`,
];

async function* batches(): AsyncGenerator<RowBatch> {
  // Several batches, so that statements are cut across them.
  for (let start = 1; start <= ROWS; start += 1_000) {
    let text = '';
    let rows = 0;
    for (let i = start; i < start + 1_000 && i <= ROWS; i++, rows++) text += encodeRow(row(i));
    yield { data: Buffer.from(text, 'utf8'), rows };
  }
}

describe.skipIf(!engines.mysql.up)('MySQL rows without local files', () => {
  let db: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await engines.mysql.create();
    await engines.mysql.load(db.url, TABLE);
  });
  afterAll(() => db?.drop());

  async function load(localFiles: boolean) {
    const pool = mysql.createPool({
      uri: db.url,
      connectionLimit: 1,
      // mysql2 offers local files unless told not to; without them the server refuses LOAD DATA LOCAL.
      ...(localFiles ? {} : { flags: ['-LOCAL_FILES'] }),
    });
    try {
      await engines.mysql.query(db.url, 'delete from t');
      const session = await openMysqlRowSession(
        () => pool.getConnection(),
        'mariadb',
        (error) => classifyMysqlError(error, ''),
      );
      try {
        return await session.writeRows(
          { schema: null, name: 't', columns: COLUMNS, kinds: KINDS },
          batches(),
        );
      } finally {
        await session.close();
      }
    } finally {
      await pool.end();
    }
  }
  const read = () =>
    engines.mysql.query(
      db.url,
      "select id, flag, hex(bin) as bin, date_format(ts, '%Y-%m-%d %H:%i:%s.%f') as ts, txt from t order by id",
    );

  it('falls back to multi-row INSERTs, converting values as LOAD DATA does, and says so', async () => {
    expect(await load(false)).toEqual({ rows: ROWS, method: 'insert_batches' });
    const inserted = await read();
    expect(inserted).toHaveLength(ROWS);
    expect(inserted.slice(0, 7)).toEqual([
      { id: 1, flag: 0, bin: '00FF01', ts: '2024-06-01 10:00:00.250000', txt: 'tab\there ñ 1\nline' },
      { id: 2, flag: 1, bin: '00FF02', ts: '2024-06-01 10:00:00.250000', txt: 'tab\there ñ 2\nline' },
      { id: 3, flag: null, bin: '00FF03', ts: '2024-06-01 10:00:00.250000', txt: 'tab\there ñ 3\nline' },
      { id: 4, flag: 1, bin: '00FF04', ts: '2024-06-01 10:00:00.250000', txt: 'tab\there ñ 4\nline' },
      { id: 5, flag: 0, bin: '', ts: '2024-06-01 10:00:00.250000', txt: 'tab\there ñ 5\nline' },
      { id: 6, flag: null, bin: '00FF06', ts: '2024-06-01 10:00:00.250000', txt: 'tab\there ñ 6\nline' },
      { id: 7, flag: 0, bin: '00FF07', ts: '2024-06-01 10:00:00.250000', txt: '' },
    ]);
    // The same rows through LOAD DATA: the same table content.
    expect(await load(true)).toEqual({ rows: ROWS, method: 'load_data' });
    expect(await read()).toEqual(inserted);
  });
});
