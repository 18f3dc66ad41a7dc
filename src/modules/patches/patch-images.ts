// The images a patch keeps in the target database to be rolled back (API §9), and the SQL that
// writes and reads them. Per statement: UPDATE keeps the rows before it (`before`); DELETE the
// deleted rows (`before`); INSERT the inserted rows (`after`). PostgreSQL writes them in schema
// `dbops_backup`; MySQL beside the data as `_dbops_bak_…`, having no second schema to write to.
// Both are named by run id and filtered from introspection and drift.
//
// A rollback must find the rows changed since the patch. On PostgreSQL every row the patch wrote
// carries its transaction id as `xmin` until something else writes it, so a row whose `xmin`
// differs was changed since: no copy of the updated rows is needed, and the patch costs one
// extra pass (the before-image) over a plain UPDATE. MySQL has no such column: an UPDATE also
// keeps the rows as the whole patch left them (`after`) to compare with. DELETE and INSERT images come from
// the statement's own RETURNING on PostgreSQL (one pass); MariaDB's INSERT … RETURNING gives the
// inserted keys, whose rows are then copied.
import type { TargetTransaction } from '../../dialects/dialect.ts';
import type { DialectName, Flavor, TableModel } from '../../engine/schema/model.ts';
import type { Patch, StoredPatchStatement } from '../../store/tables.ts';

export const PG_BACKUP_SCHEMA = 'dbops_backup';

/** Inserted MariaDB keys copied into the after-image per statement. */
const KEY_BATCH = 1_000;

export type Image = 'before' | 'after';

/** The quoted image table of statement `index` of run `runId`. */
export function backupTable(
  dialect: DialectName,
  runId: string,
  index: number,
  image: Image = 'before',
): string {
  const id = `${runId.replaceAll('-', '')}_${index}${image === 'after' ? '_after' : ''}`;
  return dialect === 'mysql' ? `\`_dbops_bak_${id}\`` : `"${PG_BACKUP_SCHEMA}"."${id}"`;
}

export function quoteName(dialect: DialectName, name: string): string {
  return dialect === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
}

/**
 * Every backup table name an execution may have left: `before` and `after` of every statement,
 * whatever its kind (INSERT and DELETE have no `after` today; IF EXISTS makes the extra names free).
 */
export function backupTablesOf(dialect: DialectName, patch: Pick<Patch, 'execute_run_id' | 'statements'>) {
  const runId = patch.execute_run_id;
  if (runId === null) return [];
  return patch.statements.flatMap((s) => [
    backupTable(dialect, runId, s.index, 'before'),
    backupTable(dialect, runId, s.index, 'after'),
  ]);
}

/** The images a statement keeps: no after-image without a key to compare by. */
export function imagesOf(
  dialect: DialectName,
  statement: Pick<StoredPatchStatement, 'kind' | 'key'>,
): Image[] {
  const keyed = statement.key !== null;
  if (statement.kind === 'delete') return ['before'];
  if (statement.kind === 'insert') return keyed ? ['after'] : [];
  return keyed && dialect === 'mysql' ? ['before', 'after'] : ['before'];
}

/** The columns a statement's images hold and a rollback writes: the table's, less generated ones. */
export function writableColumns(table: TableModel): string[] {
  return table.columns.filter((c) => c.generated === null).map((c) => c.name);
}

/**
 * The statements creating an empty image of the statement's table. PostgreSQL's LIKE copies the
 * columns only (hash joins need no index). MySQL's copies every index, and each would be paid for
 * on every imaged row; its joins need the key's index, so the image keeps only that one, and any
 * index an AUTO_INCREMENT column needs to be legal.
 */
export function createImageSql(
  dialect: DialectName,
  image: string,
  statement: StoredPatchStatement,
  table: TableModel,
): string[] {
  if (dialect === 'postgresql') return [`CREATE TABLE ${image} (LIKE ${statement.table_sql})`];
  const key = statement.key ?? [];
  const autoIncrement = new Set(table.columns.filter((c) => c.auto_increment).map((c) => c.name));
  const needed = (columns: string[]) =>
    (columns.length === key.length && columns.every((c, i) => c === key[i])) ||
    columns.some((c) => autoIncrement.has(c));
  const extra = table.indexes.filter((index) => !needed(index.columns)).map((index) => index.name);
  return [
    `CREATE TABLE ${image} LIKE ${statement.table_sql}`,
    ...(extra.length === 0
      ? []
      : [`ALTER TABLE ${image} ${extra.map((name) => `DROP INDEX ${quoteName('mysql', name)}`).join(', ')}`]),
  ];
}

