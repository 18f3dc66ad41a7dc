// Foreign keys set aside for a load come back before it commits. Where the engine re-adds them
// (ForeignKeyLoad `readd`), each is added NOT VALID and validated, so the server checks every row;
// where the session only stopped checking (`session`: MySQL's foreign_key_checks), turning checks
// back on checks nothing already written, so the loaded rows are searched for one whose parent is
// missing. Seeds and in-place anonymization load this way.
import type { ForeignKeyModel, TableModel } from '../engine/schema/model.ts';
import type { MigrationDialect, RowSession } from './dialect.ts';
import { qualifiedTable } from './rows.ts';

export interface SetAsideKey {
  table: TableModel;
  fk: ForeignKeyModel;
}

const referencedOf = (table: TableModel, fk: ForeignKeyModel) => ({
  schema: fk.referenced_schema ?? table.schema,
  name: fk.referenced_table,
});

/**
 * Puts the keys back inside the load's transaction. Returns the first key whose rows reference a
 * missing parent where the session only stopped checking, or null; where the engine re-adds keys,
 * such a row fails the validation (an error of the session's query).
 */
export async function putForeignKeysBack(
  session: RowSession,
  dialect: MigrationDialect,
  keys: readonly SetAsideKey[],
): Promise<SetAsideKey | null> {
  const q = (name: string) => dialect.quoteIdent(name);
  const qualified = (t: { schema: string | null; name: string }) => qualifiedTable(q, t);
  const fkLoad = dialect.rows.foreignKeyLoad;
  if (fkLoad.kind === 'readd') {
    for (const { table, fk } of keys) {
      for (const statement of fkLoad.addNotValid(qualified(table), fk, qualified(referencedOf(table, fk))))
        await session.query(statement);
      await session.query(fkLoad.validate(qualified(table), fk.name));
    }
    return null;
  }
  for (const key of keys) {
    const { table, fk } = key;
    const { rows: orphans } = await session.query(
      `SELECT 1 AS orphan FROM ${qualified(table)} c WHERE ` +
        fk.columns.map((c) => `c.${q(c)} IS NOT NULL`).join(' AND ') +
        ` AND NOT EXISTS (SELECT 1 FROM ${qualified(referencedOf(table, fk))} p WHERE ` +
        fk.columns.map((c, i) => `p.${q(fk.referenced_columns[i] as string)} = c.${q(c)}`).join(' AND ') +
        ') LIMIT 1',
    );
    if (orphans.length > 0) return key;
  }
  return null;
}
