// A keyed UPDATE run in primary-key ranges, with its images, where the engine keeps rows in key
// order and has no row versions (MySQL's InnoDB; patch-images.ts). There an UPDATE makes three
// passes over its rows: the before-image copy, the statement, the after-image copy. When the
// statement reads its whole table, each pass reads the whole table, and a table larger than the
// buffer pool comes from disk three times. Cut into ranges of the primary key, the three passes run
// one range after the other, each range read from disk once and found in memory by the next two.
//
// Every range runs in the run's one transaction. The copy of a range is a locking read (REPEATABLE
// READ takes next-key locks on the rows and gaps it scans), so the UPDATE of the range, which keeps
// the statement's own WHERE and adds the range to it, finds the rows the copy saw. With a key of one
// column it names them: the keys the copy took, in lists, so that it reads those rows by the key
// and no other row of the range. The session's clock is stopped for the ranges: they see the one
// NOW() the statement would have seen.
//
// A statement is cut only when the ranges change nothing of its result: an UPDATE whose text ends
// with its WHERE (no ORDER BY or LIMIT); that names its table once (a subquery reading the table
// would see the earlier ranges written; a view over it is not seen here); whose rollback key is the
// primary key; on a table that is no child of a cascading foreign key (through which its own UPDATE
// could write it back); and whose plan reads the whole table anyway (where an index finds its rows,
// a plain run reads little, and ranges would read the table).
import type { KeyOrderedTables, SqlWriter, TargetTransaction } from '../../dialects/dialect.ts';
import type { TableModel } from '../../engine/schema/model.ts';
import type { StoredPatchStatement } from '../../store/tables.ts';
import { backupTable, imagesOf } from './patch-images.ts';

/** Rows the before-image receives per range: about ten thousand rows' pages stay in any buffer pool. */
export const ROWS_PER_RANGE = 10_000;

/** An UPDATE that may run in key ranges: its text before the WHERE condition, and that condition. */
export interface RangedUpdate {
  ordered: KeyOrderedTables;
  /** The statement up to and with ` WHERE `. */
  head: string;
  where: string;
  key: string[];
  /** Rows the before-image receives per range (ROWS_PER_RANGE). */
  rowsPerRange: number;
  /** The after-image is written range by range: no later statement of the patch writes the rows again. */
  afterImageByRange: boolean;
}

const CASCADING = new Set(['cascade', 'set null', 'set default']);

/** The statement as ranges may run it, or null when it must run whole (see the top of this file). */
export function rangedUpdate(
  sql: SqlWriter,
  statement: StoredPatchStatement,
  table: TableModel,
  lastOfPatch: boolean,
): RangedUpdate | null {
  const ordered = sql.capabilities.keyOrderedTables;
  const key = statement.key;
  const primary = table.primary_key?.columns ?? [];
  if (ordered === null || statement.kind !== 'update' || key === null || statement.where_sql === null)
    return null;
  if (!imagesOf(sql, statement).includes('after')) return null;
  if (key.length !== primary.length || key.some((c, i) => c !== primary[i])) return null;
  const tail = ` WHERE ${statement.where_sql}`;
  // Named once, in any case (a server may fold names): the statement's own reference.
  const named = statement.sql.toLowerCase().split(sql.quoteIdent(table.name).toLowerCase()).length - 1;
  if (!statement.sql.endsWith(tail) || named !== 1) return null;
  if (table.foreign_keys.some((fk) => CASCADING.has(fk.on_update))) return null;
  return {
    ordered,
    head: statement.sql.slice(0, statement.sql.length - statement.where_sql.length),
    where: statement.where_sql,
    key,
    rowsPerRange: ROWS_PER_RANGE,
    afterImageByRange: lastOfPatch,
  };
}

/** A condition on key columns with its parameters, placeholders numbered from `from`. */
interface Bound {
  sql: string;
  params: unknown[];
}

/**
 * The key (`columns`, already qualified) past `values` in key order (`above`), or up to and with
 * them: lexicographic, written as ORs of equalities and one comparison, which the range optimizer
 * reads as ranges of the index (a row comparison `(a, b) > (?, ?)` it would scan).
 */
function keyBound(
  sql: SqlWriter,
  columns: string[],
  values: unknown[],
  side: 'above' | 'atMost',
  from: number,
): Bound {
  const params: unknown[] = [];
  const mark = (value: unknown) => {
    params.push(value);
    return sql.placeholder(from + params.length - 1);
  };
  const terms = columns.map((column, i) => {
    const equal = columns.slice(0, i).map((c, j) => `${c} = ${mark(values[j])}`);
    return [...equal, `${column} ${side === 'above' ? '>' : '<'} ${mark(values[i])}`].join(' AND ');
  });
  if (side === 'atMost') terms.push(columns.map((c, j) => `${c} = ${mark(values[j])}`).join(' AND '));
  return { sql: terms.map((t) => `(${t})`).join(' OR '), params };
}

/** The conditions of a range: past the previous range's last key, up to this one's (none: open). */
function rangeBounds(
  sql: SqlWriter,
  columns: string[],
  lower: unknown[] | null,
  upper: unknown[] | null,
): Bound {
  const parts: Bound[] = [];
  if (lower !== null) parts.push(keyBound(sql, columns, lower, 'above', 1));
  if (upper !== null) {
    const from = 1 + (parts[0]?.params.length ?? 0);
    parts.push(keyBound(sql, columns, upper, 'atMost', from));
  }
  return {
    sql: parts.map((p) => `(${p.sql})`).join(' AND '),
    params: parts.flatMap((p) => p.params),
  };
}

