// Whether an in-place run (anonymize-run.ts) may rewrite a table by reloading it instead of by an
// UPDATE of every row, and the statements of a reload. A reload, where the dialect has one
// (dialects/dialect.ts TableReload), copies the table's rows server-side into a temporary table
// of the reading session (so no lock of the run's transaction stands in its way), then, in the run's
// transaction that holds the write lock, empties the table and streams the copy back through the
// transforms into it. The table stays the same object (indexes, constraints, grants, comments,
// policies, owned sequences, views on it), and its rows are written once, as a load, rather than
// as an UPDATE that joins a stage and writes a new version of every row and index entry: measured
// on 1M rows, the UPDATE … FROM the stage was about 1.4× a bare md5 UPDATE of the same columns,
// the copy and the load together about half of it. The UPDATE stays for every table where a reload
// could be told apart from it (a user trigger, a foreign key from outside the group, …: the dialect's
// blockers), and for engines where emptying a table commits.
// A reload holds TRUNCATE's lock from the emptying to the commit, so other sessions' reads of the
// table wait meanwhile (an UPDATE locks out writes only), and, like TRUNCATE, is not MVCC-safe: a
// transaction whose snapshot predates the run's commit and reads the table only afterwards sees it
// empty.
import type { MigrationDialect, RowSession, TableReload } from '../../dialects/dialect.ts';
import type { TableModel } from '../../engine/schema/model.ts';

/** `table.schema.table NUL key name`: how the foreign keys a group drops are told apart. */
export const droppedKeyName = (table: string, name: string) => `${table}\u0000${name}`;

/**
 * Why `table` cannot be reloaded (empty when it can), once its write lock is held (nothing can add a
 * trigger or a foreign key to it meanwhile). Foreign keys in `dropped` (droppedKeyName) are gone by
 * the time the table is emptied, so they do not count.
 */
export async function reloadBlockers(
  session: RowSession,
  reload: TableReload,
  table: TableModel,
  dropped: ReadonlySet<string>,
): Promise<string[]> {
  const { rows } = await session.query(reload.blockersSql, [table.schema ?? '', table.name]);
  return (rows as { reason: string; foreign_key: string | null; referencing: string | null }[])
    .filter((r) => r.foreign_key === null || !dropped.has(droppedKeyName(r.referencing ?? '', r.foreign_key)))
    .map((r) => r.reason);
}

/** The reading session's copy of the table's `columns`: a temporary table, made by the server alone. */
export function copySql(dialect: MigrationDialect, stage: string, table: string, columns: string[]): string {
  const q = (n: string) => dialect.quoteIdent(n);
  return `CREATE TEMPORARY TABLE ${q(stage)} AS SELECT ${columns.map(q).join(', ')} FROM ${table}`;
}
