// The images a patch keeps in the target database to be rolled back (docs/contract.md §9), and the SQL that
// writes and reads them. Per statement: UPDATE keeps the rows before it (`before`); DELETE the
// deleted rows (`before`); INSERT the inserted rows (`after`). They are tables of this service's own
// (the dialect's ownTable: PostgreSQL's schema `dbops_backup`, MySQL's `_dbops_bak_` prefix, having
// no second schema to write to), named by run id and filtered from introspection and drift.
//
// A rollback must find the rows changed since the patch. Where the engine has row versions
// (PostgreSQL's `xmin`), every row the patch wrote carries its transaction id until something else
// writes it, so a row whose version differs was changed since: no copy of the updated rows is
// needed, and the patch costs one extra pass (the before-image) over a plain UPDATE. Without them
// (MySQL) an UPDATE also keeps the rows as the whole patch left them (`after`) to compare with.
// DELETE and INSERT images come from the statement's own RETURNING inside WITH where the engine
// takes it (PostgreSQL, one pass); MariaDB's INSERT … RETURNING gives the inserted keys, whose rows
// are then copied. The rollback's SQL: patch-restore-plan.ts. Where rows lie in key order (InnoDB),
// an UPDATE that reads its whole table runs with its images range by range instead
// (patch-key-ranges.ts), so that the three passes read the table once.
import type { SqlWriter, TargetTransaction } from '../../dialects/dialect.ts';
import type { Flavor, TableModel } from '../../engine/schema/model.ts';
import type { Patch, StoredPatchStatement } from '../../store/tables.ts';

/** Inserted MariaDB keys copied into the after-image per statement. */
const KEY_BATCH = 1_000;

export type Image = 'before' | 'after';

/** The quoted image table of statement `index` of run `runId`. */
export function backupTable(sql: SqlWriter, runId: string, index: number, image: Image = 'before'): string {
  const id = `${runId.replaceAll('-', '')}_${index}${image === 'after' ? '_after' : ''}`;
  return sql.ownTable(id);
}

/**
 * Every backup table name an execution may have left: `before` and `after` of every statement,
 * whatever its kind (INSERT and DELETE have no `after` today; IF EXISTS makes the extra names free).
 */
export function backupTablesOf(
  sql: SqlWriter,
  patch: Pick<Patch, 'execute_run_id' | 'statements'>,
  runId: string | null = patch.execute_run_id,
) {
  if (runId === null) return [];
  return patch.statements.flatMap((s) => [
    backupTable(sql, runId, s.index, 'before'),
    backupTable(sql, runId, s.index, 'after'),
  ]);
}

/** The images a statement keeps: no after-image without a key to compare by. */
export function imagesOf(sql: SqlWriter, statement: Pick<StoredPatchStatement, 'kind' | 'key'>): Image[] {
  const keyed = statement.key !== null;
  if (statement.kind === 'delete') return ['before'];
  if (statement.kind === 'insert') return keyed ? ['after'] : [];
  // Without row versions, an updated row is told changed since by comparing it with the after-image.
  return keyed && sql.capabilities.rowVersions === null ? ['before', 'after'] : ['before'];
}

/** Whether the statement's after-image is brought up to date once the whole patch ran (finishAfterImage). */
export function needsFinishedAfterImage(
  sql: SqlWriter,
  statement: Pick<StoredPatchStatement, 'kind' | 'key'>,
): boolean {
  return sql.capabilities.rowVersions === null && statement.kind !== 'delete' && statement.key !== null;
}

/** The columns a statement's images hold and a rollback writes: the table's, less generated ones. */
export function writableColumns(table: TableModel): string[] {
  return table.columns.filter((c) => c.generated === null).map((c) => c.name);
}

/** The statements creating an empty image of the statement's table, indexed for its key's joins at most. */
export function createImageSql(
  sql: SqlWriter,
  image: string,
  statement: StoredPatchStatement,
  table: TableModel,
): string[] {
  return sql.createEmptyCopy(image, statement.table_sql, table, statement.key ?? []);
}

