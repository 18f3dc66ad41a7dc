// The row pipeline on PostgreSQL (../rows.ts): rows leave with `COPY … TO STDOUT` and arrive with
// `COPY … FROM STDIN` (pg-copy-streams), both in the text format that is the pipeline's neutral
// format, so PostgreSQL to PostgreSQL moves bytes without decoding a row. The session pins what
// shapes the text: UTC (timestamptz prints as `…+00`), ISO dates, hex bytea, exact floats.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { readPostgresFilter } from '../../engine/bridge/filter-check.ts';
import { type RowBatch, wholeRowBatches } from '../../engine/rows/copy-text.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';
import type { ForeignKeyModel } from '../../engine/schema/model.ts';
import type { ReadRowsRequest, RowFormat, RowSession, WriteRowsRequest } from '../dialect.ts';
import type { TargetError } from '../errors.ts';
import { counted, qualifiedTable, withContext } from '../rows.ts';
import { recentLines, rowKeyAt } from './postgres.row-key.ts';
import { postgresSqlWriter } from './postgres.sql-writer.ts';

const q = postgresSqlWriter.quoteIdent;

const SESSION_SETUP = [
  // Bulk work is bounded by the run, not by the per-statement limit of interactive work.
  'SET statement_timeout = 0',
  "SET TimeZone = 'UTC'",
  "SET DateStyle = 'ISO, YMD'",
  "SET IntervalStyle = 'postgres'",
  "SET bytea_output = 'hex'",
  // Shortest text that reads back to the same float (the default since 12; older servers need it).
  'SET extra_float_digits = 3',
  "SET client_encoding = 'UTF8'",
];

export async function openPostgresRowSession(
  connect: () => Promise<pg.PoolClient>,
  fail: (error: unknown) => TargetError,
): Promise<RowSession> {
  const client = await connect();
  const failWithContext = (error: unknown) =>
    withContext(fail(error), (error as { where?: string } | null)?.where);
  try {
    for (const sql of SESSION_SETUP) await client.query(sql);
  } catch (error) {
    client.release(true);
    throw fail(error);
  }
  let closed = false;
  return {
    async query(sql, params = []) {
      try {
        const result = await client.query(sql, params);
        return { rows: (result.rows ?? []) as Record<string, unknown>[], affectedRows: result.rowCount ?? 0 };
      } catch (error) {
        throw failWithContext(error);
      }
    },
    async *readRows(request: ReadRowsRequest): AsyncGenerator<RowBatch> {
      const table = qualifiedTable(q, request);
      const columns = request.columns.map(q).join(', ');
      const sql =
        request.where === undefined
          ? `COPY ${table} (${columns}) TO STDOUT`
          : `COPY (SELECT ${columns} FROM ${table} WHERE ${request.where}) TO STDOUT`;
      const stream = client.query(copyTo(sql));
      try {
        yield* wholeRowBatches(stream);
      } catch (error) {
        throw failWithContext(error);
      } finally {
        // A consumer that stopped early leaves the COPY open: the session cannot be used again.
        if (!stream.readableEnded) stream.destroy();
      }
    },
    async writeRows(request: WriteRowsRequest, batches: AsyncIterable<RowBatch>) {
      const table = qualifiedTable(q, request);
      // COPY writes identity columns as given, ALWAYS ones included: no OVERRIDING clause exists or is needed.
      const sql =
        `COPY ${table} (${request.columns.map(q).join(', ')}) FROM STDIN` +
        (request.emptiedInTransaction ? ' WITH (FREEZE)' : '');
      const tally: { rows: number; upstream?: unknown } = { rows: 0 };
      const recent = recentLines();
      try {
        // One batch read ahead, not Readable.from's default of 16 (megabytes of batches waiting).
        await pipeline(
          Readable.from(counted(recent.tap(batches), tally), { highWaterMark: 1 }),
          client.query(copyFrom(sql)),
        );
      } catch (error) {
        if (tally.upstream !== undefined) throw tally.upstream;
        // The line PostgreSQL names, read again from what was sent, says which row it is.
        const where = (error as { where?: string } | null)?.where;
        throw withContext(
          fail(error),
          where && `${where}${rowKeyAt(where, recent, request.columns, request.keyColumns)}`,
        );
      }
      if (tally.upstream !== undefined) throw tally.upstream;
      return { rows: tally.rows, method: 'copy' as const };
    },
    async close() {
      if (closed) return;
      closed = true;
      // Never back to the pool: session settings and any COPY state end with the connection.
      client.release(true);
    },
  };
}

