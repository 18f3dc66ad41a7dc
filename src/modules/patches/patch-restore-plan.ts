// The SQL that rolls back one executed statement of a patch from its images (patch-images.ts): the
// query listing the rows changed since the patch, the restoring statements, and the check of the
// restored rows. Pure: it only writes SQL.
import type { SqlWriter } from '../../dialects/index.ts';
import type { StoredPatchStatement } from '../../store/tables.ts';
import { backupTable } from './patch-images.ts';

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
 * deleted row back, an inserted row written since. With row versions (PostgreSQL) "written since"
 * is a version other than the patch's transaction (`xid`); without (MySQL) a row unequal to the
 * after-image.
 */
export function restorePlan(
  sql: SqlWriter,
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
  if (!key) throw new Error(`Statement ${statement.index + 1} has no key to be rolled back by`);
  const versions = sql.capabilities.rowVersions;
  // Undefined without row versions; null when the patch's transaction is not one.
  const writtenByVersion = versions === null ? undefined : versions.writtenBy('t', xid ?? '');
  if (writtenByVersion === null)
    throw new Error(`Statement ${statement.index + 1}: the transaction of the patch is not known`);
  const q = sql.quoteIdent;
  const table = statement.table_sql;
  const keyEq = key.map((c) => `t.${q(c)} = b.${q(c)}`).join(' AND ');
  const keyList = key.map((c) => `b.${q(c)}`).join(', ');
  const unchanged = `(${columns.map((c) => sql.sameValue(`t.${q(c)}`, `b.${q(c)}`)).join(' AND ')})`;
  const writtenByPatch = writtenByVersion ?? unchanged;
  const after = backupTable(sql, runId, statement.index, 'after');
  const before = backupTable(sql, runId, statement.index);
  const base = { index: statement.index, table: statement.table, tableSql: table };

  if (statement.kind === 'insert')
    return {
      ...base,
      images: [after],
      conflicts: `SELECT ${keyList} FROM ${after} b JOIN ${table} t ON ${keyEq} WHERE NOT ${writtenByPatch} LIMIT 100`,
      restore: [sql.deleteJoined({ table, alias: 't' }, { table: after, alias: 'b' }, keyEq)],
      verify: `SELECT count(*) AS n FROM ${after} b JOIN ${table} t ON ${keyEq}`,
    };

  const others = columns.filter((c) => !key.includes(c) && !fixed.includes(c));
  const update =
    others.length === 0
      ? []
      : [sql.updateFrom({ table, alias: 't' }, { table: before, alias: 'b' }, keyEq, others)];
  const insertMissing = sql.insertAsGiven(
    table,
    columns.map(q).join(', '),
    `SELECT ${columns.map((c) => `b.${q(c)}`).join(', ')} ` +
      `FROM ${before} b WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${keyEq})`,
  );
  const deletedByPatch = laterDeletes.map(
    (image) =>
      ` AND NOT EXISTS (SELECT 1 FROM ${image} d WHERE ${key.map((c) => `d.${q(c)} = b.${q(c)}`).join(' AND ')})`,
  );
  // With row versions the before-image is enough; without, the after-image is compared with.
  const updatedSince =
    versions !== null
      ? `SELECT ${keyList} FROM ${before} b LEFT JOIN ${table} t ON ${keyEq} ` +
        `WHERE (t.${q(key[0]!)} IS NULL${deletedByPatch.join('')}) OR NOT ${writtenByPatch} LIMIT 100`
      : `SELECT ${keyList} FROM ${after} b LEFT JOIN ${table} t ON ${keyEq} WHERE t.${q(key[0]!)} IS NULL OR NOT ${unchanged} LIMIT 100`;
  return {
    ...base,
    images: statement.kind === 'update' && versions === null ? [before, after] : [before],
    conflicts:
      statement.kind === 'update'
        ? updatedSince
        : `SELECT ${keyList} FROM ${before} b JOIN ${table} t ON ${keyEq} LIMIT 100`,
    // An updated row can only be missing when it is a conflict, restored only by force.
    restore: statement.kind === 'update' && !force ? update : [...update, insertMissing],
    verify: `SELECT count(*) AS n FROM ${before} b LEFT JOIN ${table} t ON ${keyEq} WHERE t.${q(key[0]!)} IS NULL OR NOT ${unchanged}`,
  };
}
