// The MySQL 8 / MariaDB 10.6+ dialect over `mysql2`: a small bounded pool per handle, TLS per
// ssl_mode, a server-side statement limit, and introspection through information_schema. The
// flavour comes from the version string (MariaDB says so in it); it decides the statement-limit
// variable and how catalog output is read.
import { createConnection, isIP } from 'node:net';
import mysql from 'mysql2/promise';
import { applyFilter, compileFilter, DEFAULT_OBJECT_FILTER } from '../../engine/schema/filter.ts';
import type { Flavor, SchemaModel } from '../../engine/schema/model.ts';
import { testByOpening } from '../connection-test.ts';
import type {
  IntrospectOptions,
  MigrationDialect,
  TargetConfig,
  TargetHandle,
  TestResult,
} from '../dialect.ts';
import { applyMysql, mysqlTableStats } from './mysql.apply.ts';
import {
  type CatalogRows,
  COLUMNS_SQL,
  checksSql,
  FOREIGN_KEYS_SQL,
  PARTITIONS_SQL,
  statisticsSql,
  TABLES_SQL,
  UNMANAGED_SQL,
} from './mysql.catalog.ts';
import {
  type MysqlObjectRows,
  ROUTINES_SQL,
  type RoutineRow,
  TRIGGERS_SQL,
  viewsSql,
} from './mysql.catalog-objects.ts';
import { mysqlDdl } from './mysql.ddl.ts';
import { classifyMysqlError } from './mysql.errors.ts';
import { buildMysqlModel } from './mysql.model.ts';
import { mysqlRowFormat, openMysqlRowSession } from './mysql.rows.ts';
import { endMysqlSession } from './mysql.sessions.ts';
import { parseMysqlSql } from './mysql.sql.ts';
import { mysqlSqlWriter } from './mysql.sql-writer.ts';

export function flavorOf(version: string): Flavor {
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}

function sslOptions(config: TargetConfig): mysql.PoolOptions['ssl'] {
  switch (config.ssl_mode) {
    case 'disable':
      return undefined;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-full': {
      // Without verifyIdentity mysql2 accepts any certificate the CA signed, whatever name it carries.
      // With it and an IP address as the host, mysql2 checks the certificate against "localhost"
      // (it gives tls no name); so for a host given as an IP address only the chain is checked.
      const verifyIdentity = isIP(config.server_name ?? config.host) === 0;
      return config.ca_cert
        ? { rejectUnauthorized: true, verifyIdentity, ca: config.ca_cert }
        : { rejectUnauthorized: true, verifyIdentity };
    }
  }
}

/** MariaDB limits every statement (seconds); MySQL 8 only SELECTs (milliseconds). */
function statementLimit(flavor: Flavor, ms: number): [string, number] {
  return flavor === 'mariadb'
    ? ['set session max_statement_time = ?', ms / 1000]
    : ['set session max_execution_time = ?', Math.round(ms)];
}

