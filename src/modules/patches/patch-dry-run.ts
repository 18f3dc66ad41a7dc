// The dry run of a patch (API §9): every statement runs inside one transaction that is always
// rolled back, under a statement timeout, so nothing changes. For each statement it reports the
// rows affected and up to SAMPLE_ROWS rows before and after: UPDATE and DELETE sample the rows
// their WHERE selects before running; after an UPDATE the same rows are read again by the
// statement's rollback key (by the WHERE again when it has none); an INSERT's rows are sampled
// after it through RETURNING when it is reversible (PostgreSQL without rewrite rules, MariaDB).
import type { SqlWriter, TargetHandle, TargetTransaction } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { dialects } from '../../dialects/index.ts';
import type { StoredPatchStatement } from '../../store/tables.ts';

export const SAMPLE_ROWS = 20;

/** A statement of the patch failed on the target (bad column, constraint, timeout): the SQL's fault. */
export class PatchStatementFailed extends Error {
  readonly index: number;
  constructor(index: number, message: string) {
    super(message);
    this.index = index;
  }
}

export interface DryRunStatement {
  index: number;
  affected_rows: number;
  sample_before: Record<string, unknown>[];
  sample_after: Record<string, unknown>[];
}

export interface DryRunResult {
  statements: DryRunStatement[];
  total_affected_rows: number;
}

/** A tuple of placeholders for `count` values starting after `offset` values. */
function placeholders(sql: SqlWriter, count: number, offset: number): string {
  return `(${Array.from({ length: count }, (_, i) => sql.placeholder(offset + i + 1)).join(', ')})`;
}

function selectWhere(statement: StoredPatchStatement): string {
  return `SELECT * FROM ${statement.target_sql} WHERE ${statement.where_sql ?? '1 = 1'}`;
}

async function rowsByKey(
  tx: TargetTransaction,
  sql: SqlWriter,
  statement: StoredPatchStatement,
  key: string[],
  rows: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const columns = `(${key.map((c) => sql.quoteIdent(c)).join(', ')})`;
  const tuples = rows.map((_, i) => placeholders(sql, key.length, i * key.length)).join(', ');
  const params = rows.flatMap((row) => key.map((c) => row[c]));
  return (await tx.query(`SELECT * FROM ${statement.table_sql} WHERE ${columns} IN (${tuples})`, params))
    .rows;
}

/** Runs the statements in a rolled-back transaction on `handle` and reports what they would do. */
export async function dryRunPatch(
  handle: TargetHandle,
  statements: StoredPatchStatement[],
  options: { statementTimeoutMs: number },
): Promise<DryRunResult> {
  const sqlWriter = dialects[handle.dialect];
  const results = await handle.transaction(
    async (tx) => {
      const out: DryRunStatement[] = [];
      for (const statement of statements) {
        const limit = ` LIMIT ${SAMPLE_ROWS}`;
        const before =
          statement.kind === 'insert' ? [] : (await tx.query(selectWhere(statement) + limit)).rows;
        // The newline ends a trailing `--` comment.
        // A reversible INSERT is one whose rows RETURNING can give (no rewrite rule, not MySQL 8).
        const sampled = statement.kind === 'insert' && statement.key != null;
        const text = sampled ? `${statement.sql}\nRETURNING *` : statement.sql;
        const executed = await tx.query(text).catch((error) => {
          if (error instanceof TargetError && (error.cause === 'other' || error.cause === 'timeout'))
            throw new PatchStatementFailed(statement.index, error.message);
          throw error;
        });
        let after: Record<string, unknown>[] = [];
        if (statement.kind === 'insert') after = executed.rows.slice(0, SAMPLE_ROWS);
        else if (statement.kind === 'update') {
          const key = statement.key;
          after = key
            ? await rowsByKey(tx, sqlWriter, statement, key, before)
            : (await tx.query(selectWhere(statement) + limit)).rows;
        }
        out.push({
          index: statement.index,
          affected_rows: executed.affectedRows,
          sample_before: before,
          sample_after: after,
        });
      }
      return out;
    },
    { commit: false, statementTimeoutMs: options.statementTimeoutMs },
  );
  return {
    statements: results,
    total_affected_rows: results.reduce((sum, s) => sum + s.affected_rows, 0),
  };
}
