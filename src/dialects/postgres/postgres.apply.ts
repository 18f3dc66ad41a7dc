// Applying migration statements on PostgreSQL, and the table statistics lint needs.
//
// Apply (docs/contract.md §8: one transaction): every transactional statement runs in one transaction with
// `SET LOCAL lock_timeout` and `statement_timeout`, so a failure leaves the target as it was. The
// statements that cannot run in a transaction (ALTER TYPE … ADD VALUE, which a later statement may
// need committed; CREATE/DROP INDEX CONCURRENTLY) run on their own: those placed before the first
// transactional statement run before the transaction, all others after it. The result tells which
// ran outside it. The client is discarded afterwards, so no session setting outlives the apply.
import pg from 'pg';
import type { TargetError } from '../errors.ts';
import type {
  ApplyOptions,
  ApplyResult,
  ExecutableStatement,
  StatementError,
  StatementErrorKind,
  TableRef,
  TableStats,
} from '../execution.ts';

/** SQLSTATE → kind of failure; classes 22 (data) and 23 (integrity) by their first two characters. */
export function statementErrorKind(code: string | null): StatementErrorKind {
  if (code === null) return 'other';
  switch (code) {
    case '42601':
      return 'syntax';
    case '42P01': // undefined_table
    case '42703': // undefined_column
    case '42704': // undefined_object
    case '42883': // undefined_function
    case '3F000': // invalid_schema_name
      return 'undefined_object';
    case '42P07': // duplicate_table
    case '42701': // duplicate_column
    case '42710': // duplicate_object
    case '42723': // duplicate_function
    case '42P06': // duplicate_schema
      return 'duplicate_object';
    case '2BP01': // dependent_objects_still_exist
      return 'dependent_objects';
    case '55P03': // lock_not_available
      return 'lock_timeout';
    case '57014': // query_canceled (statement_timeout)
      return 'statement_timeout';
    case '25001': // active_sql_transaction: CONCURRENTLY inside a transaction
      return 'not_in_transaction';
    case '0A000':
      return 'feature_not_supported';
    case '42501':
      return 'permission_denied';
  }
  if (code.startsWith('23')) return 'constraint_violation';
  if (code.startsWith('22') || code === '42804') return 'invalid_data';
  if (code.startsWith('08') || code.startsWith('57P')) return 'connection_lost';
  return 'other';
}

export function statementError(error: TargetError): StatementError {
  return {
    cause: error.cause,
    kind: statementErrorKind(error.code),
    code: error.code,
    message: error.message,
  };
}

/** Invalid indexes by regclass text (already quoted and qualified by the server where needed). */
async function invalidIndexes(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    'select i.indexrelid::regclass::text as name from pg_index i where not i.indisvalid order by 1',
  );
  return rows.map((row) => row.name);
}

const ms = (value: number) => `${Math.max(0, Math.round(value))}ms`;

