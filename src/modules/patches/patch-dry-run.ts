// The dry run of a patch (API §9): every statement runs inside one transaction that is always
// rolled back, under a statement timeout, so nothing changes. For each statement it reports the
// rows affected and up to SAMPLE_ROWS rows before and after: UPDATE and DELETE sample the rows
// their WHERE selects before running; after an UPDATE the same rows are read again by primary key
// (by the WHERE again when the table has none); an INSERT's rows are not sampled before, and after
// it only on PostgreSQL (RETURNING is not portable to MySQL 8).
import type { TargetHandle, TargetTransaction } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import type { DialectName, SchemaModel } from '../../engine/schema/model.ts';
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

function tableOf(model: SchemaModel, table: string) {
  const [first, second] = table.split('.');
  const schema = second === undefined ? null : first!;
  const name = second ?? first!;
  const found = model.tables.find(
    (t) =>
      t.name === name && (model.dialect === 'mysql' ? true : (t.schema ?? 'public') === (schema ?? 'public')),
  );
  return found;
}

/** `schema.table` or `table` as the parser named it, to the model's primary key columns. */
export function primaryKeyOf(model: SchemaModel, table: string): string[] | null {
  return tableOf(model, table)?.primary_key?.columns ?? null;
}

/** The table's column names, in order; null for a table the model does not have. */
export function columnsOf(model: SchemaModel, table: string): string[] | null {
  return tableOf(model, table)?.columns.map((c) => c.name) ?? null;
}

function quote(dialect: DialectName, name: string): string {
  return dialect === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
}

/** `($1, $2)` / `(?, ?)` placeholders for `count` values starting after `offset` values. */
function placeholders(dialect: DialectName, count: number, offset: number): string {
  const marks = Array.from({ length: count }, (_, i) => (dialect === 'mysql' ? '?' : `$${offset + i + 1}`));
  return `(${marks.join(', ')})`;
}

function selectWhere(statement: StoredPatchStatement): string {
  return `SELECT * FROM ${statement.target_sql} WHERE ${statement.where_sql ?? '1 = 1'}`;
}

async function rowsByKey(
  tx: TargetTransaction,
  dialect: DialectName,
  statement: StoredPatchStatement,
  key: string[],
  rows: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const columns = `(${key.map((c) => quote(dialect, c)).join(', ')})`;
  const tuples = rows.map((_, i) => placeholders(dialect, key.length, i * key.length)).join(', ');
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
  const dialect = handle.dialect;
  const model = await handle.introspect();
  const results = await handle.transaction(
    async (tx) => {
      const out: DryRunStatement[] = [];
      for (const statement of statements) {
        const limit = ` LIMIT ${SAMPLE_ROWS}`;
        const before =
          statement.kind === 'insert' ? [] : (await tx.query(selectWhere(statement) + limit)).rows;
        let sql = statement.sql;
        if (statement.kind === 'insert' && dialect === 'postgresql' && !/\breturning\b/i.test(sql))
          sql = `${sql} RETURNING *`;
        const executed = await tx.query(sql).catch((error) => {
          if (error instanceof TargetError && (error.cause === 'other' || error.cause === 'timeout'))
            throw new PatchStatementFailed(statement.index, error.message);
          throw error;
        });
        let after: Record<string, unknown>[] = [];
        if (statement.kind === 'insert') after = executed.rows.slice(0, SAMPLE_ROWS);
        else if (statement.kind === 'update') {
          const key = primaryKeyOf(model, statement.table);
          after = key
            ? await rowsByKey(tx, dialect, statement, key, before)
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