/** PostgreSQL type names (format_type) → the pipeline's kinds. */
export function postgresValueKind(type: string): ValueKind {
  if (type.endsWith('[]')) return 'array';
  const base = type.replace(/\(.*\)/, '').trim();
  switch (base) {
    case 'smallint':
    case 'integer':
    case 'bigint':
      return 'integer';
    case 'numeric':
      return 'decimal';
    case 'real':
    case 'double precision':
      return 'float';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'time without time zone':
    case 'time with time zone':
      return 'time';
    case 'timestamp without time zone':
      return 'timestamp';
    case 'timestamp with time zone':
      return 'timestamptz';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'uuid':
      return 'uuid';
    case 'bytea':
      return 'binary';
    case 'text':
    case 'character varying':
    case 'character':
    case 'citext':
      return 'text';
    default:
      // Enums and other user types print as text and read back from it.
      return 'other';
  }
}

/**
 * A MySQL column's type for PostgreSQL (create_tables). The mapping, documented in the README:
 * tinyint(1) → boolean; tinyint/smallint/year → smallint; mediumint/int → integer; unsigned ints
 * one size up; bigint unsigned → numeric(20,0); decimal(p,s) → numeric(p,s); float → real;
 * double → double precision; varchar(n)/char(n) kept; text types and enum/set → text; json → jsonb;
 * datetime → timestamp; timestamp → timestamptz; time → time; blobs and binary → bytea; bit(1) →
 * boolean, bit(n) → bigint.
 */
function postgresColumnType(kind: ValueKind, type: string): string {
  const t = type.toLowerCase();
  const unsigned = t.includes('unsigned');
  const base = t
    .replace(/\s*unsigned.*/, '')
    .replace(/\(.*\)/, '')
    .trim();
  const args = /\(([^)]*)\)/.exec(t)?.[1];
  switch (base) {
    case 'tinyint':
      return t.startsWith('tinyint(1)') ? 'boolean' : 'smallint';
    case 'smallint':
      return unsigned ? 'integer' : 'smallint';
    case 'year':
      return 'smallint';
    case 'mediumint':
      return 'integer';
    case 'int':
    case 'integer':
      return unsigned ? 'bigint' : 'integer';
    case 'bigint':
      return unsigned ? 'numeric(20,0)' : 'bigint';
    case 'decimal':
    case 'numeric':
      return args ? `numeric(${args})` : 'numeric';
    case 'float':
      return 'real';
    case 'double':
    case 'real':
      return 'double precision';
    case 'varchar':
      return args ? `character varying(${args})` : 'text';
    case 'char':
      return args ? `character(${args})` : 'text';
    case 'json':
      return 'jsonb';
    case 'datetime':
      return args ? `timestamp(${args}) without time zone` : 'timestamp without time zone';
    case 'timestamp':
      return args ? `timestamp(${args}) with time zone` : 'timestamp with time zone';
    case 'time':
      return 'time without time zone';
    case 'date':
      return 'date';
    case 'bit':
      return args === '1' ? 'boolean' : 'bigint';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'bytea';
    default:
      return kind === 'json' ? 'jsonb' : 'text';
  }
}

const fkClause = (fk: ForeignKeyModel, referenced: string) =>
  `FOREIGN KEY (${fk.columns.map(q).join(', ')}) REFERENCES ${referenced} (${fk.referenced_columns.map(q).join(', ')})` +
  (fk.match_full ? ' MATCH FULL' : '') +
  ` ON UPDATE ${fk.on_update.toUpperCase()} ON DELETE ${fk.on_delete.toUpperCase()}` +
  (fk.deferrable ? ` DEFERRABLE INITIALLY ${fk.initially_deferred ? 'DEFERRED' : 'IMMEDIATE'}` : '');

