// The row pipeline on MySQL 8 and MariaDB (../rows.ts): rows leave through a streaming SELECT
// (mysql2 pauses the socket while the consumer is busy) and are printed in the neutral text format;
// they arrive through `LOAD DATA LOCAL INFILE` fed from the batches, whose FIELDS/ESCAPED/LINES
// options make MySQL read that same format. Where the server refuses local files (local_infile
// off) they arrive as multi-row INSERTs instead, and the result says so.
//
// LOAD DATA LOCAL turns data errors into warnings (the server cannot stop the client's file), so a
// load with any warning is failed here with the first one, which names the column and the row.
import { Readable } from 'node:stream';
import type mysql from 'mysql2/promise';
import { readMysqlFilter } from '../../engine/bridge/filter-check.ts';
import { decodeRow, type RowBatch } from '../../engine/rows/copy-text.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';
import type { Flavor } from '../../engine/schema/model.ts';
import type {
  ReadRowsRequest,
  RowFormat,
  RowSession,
  WriteRowsRequest,
  WriteRowsResult,
} from '../dialect.ts';
import { TargetError } from '../errors.ts';
import { counted, qualifiedTable } from '../rows.ts';
import { type CoreConnection, readNeutralBatches } from './mysql.row-reader.ts';
import { mysqlSqlWriter } from './mysql.sql-writer.ts';

const q = mysqlSqlWriter.quoteIdent;
/**
 * Error numbers of a refused LOAD DATA LOCAL: ER_NOT_ALLOWED_COMMAND (1148), MySQL 8's
 * ER_CLIENT_LOCAL_FILES_DISABLED (3948) and CR_LOAD_DATA_LOCAL_INFILE_REJECTED (2068), MariaDB's
 * ER_LOAD_INFILE_CAPABILITY_DISABLED (4166). By number: mysql2 has no symbol for MariaDB's.
 */
const LOCAL_INFILE_REFUSED = new Set([1148, 3948, 2068, 4166]);
/** Placeholders one INSERT may carry (the protocol's limit is 65535). */
const MAX_PARAMS = 60_000;

/**
 * The expression that turns a field's neutral text `v` into the value of a target column of `kind`:
 * binary from `\x`+hex, booleans from `t`/`f`, timestamps without PostgreSQL's `+00` (the session is
 * in UTC). Null stays null through each.
 */
function loadExpression(kind: ValueKind, v: string): string | null {
  switch (kind) {
    case 'binary':
      return `UNHEX(SUBSTRING(${v}, 3))`;
    case 'boolean':
      return `CASE ${v} WHEN 't' THEN 1 WHEN 'f' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE ${v} END`;
    case 'timestamp':
    case 'timestamptz':
    case 'time':
      return `IF(${v} LIKE '%+00', LEFT(${v}, CHAR_LENGTH(${v}) - 3), ${v})`;
    default:
      return null;
  }
}

const BACKSLASH = 0x5c;
const FORM_FEED_ESCAPE = Buffer.from('\\f');
const VERTICAL_TAB_ESCAPE = Buffer.from('\\v');

/**
 * The neutral format as LOAD DATA reads it. PostgreSQL writes form feed and vertical tab as `\f`
 * and `\v`, which LOAD DATA would read as the letters: they become the raw bytes (which it takes
 * as they are). The common batch has neither and passes untouched.
 */
export function forLoadData(data: Buffer): Buffer {
  if (data.indexOf(FORM_FEED_ESCAPE) === -1 && data.indexOf(VERTICAL_TAB_ESCAPE) === -1) return data;
  const out = Buffer.allocUnsafe(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte === BACKSLASH && i + 1 < data.length) {
      const next = data[i + 1]!;
      if (next === 0x66 /* f */ || next === 0x76 /* v */) {
        out[n++] = next === 0x66 ? 0x0c : 0x0b;
      } else {
        // Any other escape, `\\` included, is kept as it is, both bytes at once.
        out[n++] = byte;
        out[n++] = next;
      }
      i++;
    } else out[n++] = byte;
  }
  return out.subarray(0, n);
}