/**
 * Runs one statement of the patch inside `tx`, writing its images (created before, empty).
 * Returns the rows the statement affected and the rows its images received.
 */
export async function runWithImages(
  tx: TargetTransaction,
  target: { dialect: DialectName; flavor: Flavor; runId: string },
  statement: StoredPatchStatement & { columns: string[] },
): Promise<{ affected: number; imaged: number }> {
  const { dialect, runId } = target;
  const q = (name: string) => quoteName(dialect, name);
  const list = statement.columns.map(q).join(', ');
  const image = (which: Image) => backupTable(dialect, runId, statement.index, which);
  const images = imagesOf(dialect, statement);
  const copyWhere = (into: string) =>
    tx.query(
      `INSERT INTO ${into} (${list}) SELECT ${list} FROM ${statement.target_sql} WHERE ${statement.where_sql ?? '1 = 1'}`,
    );
  // The statement's own RETURNING into an image; the newline ends a trailing `--` comment.
  const returningInto = (into: string) =>
    tx.query(
      `WITH changed AS (${statement.sql}\nRETURNING ${list}\n) INSERT INTO ${into} (${list}) SELECT ${list} FROM changed`,
    );

  if (dialect === 'postgresql') {
    // Without a key the table may have rules, under which RETURNING can fail: copy, then run.
    if (statement.kind !== 'update' && statement.key !== null) {
      const { affectedRows } = await returningInto(image(statement.kind === 'delete' ? 'before' : 'after'));
      return { affected: affectedRows, imaged: affectedRows };
    }
    const before = images.includes('before') ? (await copyWhere(image('before'))).affectedRows : 0;
    return { affected: (await tx.query(statement.sql)).affectedRows, imaged: before };
  }

  const key = statement.key ?? [];
  if (statement.kind === 'insert' && images.includes('after')) {
    const tuple = key.map((c) => `t.${q(c)}`).join(', ');
    const keys = (await tx.query(`${statement.sql} RETURNING ${key.map(q).join(', ')}`)).rows;
    for (let start = 0; start < keys.length; start += KEY_BATCH) {
      const batch = keys.slice(start, start + KEY_BATCH);
      const marks = batch.map(() => `(${key.map(() => '?').join(', ')})`).join(', ');
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
 * MySQL: brings the after-image of a keyed UPDATE or INSERT to the rows as the whole patch left
 * them, after its last statement, so that a row a later statement changed again is no conflict.
 * An UPDATE's is copied by the keys of its before-image; an INSERT's (copied when it ran, to keep
 * the keys of rows a later statement deletes) is refreshed from the rows that still exist.
 */
export async function finishAfterImage(
  tx: TargetTransaction,
  runId: string,
  statement: StoredPatchStatement & { columns: string[] },
): Promise<void> {
  const q = (name: string) => quoteName('mysql', name);
  const key = statement.key ?? [];
  const keyEq = key.map((c) => `t.${q(c)} = b.${q(c)}`).join(' AND ');
  const after = backupTable('mysql', runId, statement.index, 'after');
  if (statement.kind === 'update')
    await tx.query(
      `INSERT INTO ${after} (${statement.columns.map(q).join(', ')}) ` +
        `SELECT ${statement.columns.map((c) => `t.${q(c)}`).join(', ')} ` +
        `FROM ${backupTable('mysql', runId, statement.index)} b JOIN ${statement.table_sql} t ON ${keyEq}`,
    );
  const others = statement.columns.filter((c) => !key.includes(c));
  if (statement.kind === 'insert' && others.length > 0)
    await tx.query(
      `UPDATE ${after} b JOIN ${statement.table_sql} t ON ${keyEq} SET ${others.map((c) => `b.${q(c)} = t.${q(c)}`).join(', ')}`,
    );
}

/** What rolling back one statement runs: the query listing conflicts, then the restoring statements. */
export interface RestorePlan {
  index: number;
  table: string;
  /** The table as quoted SQL. */
  tableSql: string;
  /** The image tables the plan reads. */
  images: string[];
  /** The keys of rows changed since the patch (at most 100). */
  conflicts: string;
  restore: string[];
  /** After the restore: how many rows (`n`) are not as before the patch (a trigger may change them). */
  verify: string;
}

/**
 * The rollback of one reversible statement, whose images hold `columns`. UPDATE and DELETE put the
 * before-image back (changed rows updated, missing rows inserted); INSERT deletes its rows. A
 * conflict is a row that is not as the patch left it: an updated row written since or gone, a
 * deleted row back, an inserted row written since. On PostgreSQL "written since" is an `xmin`
 * other than the patch's transaction (`xid`); on MySQL a row unequal to the after-image.
 */
export function restorePlan(
  dialect: DialectName,
  runId: string,
  statement: StoredPatchStatement,
  options: {
    columns: string[];
    xid: string | null;
    force: boolean;
    /** The before-images of later DELETEs of the patch on the same table: rows gone by the patch itself. */
    laterDeletes: string[];
    /** Columns an UPDATE may not set (PostgreSQL GENERATED ALWAYS identities): a patch cannot have changed them. */
    fixed?: string[];
  },
): RestorePlan {
  const { columns, xid, force, laterDeletes, fixed = [] } = options;
  const key = statement.key;
  if (!key) throw new Error(`Statement ${statement.index} has no key to be rolled back by`);
  if (dialect === 'postgresql' && !/^\d+$/.test(xid ?? ''))
    throw new Error(`Statement ${statement.index}: the transaction of the patch is not known`);
  const q = (name: string) => quoteName(dialect, name);
  const table = statement.table_sql;
  const keyEq = key.map((c) => `t.${q(c)} = b.${q(c)}`).join(' AND ');
  const keyList = key.map((c) => `b.${q(c)}`).join(', ');
  const same = (c: string) =>
    dialect === 'mysql' ? `t.${q(c)} <=> b.${q(c)}` : `t.${q(c)}::text IS NOT DISTINCT FROM b.${q(c)}::text`;
  const unchanged = `(${columns.map(same).join(' AND ')})`;
  const writtenByPatch = dialect === 'postgresql' ? `(t.xmin::text = '${xid}')` : unchanged;
  const after = backupTable(dialect, runId, statement.index, 'after');
  const before = backupTable(dialect, runId, statement.index);
  const base = { index: statement.index, table: statement.table, tableSql: table };

  if (statement.kind === 'insert')
    return {
      ...base,
      images: [after],
      conflicts: `SELECT ${keyList} FROM ${after} b JOIN ${table} t ON ${keyEq} WHERE NOT ${writtenByPatch} LIMIT 100`,
      restore: [
        dialect === 'mysql'
          ? `DELETE t FROM ${table} t JOIN ${after} b ON ${keyEq}`
          : `DELETE FROM ${table} AS t USING ${after} b WHERE ${keyEq}`,
      ],
      verify: `SELECT count(*) AS n FROM ${after} b JOIN ${table} t ON ${keyEq}`,
    };

  const others = columns.filter((c) => !key.includes(c) && !fixed.includes(c));
  const update =
    others.length === 0
      ? []
      : [
          dialect === 'mysql'
            ? `UPDATE ${table} t JOIN ${before} b ON ${keyEq} SET ${others.map((c) => `t.${q(c)} = b.${q(c)}`).join(', ')}`
            : `UPDATE ${table} AS t SET ${others.map((c) => `${q(c)} = b.${q(c)}`).join(', ')} FROM ${before} b WHERE ${keyEq}`,
        ];
  const overriding = dialect === 'postgresql' ? ' OVERRIDING SYSTEM VALUE' : '';
  const insertMissing =
    `INSERT INTO ${table} (${columns.map(q).join(', ')})${overriding} SELECT ${columns.map((c) => `b.${q(c)}`).join(', ')} ` +
    `FROM ${before} b WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${keyEq})`;
  const deletedByPatch = laterDeletes.map(
    (image) =>
      ` AND NOT EXISTS (SELECT 1 FROM ${image} d WHERE ${key.map((c) => `d.${q(c)} = b.${q(c)}`).join(' AND ')})`,
  );
  const updatedSince =
    dialect === 'postgresql'
      ? `SELECT ${keyList} FROM ${before} b LEFT JOIN ${table} t ON ${keyEq} ` +
        `WHERE (t.${q(key[0]!)} IS NULL${deletedByPatch.join('')}) OR NOT ${writtenByPatch} LIMIT 100`
      : `SELECT ${keyList} FROM ${after} b LEFT JOIN ${table} t ON ${keyEq} WHERE t.${q(key[0]!)} IS NULL OR NOT ${unchanged} LIMIT 100`;
  return {
    ...base,
    images: statement.kind === 'update' && dialect === 'mysql' ? [before, after] : [before],
    conflicts:
      statement.kind === 'update'
        ? updatedSince
        : `SELECT ${keyList} FROM ${before} b JOIN ${table} t ON ${keyEq} LIMIT 100`,
    // An updated row can only be missing when it is a conflict, restored only by force.
    restore: statement.kind === 'update' && !force ? update : [...update, insertMissing],
    verify: `SELECT count(*) AS n FROM ${before} b LEFT JOIN ${table} t ON ${keyEq} WHERE t.${q(key[0]!)} IS NULL OR NOT ${unchanged}`,
  };
}
