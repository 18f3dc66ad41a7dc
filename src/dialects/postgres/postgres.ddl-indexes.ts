// The clauses after an index's key parts, shared by table indexes, materialized views' indexes and
// the indexes behind unique constraints, in the order CREATE INDEX takes them: INCLUDE, NULLS NOT
// DISTINCT, WITH (storage parameters), WHERE.
import type { IndexModel } from '../../engine/schema/model.ts';

/** `fillfactor=70` as the catalog stores it → `fillfactor='70'`; values are the server's, names bare. */
export function storageParameters(options: string[] | undefined): string {
  if (!options || options.length === 0) return '';
  const pairs = options.map((option) => {
    const at = option.indexOf('=');
    const [name, value] = at < 0 ? [option, 'true'] : [option.slice(0, at), option.slice(at + 1)];
    return `${name}='${value.replace(/'/g, "''")}'`;
  });
  return ` WITH (${pairs.join(', ')})`;
}

export function indexTail(index: IndexModel): string {
  let sql = '';
  if (index.include.length > 0) sql += ` INCLUDE (${index.include.join(', ')})`;
  if (index.nulls_not_distinct) sql += ' NULLS NOT DISTINCT';
  sql += storageParameters(index.options);
  if (index.predicate !== null) sql += ` WHERE (${index.predicate})`;
  return sql;
}

/** What follows UNIQUE in a unique constraint: NULLS NOT DISTINCT, the columns, storage parameters. */
export function uniqueConstraintBody(
  constraint: { nulls_not_distinct?: boolean; options?: string[] },
  columns: string,
): string {
  return `UNIQUE${constraint.nulls_not_distinct ? ' NULLS NOT DISTINCT' : ''} (${columns})${storageParameters(constraint.options)}`;
}