export async function applyPostgres(
  client: pg.PoolClient,
  statements: ExecutableStatement[],
  options: ApplyOptions,
  classify: (error: unknown) => TargetError,
): Promise<ApplyResult> {
  const all = statements.map((_, index) => index);
  const firstTransactional = statements.findIndex((statement) => statement.transactional);
  const before = firstTransactional < 0 ? all : all.slice(0, firstTransactional);
  const rest = all.slice(before.length);
  const inside = rest.filter((index) => statements[index]!.transactional);
  const after = rest.filter((index) => !statements[index]!.transactional);
  const result: ApplyResult = {
    applied: [],
    failed: null,
    not_applied: [],
    outside_transaction: [],
    rolled_back: [],
    cancelled: false,
  };
  const cancel = (): ApplyResult => {
    result.cancelled = true;
    result.not_applied = all.filter((i) => !result.applied.includes(i));
    return result;
  };
  const progress = (index: number, done: number) =>
    options.onProgress?.({ done, total: statements.length, statement_index: index });
  // applied, the failed one and not_applied always partition the statements.
  const fail = (index: number, error: unknown): ApplyResult => {
    result.failed = { index, error: statementError(classify(error)) };
    result.not_applied = all.filter((i) => i !== index && !result.applied.includes(i));
    return result;
  };
  const settings = async (local: boolean) => {
    const scope = local ? 'LOCAL ' : '';
    if (options.lockTimeoutMs !== undefined)
      await client.query(`SET ${scope}lock_timeout = '${ms(options.lockTimeoutMs)}'`);
    if (options.statementTimeoutMs !== undefined)
      await client.query(`SET ${scope}statement_timeout = '${ms(options.statementTimeoutMs)}'`);
  };
  /** Statements that run on their own, outside the transaction; false when one failed. */
  const alone = async (order: number[]): Promise<boolean> => {
    for (const index of order) {
      if (options.signal?.aborted) {
        cancel();
        return false;
      }
      try {
        await client.query(statements[index]!.sql);
      } catch (error) {
        fail(index, error);
        // A failed CREATE INDEX CONCURRENTLY leaves an invalid index that would block a retry (docs/contract.md §8).
        const left = (await invalidIndexes(client)).filter((name) => !invalidBefore.includes(name));
        for (const name of left) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
        result.dropped_invalid_indexes = left;
        return false;
      }
      result.applied.push(index);
      result.outside_transaction.push(index);
      progress(index, result.applied.length);
    }
    return true;
  };

  let invalidBefore: string[] = [];
  try {
    await settings(false);
    if (before.length + after.length > 0) invalidBefore = await invalidIndexes(client);
    if (!(await alone(before))) return result;
    if (inside.length > 0) {
      const pending: number[] = [];
      await client.query('BEGIN');
      await settings(true);
      for (const index of inside) {
        if (options.signal?.aborted) {
          await client.query('ROLLBACK');
          result.rolled_back = pending;
          return cancel();
        }
        try {
          await client.query(statements[index]!.sql);
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          result.rolled_back = pending;
          return fail(index, error);
        }
        pending.push(index);
        progress(index, result.applied.length + pending.length);
      }
      try {
        await client.query('COMMIT');
      } catch (error) {
        // A deferred constraint is checked at COMMIT: told on the transaction's last statement.
        result.rolled_back = pending.slice(0, -1);
        return fail(pending[pending.length - 1]!, error);
      }
      result.applied.push(...pending);
    }
    await alone(after);
    return result;
  } catch (error) {
    // Not a statement's failure (the connection went away around them): the caller's to report.
    throw classify(error);
  } finally {
    // Session settings and a possibly broken connection must not go back to the pool.
    client.release(true);
  }
}

// reltuples is -1 until the table is first analysed and can be stale; the
// statistics collector's live-tuple count follows inserts sooner. The larger of the two is taken.
const STATS_SQL = `
  select n.nspname as schema, c.relname as name,
    greatest(c.reltuples, coalesce(st.n_live_tup, 0))::float8 as rows,
    pg_total_relation_size(c.oid)::float8 as bytes
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_stat_user_tables st on st.relid = c.oid
  where c.relkind in ('r', 'p') and n.nspname <> 'information_schema' and n.nspname !~ '^pg_'`;

/**
 * Row estimates and sizes of the given tables (all when `tables` is omitted). Where the estimate is
 * 0 or unknown the table itself is asked whether it has a row (`EXISTS`).
 */
export async function postgresTableStats(client: pg.PoolClient, tables?: TableRef[]): Promise<TableStats[]> {
  const rows =
    tables === undefined
      ? (await client.query(STATS_SQL)).rows
      : (
          await client.query(
            `${STATS_SQL} and (n.nspname, c.relname) in (select * from unnest($1::text[], $2::text[]))`,
            [tables.map((t) => t.schema ?? 'public'), tables.map((t) => t.name)],
          )
        ).rows;
  const stats: TableStats[] = (rows as { schema: string; name: string; rows: number; bytes: number }[]).map(
    (row) => ({
      schema: row.schema,
      name: row.name,
      rows: row.rows > 0 ? Math.round(row.rows) : null,
      bytes: row.bytes,
      populated: row.rows >= 1,
    }),
  );
  const unknown = stats.filter((s) => s.rows === null);
  for (let start = 0; start < unknown.length; start += 200) {
    const batch = unknown.slice(start, start + 200);
    const probes = batch.map(
      (s, i) =>
        `exists (select 1 from ${pg.escapeIdentifier(s.schema!)}.${pg.escapeIdentifier(s.name)}) as p${i}`,
    );
    const [answer] = (await client.query(`select ${probes.join(', ')}`)).rows as Record<string, boolean>[];
    batch.forEach((s, i) => {
      s.populated = answer?.[`p${i}`] === true;
      if (!s.populated) s.rows = 0;
    });
  }
  return stats;
}