/**
 * Runs one statement of the patch inside `tx`, writing its images (created before, empty).
 * Returns the rows the statement affected and the rows its images received.
 */
export async function runWithImages(
  tx: TargetTransaction,
  target: { sql: SqlWriter; flavor: Flavor; runId: string },
  statement: StoredPatchStatement & { columns: string[] },
): Promise<{ affected: number; imaged: number }> {
  const { sql, runId } = target;
  const q = sql.quoteIdent;
  const returning = sql.returning(target.flavor);
  const list = statement.columns.map(q).join(', ');
  const image = (which: Image) => backupTable(sql, runId, statement.index, which);
  const images = imagesOf(sql, statement);
  const copyWhere = (into: string) =>
    tx.query(
      `INSERT INTO ${into} (${list}) SELECT ${list} FROM ${statement.target_sql} WHERE ${statement.where_sql ?? '1 = 1'}`,
    );
  // The statement's own RETURNING into an image; the newline ends a trailing `--` comment.
  const returningInto = (into: string) =>
    tx.query(
      `WITH changed AS (${statement.sql}\nRETURNING ${list}\n) INSERT INTO ${into} (${list}) SELECT ${list} FROM changed`,
    );

  // Without a key the table may have rules, under which RETURNING can fail: copy, then run.
  if (returning.inWith && statement.kind !== 'update' && statement.key !== null) {
    const { affectedRows } = await returningInto(image(statement.kind === 'delete' ? 'before' : 'after'));
    return { affected: affectedRows, imaged: affectedRows };
  }

  const key = statement.key ?? [];
  if (statement.kind === 'insert' && images.includes('after') && returning.insert) {
    const tuple = key.map((c) => `t.${q(c)}`).join(', ');
    const keys = (await tx.query(`${statement.sql} RETURNING ${key.map(q).join(', ')}`)).rows;
    for (let start = 0; start < keys.length; start += KEY_BATCH) {
      const batch = keys.slice(start, start + KEY_BATCH);
      const marks = batch
        .map((_, row) => `(${key.map((_, k) => sql.placeholder(row * key.length + k + 1)).join(', ')})`)
        .join(', ');
      await tx.query(
        `INSERT INTO ${image('after')} (${list}) SELECT ${list} FROM ${statement.table_sql} t WHERE (${tuple}) IN (${marks})`,
        batch.flatMap((row) => key.map((c) => row[c])),
      );
    }
    return { affected: keys.length, imaged: keys.length };
  }
  const before = images.includes('before') ? (await copyWhere(image('before'))).affectedRows : 0;
  return { affected: (await tx.query(statement.sql)).affectedRows, imaged: before };
}

/**
 * Without row versions: brings the after-image of a keyed UPDATE or INSERT to the rows as the whole
 * patch left them, after its last statement, so that a row a later statement changed again is no
 * conflict. An UPDATE's is copied by the keys of its before-image; an INSERT's (copied when it ran,
 * to keep the keys of rows a later statement deletes) is refreshed from the rows that still exist.
 */
export async function finishAfterImage(
  tx: TargetTransaction,
  sql: SqlWriter,
  runId: string,
  statement: StoredPatchStatement & { columns: string[] },
): Promise<void> {
  const q = sql.quoteIdent;
  const key = statement.key ?? [];
  const keyEq = key.map((c) => `t.${q(c)} = b.${q(c)}`).join(' AND ');
  const after = backupTable(sql, runId, statement.index, 'after');
  if (statement.kind === 'update')
    await tx.query(
      `INSERT INTO ${after} (${statement.columns.map(q).join(', ')}) ` +
        `SELECT ${statement.columns.map((c) => `t.${q(c)}`).join(', ')} ` +
        `FROM ${backupTable(sql, runId, statement.index)} b JOIN ${statement.table_sql} t ON ${keyEq}`,
    );
  const others = statement.columns.filter((c) => !key.includes(c));
  if (statement.kind === 'insert' && others.length > 0)
    await tx.query(
      sql.updateFrom({ table: after, alias: 'b' }, { table: statement.table_sql, alias: 't' }, keyEq, others),
    );
}