async function* loadDataBatches(batches: AsyncIterable<RowBatch>): AsyncGenerator<RowBatch> {
  for await (const batch of batches) yield { data: forLoadData(batch.data), rows: batch.rows };
}

export async function openMysqlRowSession(
  connect: () => Promise<mysql.PoolConnection>,
  flavor: Flavor,
  fail: (error: unknown) => TargetError,
): Promise<RowSession> {
  const connection = await connect();
  try {
    // Bulk work is bounded by the run, not by the limit of interactive statements.
    await connection.query(
      flavor === 'mariadb' ? 'SET SESSION max_statement_time = 0' : 'SET SESSION max_execution_time = 0',
    );
    await connection.query("SET SESSION time_zone = '+00:00'");
    await connection.query('SET NAMES utf8mb4');
  } catch (error) {
    connection.destroy();
    throw fail(error);
  }
  const run = async (sql: string, params: unknown[] = []) => {
    try {
      const [result] = await connection.query(sql, params);
      return Array.isArray(result)
        ? { rows: result as Record<string, unknown>[], affectedRows: result.length }
        : { rows: [], affectedRows: (result as { affectedRows?: number }).affectedRows ?? 0 };
    } catch (error) {
      throw fail(error);
    }
  };
  let localInfile: boolean | undefined;

  /** Fails a load that the server finished with warnings (data errors under LOAD DATA LOCAL). */
  async function assertNoWarnings(table: string): Promise<void> {
    const { rows } = await run('SHOW WARNINGS LIMIT 1');
    const first = rows[0] as { Level?: string; Code?: number; Message?: string } | undefined;
    if (first)
      throw new TargetError(
        'other',
        `Loading ${table} failed: ${first.Message ?? 'a warning'} (${first.Code})`,
      );
  }

  /** The load, or null when the server refused local files before asking for one (no batch taken). */
  async function loadData(
    request: WriteRowsRequest,
    batches: AsyncIterable<RowBatch>,
  ): Promise<WriteRowsResult | null> {
    const table = qualifiedTable(q, request);
    const targets: string[] = [];
    const sets: string[] = [];
    request.columns.forEach((column, i) => {
      const expression = loadExpression(request.kinds[i]!, `@v${i}`);
      if (expression === null) targets.push(q(column));
      else {
        targets.push(`@v${i}`);
        sets.push(`${q(column)} = ${expression}`);
      }
    });
    const sql =
      `LOAD DATA LOCAL INFILE 'dbops-rows' INTO TABLE ${table} CHARACTER SET utf8mb4 ` +
      `FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${targets.join(', ')})` +
      (sets.length > 0 ? ` SET ${sets.join(', ')}` : '');
    const tally: { rows: number; upstream?: unknown } = { rows: 0 };
    try {
      await connection.query({
        sql,
        // One batch read ahead, not Readable.from's default of 16 (megabytes of batches waiting).
        infileStreamFactory: () =>
          Readable.from(counted(loadDataBatches(batches), tally), { highWaterMark: 1 }),
      } as mysql.QueryOptions);
    } catch (error) {
      const errno = (error as { errno?: unknown }).errno;
      if (tally.upstream === undefined && tally.rows === 0 && LOCAL_INFILE_REFUSED.has(Number(errno)))
        return null;
      throw tally.upstream ?? fail(error);
    }
    // mysql2 ends the file early when its stream fails, and the server takes what came as complete.
    if (tally.upstream !== undefined) throw tally.upstream;
    await assertNoWarnings(request.name);
    return { rows: tally.rows, method: 'load_data' };
  }

  async function insertBatches(
    request: WriteRowsRequest,
    batches: AsyncIterable<RowBatch>,
  ): Promise<WriteRowsResult> {
    const table = qualifiedTable(q, request);
    const values = `(${request.kinds.map((kind) => loadExpression(kind, '?') ?? '?').join(', ')})`;
    const placeholdersPerRow = request.kinds.reduce((n, kind) => {
      const expression = loadExpression(kind, '?');
      return n + (expression === null ? 1 : expression.split('?').length - 1);
    }, 0);
    const perStatement = Math.max(
      1,
      Math.min(1000, Math.floor(MAX_PARAMS / Math.max(1, placeholdersPerRow))),
    );
    const head = `INSERT INTO ${table} (${request.columns.map(q).join(', ')}) VALUES `;
    let rows = 0;
    let pending: unknown[][] = [];
    const flush = async () => {
      if (pending.length === 0) return;
      const params: unknown[] = [];
      for (const row of pending)
        for (let i = 0; i < row.length; i++) {
          const expression = loadExpression(request.kinds[i]!, '?');
          const uses = expression === null ? 1 : expression.split('?').length - 1;
          for (let u = 0; u < uses; u++) params.push(row[i]);
        }
      await run(head + pending.map(() => values).join(', '), params);
      rows += pending.length;
      pending = [];
    };
    for await (const batch of batches) {
      const text = batch.data.toString('utf8');
      for (const line of text.split('\n')) {
        if (line === '') continue;
        pending.push(decodeRow(line));
        if (pending.length >= perStatement) await flush();
      }
    }
    await flush();
    return { rows, method: 'insert_batches' };
  }

  return {
    query: run,
    readRows(request: ReadRowsRequest): AsyncGenerator<RowBatch> {
      const table = qualifiedTable(q, request);
      const sql =
        `SELECT ${request.columns.map(q).join(', ')} FROM ${table}` +
        (request.where === undefined ? '' : ` WHERE ${request.where}`);
      const core = (connection as unknown as { connection: CoreConnection }).connection;
      return readNeutralBatches(core, sql, request.kinds, fail);
    },
    async writeRows(request, batches) {
      if (localInfile === undefined) {
        const { rows } = await run('SELECT @@local_infile AS on_');
        localInfile = Number((rows[0] as { on_: unknown }).on_) === 1;
      }
      if (!localInfile) return insertBatches(request, batches);
      const loaded = await loadData(request, batches);
      if (loaded) return loaded;
      // Refused before the server asked for the file (so no batch was taken): local files are off
      // on one side after all (a client setting, or a server option the variable does not show).
      localInfile = false;
      return insertBatches(request, batches);
    },
    async close() {
      // Never back to the pool: foreign_key_checks and other session state end with the connection.
      connection.destroy();
    },
  };
}

