// The PostgreSQL dialect over `pg`: a small bounded pool per handle, TLS per ssl_mode, a server-side
// statement_timeout, and introspection through the catalogs in one read-only snapshot.

import pg from 'pg';
import { applyFilter, compileFilter, DEFAULT_OBJECT_FILTER } from '../../engine/schema/filter.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { testByOpening } from '../connection-test.ts';
import type {
  IntrospectOptions,
  MigrationDialect,
  TargetConfig,
  TargetHandle,
  TestResult,
} from '../dialect.ts';
import { applyPostgres, postgresTableStats } from './postgres.apply.ts';
import {
  type CatalogRows,
  catalogFeatures,
  columnsSql,
  constraintsSql,
  ENUMS_SQL,
  indexesOf,
  SEQUENCE_USES_SQL,
  SEQUENCES_SQL,
  TABLES_RELATIONS,
  TABLES_SQL,
} from './postgres.catalog.ts';
import {
  COLLATIONS_SQL,
  DEPENDENCIES_SQL,
  EXTENSIONS_SQL,
  type ObjectRows,
  POLICIES_SQL,
  ROUTINE_USES_SQL,
  ROUTINES_SQL,
  ROW_SECURITY_SQL,
  SCHEMAS_SQL,
  TRIGGERS_SQL,
  TYPES_SQL,
  VIEW_RELATIONS,
  VIEWS_SQL,
} from './postgres.catalog-objects.ts';
import { UNMANAGED_SQL } from './postgres.catalog-unmanaged.ts';
import { postgresDdl } from './postgres.ddl.ts';
import { classifyPgError } from './postgres.errors.ts';
import { buildPostgresModel } from './postgres.model.ts';
import { openPostgresRowSession, postgresRowFormat } from './postgres.rows.ts';
import { endPostgresSession } from './postgres.sessions.ts';
import { parsePostgresSql } from './postgres.sql.ts';
import { postgresSqlWriter } from './postgres.sql-writer.ts';

function sslOptions(config: TargetConfig): pg.PoolConfig['ssl'] {
  // `pg` sends SNI and checks the certificate against `host` when it is a name. When `host` is the
  // address a name was vetted to, the name comes as `server_name`: Node's tls uses `servername` for
  // both (pg leaves a given one alone when `host` is an IP; an IP is never valid SNI).
  const name = config.server_name === undefined ? {} : { servername: config.server_name };
  switch (config.ssl_mode) {
    case 'disable':
      return false;
    case 'require':
      // Encrypted, certificate not checked: libpq's sslmode=require. SNI still goes out (poolers route by it).
      return { rejectUnauthorized: false, ...name };
    case 'verify-full':
      // Node checks the chain and the host name.
      return config.ca_cert
        ? { rejectUnauthorized: true, ca: config.ca_cert, ...name }
        : { rejectUnauthorized: true, ...name };
  }
}