/**
 * Runs the UPDATE range by range with its before-image (and its after-image when
 * `afterImageByRange`). Returns null, having done nothing, when its plan does not read the whole
 * table: it then runs whole (runWithImages).
 */
export async function runInKeyRanges(
  tx: TargetTransaction,
  target: { sql: SqlWriter; runId: string },
  statement: StoredPatchStatement & { columns: string[] },
  update: RangedUpdate,
): Promise<{ affected: number; imaged: number } | null> {
  const { sql, runId } = target;
  const { ordered, key } = update;
  if (!ordered.readsWholeTable((await tx.query(ordered.planSql(statement.sql))).rows)) return null;
  const q = sql.quoteIdent;
  const list = statement.columns.map(q).join(', ');
  const keyList = key.map(q).join(', ');
  const before = backupTable(sql, runId, statement.index, 'before');
  const after = backupTable(sql, runId, statement.index, 'after');
  const keyEq = key.map((c) => `t.${q(c)} = b.${q(c)}`).join(' AND ');
  const where = (bound: Bound, condition: string) =>
    bound.sql === '' ? condition : `(${condition}) AND ${bound.sql}`;
  const keyed = (alias: string | null) => key.map((c) => (alias === null ? q(c) : `${alias}.${q(c)}`));
  let lower: unknown[] | null = null;
  let affected = 0;
  let imaged = 0;
  await tx.query(ordered.clockStoppedSql);
  try {
    for (;;) {
      const above = rangeBounds(sql, keyed(null), lower, null);
      const copied = (
        await tx.query(
          `INSERT INTO ${before} (${list}) SELECT ${list} FROM ${ordered.inKeyOrder(statement.target_sql)} ` +
            `WHERE ${where(above, update.where)} ORDER BY ${keyList} LIMIT ${update.rowsPerRange}`,
          above.params,
        )
      ).affectedRows;
      imaged += copied;
      // A range short of full reached the end of the table: the last range is open above.
      const last = copied < update.rowsPerRange;
      const upper = last ? null : await lastKey(tx, before, key.map(q), key);
      const range = rangeBounds(sql, keyed(null), lower, upper);
      affected +=
        key.length === 1
          ? await updateByKeys(tx, sql, update, before, range)
          : (await tx.query(`${update.head}${where(range, update.where)}`, range.params)).affectedRows;
      if (update.afterImageByRange) {
        const imagedRange = rangeBounds(sql, keyed('b'), lower, upper);
        await tx.query(
          `INSERT INTO ${after} (${list}) SELECT ${statement.columns.map((c) => `t.${q(c)}`).join(', ')} ` +
            `FROM ${before} b JOIN ${statement.table_sql} t ON ${keyEq}` +
            (imagedRange.sql === '' ? '' : ` WHERE ${imagedRange.sql}`),
          imagedRange.params,
        );
      }
      if (last) break;
      lower = upper;
    }
  } catch (error) {
    // The transaction is lost anyway; the error that ended it is the one to tell.
    await tx.query(ordered.clockRunsSql).catch(() => {});
    throw error;
  }
  await tx.query(ordered.clockRunsSql);
  return { affected, imaged };
}

/**
 * Keys per UPDATE by key list: few statements (each has a cost of its own), each well under a
 * server's smallest max_allowed_packet (1 MiB) even with long text keys.
 */
const KEYS_PER_UPDATE = 2_000;

/**
 * The range's UPDATE by the keys its before-image holds (a one-column key): the rows are found by
 * the primary key instead of scanning the range and testing the WHERE on every row again; the
 * WHERE stays. The copy's locks hold every row and gap of the range, so these are the rows the
 * statement would find there.
 */
async function updateByKeys(
  tx: TargetTransaction,
  sql: SqlWriter,
  update: RangedUpdate,
  image: string,
  range: Bound,
): Promise<number> {
  const column = update.key[0]!;
  const listed = sql.quoteIdent(column);
  const keys = (
    await tx.query(
      `SELECT ${listed} FROM ${image}${range.sql === '' ? '' : ` WHERE ${range.sql}`}`,
      range.params,
    )
  ).rows.map((row) => row[column]);
  let affected = 0;
  for (let start = 0; start < keys.length; start += KEYS_PER_UPDATE) {
    const batch = keys.slice(start, start + KEYS_PER_UPDATE);
    const marks = batch.map((_, i) => sql.placeholder(i + 1)).join(', ');
    affected += (await tx.query(`${update.head}(${update.where}) AND ${listed} IN (${marks})`, batch))
      .affectedRows;
  }
  return affected;
}

/** The highest key of `image` (its key columns quoted in `quoted`), as the values of `key`. */
async function lastKey(
  tx: TargetTransaction,
  image: string,
  quoted: string[],
  key: string[],
): Promise<unknown[]> {
  const order = quoted.map((c) => `${c} DESC`).join(', ');
  const row = (await tx.query(`SELECT ${quoted.join(', ')} FROM ${image} ORDER BY ${order} LIMIT 1`)).rows[0];
  if (row === undefined) throw new Error('A full range of the before-image has no rows');
  return key.map((c) => row[c]);
}