async function open(config: TargetConfig): Promise<TargetHandle> {
  const pool = mysql.createPool({
    // mysql2 takes the TLS name (SNI, certificate check) from `host` and nothing else, so `host` is
    // the name the user gave and the socket is opened here, to the address it was vetted to.
    host: config.server_name ?? config.host,
    port: config.port,
    stream: () => createConnection({ host: config.host, port: config.port, noDelay: true, keepAlive: true }),
    database: config.database,
    user: config.username,
    password: config.password,
    ssl: sslOptions(config),
    connectTimeout: config.connect_timeout_ms,
    connectionLimit: config.pool_size ?? 2,
    maxIdle: 1,
    idleTimeout: 30_000,
    // Catalog values stay as the server printed them.
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  const fail = (error: unknown) => classifyMysqlError(error, config.password);

  let flavor: Flavor | undefined;
  let serverVersion = '';
  const prepared = new WeakSet<object>();
  const connect = async (): Promise<mysql.PoolConnection> => {
    let connection: mysql.PoolConnection;
    try {
      connection = await pool.getConnection();
    } catch (error) {
      throw fail(error);
    }
    try {
      // Each new physical connection gets the statement limit once, before its first use.
      if (!prepared.has(connection.connection)) {
        if (flavor === undefined) {
          const [rows] = await connection.query('select version() as version');
          serverVersion = String((rows as { version: string }[])[0]!.version);
          flavor = flavorOf(serverVersion);
        }
        const [sql, value] = statementLimit(flavor, config.statement_timeout_ms);
        await connection.query(sql, [value]);
        prepared.add(connection.connection);
      }
      return connection;
    } catch (error) {
      connection.destroy();
      throw fail(error);
    }
  };
  const query = async <T>(connection: mysql.PoolConnection, sql: string): Promise<T[]> => {
    try {
      const [rows] = await connection.query(sql);
      return rows as T[];
    } catch (error) {
      throw fail(error);
    }
  };

  /** Runs `work` on a connection of the pool: released after, or destroyed when `work` failed. */
  const borrowed = async <T>(work: (connection: mysql.PoolConnection) => Promise<T>): Promise<T> => {
    const connection = await connect();
    let failed = false;
    try {
      return await work(connection);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      if (failed) connection.destroy();
      else connection.release();
    }
  };

  try {
    (await connect()).release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const knownFlavor = flavor!;

  return {
    dialect: 'mysql',
    sql: mysqlDialect,
    flavor: knownFlavor,
    serverVersion,
    introspect(options: IntrospectOptions = {}): Promise<SchemaModel> {
      return borrowed(async (connection) => {
        const rows: CatalogRows = {
          flavor: knownFlavor,
          serverVersion,
          tables: await query(connection, TABLES_SQL),
          columns: await query(connection, COLUMNS_SQL),
          statistics: await query(connection, statisticsSql(knownFlavor)),
          foreignKeys: await query(connection, FOREIGN_KEYS_SQL),
          checks: await query(connection, checksSql(knownFlavor)),
          unmanaged: await query(connection, UNMANAGED_SQL),
          partitions: await query(connection, PARTITIONS_SQL),
        };
        const routines = await query<RoutineRow>(connection, ROUTINES_SQL);
        const objects: MysqlObjectRows = {
          views: await query(connection, viewsSql(knownFlavor)),
          triggers: await query(connection, TRIGGERS_SQL),
          routines: [],
        };
        for (const trigger of objects.triggers) {
          const [row] = await query<Record<string, string | null>>(
            connection,
            `SHOW CREATE TRIGGER ${mysql.escapeId(trigger.name)}`,
          );
          const create = row?.['SQL Original Statement'];
          if (create) trigger.create = create;
        }
        for (const routine of routines) {
          const kind = routine.type === 'PROCEDURE' ? 'PROCEDURE' : 'FUNCTION';
          const [row] = await query<Record<string, string | null>>(
            connection,
            `SHOW CREATE ${kind} ${mysql.escapeId(routine.name)}`,
          );
          const create = row?.[kind === 'PROCEDURE' ? 'Create Procedure' : 'Create Function'];
          if (create) objects.routines.push({ ...routine, create });
        }
        return applyFilter(
          buildMysqlModel(rows, objects),
          compileFilter(options.filter ?? DEFAULT_OBJECT_FILTER),
        );
      });
    },
    tableStats(tables) {
      return borrowed((connection) =>
        mysqlTableStats(connection, knownFlavor, tables).catch((error: unknown) => {
          throw fail(error);
        }),
      );
    },
    async apply(statements, options = {}) {
      return applyMysql(await connect(), knownFlavor, statements, options, fail);
    },
    endSession(session, timeoutMs) {
      return borrowed((connection) =>
        endMysqlSession(connection, session, timeoutMs).catch((error: unknown) => {
          throw fail(error);
        }),
      );
    },
    async transaction(work, options) {
      const connection = await connect();
      const run = async (sql: string, params: unknown[] = []) => {
        try {
          const [result] = await connection.query(sql, params);
          // Rows answered (a SELECT, MariaDB's RETURNING) count as PostgreSQL's rowCount does.
          return Array.isArray(result)
            ? { rows: result as Record<string, unknown>[], affectedRows: result.length }
            : { rows: [], affectedRows: (result as { affectedRows?: number }).affectedRows ?? 0 };
        } catch (error) {
          throw fail(error);
        }
      };
      const limited = options.statementTimeoutMs !== undefined;
      let broken = false;
      try {
        if (limited) {
          const [sql, value] = statementLimit(knownFlavor, options.statementTimeoutMs!);
          await run(sql, [value]);
        }
        await run(options.readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION');
        const result = await work({ query: run });
        await run(options.commit ? 'COMMIT' : 'ROLLBACK');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        if (limited && !broken) {
          const [sql, value] = statementLimit(knownFlavor, config.statement_timeout_ms);
          await connection.query(sql, [value]).catch(() => {
            broken = true;
          });
        }
        if (broken) connection.destroy();
        else connection.release();
      }
    },
    rowSession: () => openMysqlRowSession(connect, knownFlavor, fail),
    async close() {
      await pool.end();
    },
  };
}

function test(config: TargetConfig): Promise<TestResult> {
  return testByOpening(config, open, (error) => classifyMysqlError(error, config.password));
}

export const mysqlDialect: MigrationDialect = {
  ...mysqlSqlWriter,
  name: 'mysql',
  rows: mysqlRowFormat,
  open,
  test,
  renderDdl: mysqlDdl.renderDdl,
  parseSql: parseMysqlSql,
};