async function open(config: TargetConfig): Promise<TargetHandle> {
  const tls = config.ssl_mode !== 'disable';
  const pool = new pg.Pool({
    host: config.host,
    port: config.port,
    database: config.database,
    user: config.username,
    password: config.password,
    ssl: sslOptions(config),
    max: config.pool_size ?? 2,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: config.connect_timeout_ms,
    statement_timeout: config.statement_timeout_ms,
    application_name: 'dbops',
    keepAlive: true,
  });
  // An idle client whose server went away: the pool drops it; the next checkout reconnects.
  pool.on('error', () => {});
  // A checked-out client whose server drops it mid-query emits 'error' as well as failing the query;
  // unheard, that event would end the process. The query's own failure (connection_lost) is the report.
  pool.on('connect', (client) => client.on('error', () => {}));

  const connect = async (): Promise<pg.PoolClient> => {
    const started = performance.now();
    try {
      return await pool.connect();
    } catch (error) {
      throw classifyPgError(error, {
        phase: 'connect',
        tls,
        elapsedMs: performance.now() - started,
        connectTimeoutMs: config.connect_timeout_ms,
        password: config.password,
      });
    }
  };
  const query = async <T>(client: pg.PoolClient, sql: string): Promise<T[]> => {
    try {
      return (await client.query(sql)).rows as T[];
    } catch (error) {
      throw classifyPgError(error, { phase: 'query', tls, password: config.password });
    }
  };

  let serverVersion: string;
  try {
    const client = await connect();
    try {
      const [row] = await query<{ version: string }>(
        client,
        "select current_setting('server_version') as version",
      );
      serverVersion = row!.version;
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }

  return {
    dialect: 'postgresql',
    sql: postgresDialect,
    flavor: 'postgresql',
    serverVersion,
    async introspect(options: IntrospectOptions = {}): Promise<SchemaModel> {
      const client = await connect();
      let failed = false;
      try {
        const features = catalogFeatures(serverVersion);
        // The catalog queries' estimated costs (correlated subqueries per key part) can pass the
        // JIT threshold, and compiling them takes longer than running them: no JIT here (11+).
        const jit = features.jit ? '; set local jit = off' : '';
        await query(
          client,
          `begin isolation level repeatable read read only; set local search_path = ''${jit}`,
        );
        const rows: CatalogRows = {
          serverVersion,
          tables: await query(client, TABLES_SQL),
          columns: await query(client, columnsSql(features)),
          constraints: await query(client, constraintsSql(features)),
          indexes: await query(client, indexesOf(TABLES_RELATIONS, features)),
          enums: await query(client, ENUMS_SQL),
          sequences: await query(client, SEQUENCES_SQL),
          sequenceUses: await query(client, SEQUENCE_USES_SQL),
          unmanaged: await query(client, UNMANAGED_SQL),
        };
        const objects: ObjectRows = {
          schemas: await query(client, SCHEMAS_SQL),
          views: await query(client, VIEWS_SQL),
          viewIndexes: await query(client, indexesOf(VIEW_RELATIONS, features)),
          routines: await query(client, ROUTINES_SQL),
          triggers: await query(client, TRIGGERS_SQL),
          extensions: await query(client, EXTENSIONS_SQL),
          types: await query(client, TYPES_SQL),
          policies: await query(client, POLICIES_SQL),
          rowSecurity: await query(client, ROW_SECURITY_SQL),
          collations: await query(client, COLLATIONS_SQL),
          dependencies: await query(client, DEPENDENCIES_SQL),
          routineUses: await query(client, ROUTINE_USES_SQL),
        };
        await query(client, 'commit');
        return applyFilter(
          buildPostgresModel(rows, objects),
          compileFilter(options.filter ?? DEFAULT_OBJECT_FILTER),
        );
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        // A client that failed mid-transaction is not handed back to the pool.
        client.release(failed);
      }
    },
    async tableStats(tables) {
      const client = await connect();
      let failed = false;
      try {
        return await postgresTableStats(client, tables);
      } catch (error) {
        failed = true;
        throw classifyPgError(error, { phase: 'query', tls, password: config.password });
      } finally {
        client.release(failed);
      }
    },
    async apply(statements, options = {}) {
      const client = await connect();
      return applyPostgres(client, statements, options, (error) =>
        classifyPgError(error, { phase: 'query', tls, password: config.password }),
      );
    },
    async endSession(session, timeoutMs) {
      const client = await connect();
      let failed = false;
      try {
        return await endPostgresSession(client, session, timeoutMs);
      } catch (error) {
        failed = true;
        throw classifyPgError(error, { phase: 'query', tls, password: config.password });
      } finally {
        client.release(failed);
      }
    },
    async transaction(work, options) {
      const client = await connect();
      const run = async (sql: string, params: unknown[] = []) => {
        try {
          const result = await client.query(sql, params);
          return {
            rows: (result.rows ?? []) as Record<string, unknown>[],
            affectedRows: result.rowCount ?? 0,
          };
        } catch (error) {
          throw classifyPgError(error, { phase: 'query', tls, password: config.password });
        }
      };
      let broken = false;
      try {
        await run(options.readOnly ? 'begin transaction read only' : 'begin');
        if (options.statementTimeoutMs !== undefined)
          await run(`set local statement_timeout = ${Math.max(1, Math.floor(options.statementTimeoutMs))}`);
        const result = await work({ query: run });
        await run(options.commit ? 'commit' : 'rollback');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    rowSession: () =>
      openPostgresRowSession(connect, (error) =>
        classifyPgError(error, { phase: 'query', tls, password: config.password }),
      ),
    async close() {
      await pool.end();
    },
  };
}

function test(config: TargetConfig): Promise<TestResult> {
  return testByOpening(config, open, (error) =>
    classifyPgError(error, { phase: 'connect', tls: false, password: config.password }),
  );
}

export const postgresDialect: MigrationDialect = {
  ...postgresSqlWriter,
  name: 'postgresql',
  rows: postgresRowFormat,
  open,
  test,
  renderDdl: postgresDdl.renderDdl,
  parseSql: parsePostgresSql,
};