export const postgresRowFormat: RowFormat = {
  valueKind: postgresValueKind,
  // PostgreSQL reads every kind's neutral text; a value it cannot hold fails the COPY, naming the line.
  refusal: () => null,
  columnType: postgresColumnType,
  // Identity for generated keys; every key part quoted (the model keeps names as written, case included).
  createdTables: { generatedKey: 'identity', keyedTextType: null, quotedKeyParts: true },
  readFilter: readPostgresFilter,
  // pg_control_system() is executable by every role: the cluster's id, then the database.
  identitySql:
    "SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database() AS identity",
  // libpg-query reads standard-conforming strings, and the deparser writes strings with a backslash
  // as E'…', which reads the same whatever standard_conforming_strings says.
  filterModeSql: null,
  foreignKeyLoad: {
    kind: 'readd',
    drop: (table, name) => `ALTER TABLE ${table} DROP CONSTRAINT ${q(name)}`,
    // The key as it was (MATCH FULL, deferrability, its comment): putting it back must not drift it.
    addNotValid: (table, fk, referenced) => [
      `ALTER TABLE ${table} ADD CONSTRAINT ${q(fk.name)} ${fkClause(fk, referenced)} NOT VALID`,
      ...(fk.comment
        ? [`COMMENT ON CONSTRAINT ${q(fk.name)} ON ${table} IS ${pg.escapeLiteral(fk.comment)}`]
        : []),
    ],
    validate: (table, name) => `ALTER TABLE ${table} VALIDATE CONSTRAINT ${q(name)}`,
  },
  // Serial and identity columns alike: the sequence the column owns (serial, identity), else the one its default calls: schemas
  // written by hand (Sakila) use `DEFAULT nextval('x_seq')` without OWNED BY.
  syncSequence: (table, column) => ({
    sql:
      `SELECT setval(s.seq::regclass, s.top) FROM (SELECT COALESCE(pg_get_serial_sequence($1, $2), ` +
      `(SELECT substring(pg_get_expr(d.adbin, d.adrelid) FROM 'nextval\\(''([^'']+)''') FROM pg_attrdef d ` +
      'JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum ' +
      'WHERE d.adrelid = $1::regclass AND a.attname = $2)) AS seq, ' +
      `(SELECT max(${q(column)}) FROM ${qualifiedTable(q, table)}) AS top) s ` +
      'WHERE s.seq IS NOT NULL AND s.top IS NOT NULL',
    params: [qualifiedTable(q, table), column],
  }),
  stageSql: (stage, table) => [`CREATE TEMP TABLE ${stage} (LIKE ${table}) ON COMMIT DROP`],
  upsertSql: (table, stage, columns, key) => {
    const list = columns.map(q).join(', ');
    const others = columns.filter((c) => !key.includes(c));
    const action =
      others.length === 0
        ? 'DO NOTHING'
        : `DO UPDATE SET ${others.map((c) => `${q(c)} = EXCLUDED.${q(c)}`).join(', ')}`;
    return (
      `INSERT INTO ${table} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM ${stage} ` +
      `ON CONFLICT (${key.map(q).join(', ')}) ${action}`
    );
  },
  // 32 bits of PostgreSQL's own stable text hash of the key, seeded (md5 per row took ten times as
  // long as random(); this twice as long).
  sampleSql: (columns, seed) =>
    `(hashtextextended(concat_ws('|', ${columns.join(', ')}), ${BigInt(`0x${seed.slice(0, 15)}`)}) & 4294967295) / 4294967296.0`,
  subsetKeyTables: { kind: 'temporary' },
  tableReload: {
    // Each is where a reload would not be what an UPDATE of the rows is: user triggers and rules
    // (INSERT ones would fire, or rewrite, where UPDATE ones did), row-level security (INSERT
    // policies instead of UPDATE ones), publications (subscribers would get a TRUNCATE), partitioned
    // and inheritance tables (TRUNCATE reaches other tables), a missing privilege, and foreign keys
    // referencing the table (TRUNCATE refuses them; a caller that drops one first discounts it).
    blockersSql: `
      WITH t AS (SELECT c.oid, c.relkind, c.relispartition, c.relrowsecurity FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2)
      SELECT 'not a plain table' AS reason, NULL AS foreign_key, NULL AS referencing FROM t
        WHERE t.relkind <> 'r' OR t.relispartition
      UNION ALL SELECT 'inheritance', NULL, NULL FROM t
        WHERE EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = t.oid OR i.inhrelid = t.oid)
      UNION ALL SELECT 'trigger ' || g.tgname, NULL, NULL FROM t JOIN pg_trigger g ON g.tgrelid = t.oid
        WHERE NOT g.tgisinternal
      UNION ALL SELECT 'rule ' || r.rulename, NULL, NULL FROM t JOIN pg_rewrite r ON r.ev_class = t.oid
      UNION ALL SELECT 'row-level security', NULL, NULL FROM t WHERE t.relrowsecurity
      UNION ALL SELECT 'publication ' || p.pubname, NULL, NULL FROM t, pg_publication p
        WHERE p.puballtables OR EXISTS (SELECT 1 FROM pg_publication_rel pr WHERE pr.prpubid = p.oid AND pr.prrelid = t.oid)
      UNION ALL SELECT 'privilege', NULL, NULL FROM t
        WHERE NOT (has_table_privilege(t.oid, 'TRUNCATE') AND has_table_privilege(t.oid, 'INSERT'))
      UNION ALL SELECT 'referenced by ' || k.conname, k.conname, rn.nspname || '.' || rc.relname
        FROM t JOIN pg_constraint k ON k.confrelid = t.oid AND k.contype = 'f'
        JOIN pg_class rc ON rc.oid = k.conrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace`,
    truncateSql: (table) => `TRUNCATE ONLY ${table}`,
    insertSql: (table, stage, columns) => {
      const list = columns.map(q).join(', ');
      return `INSERT INTO ${table} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM ${stage}`;
    },
  },
};