/** MySQL/MariaDB column types (COLUMN_TYPE) → the pipeline's kinds. */
export function mysqlValueKind(type: string): ValueKind {
  const t = type.toLowerCase();
  if (t.startsWith('tinyint(1)')) return 'boolean';
  const base = t.replace(/\(.*$/, '').replace(/\s.*$/, '');
  switch (base) {
    case 'tinyint':
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'bigint':
    case 'year':
    case 'bit':
      return 'integer';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'float':
    case 'double':
    case 'real':
      return 'float';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
      return 'timestamp';
    case 'timestamp':
      return 'timestamptz';
    case 'json':
      return 'json';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'binary';
    case 'enum':
    case 'set':
      return 'enum';
    default:
      return 'text';
  }
}

/**
 * A PostgreSQL column's type for MySQL (create_tables). The mapping, documented in the README:
 * boolean → tinyint(1); smallint/integer/bigint kept; numeric(p,s) → decimal(p,s) (unbounded
 * numeric → decimal(65,30)); real → float; double precision → double; varchar(n)/char(n) kept,
 * unbounded varchar and text → longtext; json/jsonb → json; uuid → char(36); bytea → longblob;
 * timestamp → datetime(6); timestamptz → timestamp(6) stored in UTC; time → time(6); enums and
 * other types → varchar(255). Arrays are refused (RowFormat.refusal).
 */
function mysqlColumnType(kind: ValueKind, type: string): string {
  const t = type.toLowerCase();
  const args = /\(([^)]*)\)/.exec(t)?.[1];
  const base = t.replace(/\(.*?\)/, '').trim();
  switch (base) {
    case 'boolean':
      return 'tinyint(1)';
    case 'smallint':
    case 'integer':
    case 'bigint':
      return base === 'integer' ? 'int' : base;
    case 'numeric':
      return args ? `decimal(${args})` : 'decimal(65,30)';
    case 'real':
      return 'float';
    case 'double precision':
      return 'double';
    case 'character varying':
      return args ? `varchar(${args})` : 'longtext';
    case 'character':
      return args ? `char(${args})` : 'char(1)';
    case 'text':
      return 'longtext';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'uuid':
      return 'char(36)';
    case 'bytea':
      return 'longblob';
    case 'date':
      return 'date';
    case 'timestamp without time zone':
      return 'datetime(6)';
    case 'timestamp with time zone':
      return 'timestamp(6)';
    case 'time without time zone':
    case 'time with time zone':
      return 'time(6)';
    default:
      return kind === 'integer' ? 'bigint' : 'varchar(255)';
  }
}

export const mysqlRowFormat: RowFormat = {
  valueKind: mysqlValueKind,
  refusal: (kind, type) =>
    kind === 'array'
      ? `a PostgreSQL array cannot be stored in a MySQL column (${type}); leave the column out or give the target a column of another name`
      : null,
  columnType: mysqlColumnType,
  // AUTO_INCREMENT on the primary key; InnoDB cannot index unbounded text, so a keyed text column
  // gets a bounded type; key parts stay bare, as the model keeps MySQL names.
  createdTables: { generatedKey: 'auto_increment', keyedTextType: 'varchar(255)', quotedKeyParts: false },
  readFilter: readMysqlFilter,
  // MariaDB has no @@server_uuid; host name, port and data directory tell servers apart on both.
  identitySql: "SELECT CONCAT(@@hostname, ':', @@port, ':', @@datadir, '/', DATABASE()) AS identity",
  filterModeSql: 'SELECT @@SESSION.sql_mode AS mode',
  foreignKeyLoad: {
    kind: 'session',
    off: 'SET SESSION foreign_key_checks = 0',
    on: 'SET SESSION foreign_key_checks = 1',
  },
  syncSequence: () => null,
  // CREATE TEMPORARY TABLE does not end the transaction (other DDL would).
  stageSql: (stage, table) => [`CREATE TEMPORARY TABLE ${stage} LIKE ${table}`],
  upsertSql: (table, stage, columns, key) => {
    const list = columns.map(q).join(', ');
    const others = columns.filter((c) => !key.includes(c));
    // Without other columns, a row already there is left as it is (an assignment to itself).
    const updates = (others.length > 0 ? others : key).map((c) => `${q(c)} = VALUES(${q(c)})`).join(', ');
    return `INSERT INTO ${table} (${list}) SELECT ${list} FROM ${stage} ON DUPLICATE KEY UPDATE ${updates}`;
  },
  // The CRC-32 of seed and key, over 2^32 (the seed is hex: nothing to quote).
  sampleSql: (columns, seed) =>
    `CRC32(CONCAT('${seed.replace(/[^0-9a-f]/g, '')}', CONCAT_WS('|', ${columns.join(', ')}))) / 4294967296`,
  // TRUNCATE TABLE commits the transaction (and needs the table unreferenced): not a step of one.
  tableReload: null,
  subsetKeyTables: {
    kind: 'own',
    leftoversSql:
      'SELECT table_name AS name FROM information_schema.tables ' +
      "WHERE table_schema = DATABASE() AND table_name LIKE '\\_dbops\\_bak\\_bridge\\_%'",
  },
};
