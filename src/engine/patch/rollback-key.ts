// Whether a patch statement can be rolled back, and by which key (docs/contract.md §9). A rollback finds the
// rows a statement changed again by a key: the primary key, or else a unique key whose columns are
// all NOT NULL (a nullable unique key lets several rows share NULL). An UPDATE that assigns a key
// column is found by another key it leaves alone; an INSERT is recorded through RETURNING, which
// MySQL 8 lacks (MariaDB has it); an upsert changes rows whose before-images nobody kept; a
// PostgreSQL rewrite rule on the table may send the statement's rows elsewhere. Pure.
import { traitsOf } from '../schema/engine-traits.ts';
import type { Flavor, SchemaModel, TableModel } from '../schema/model.ts';
import type { PatchStatement } from './parse-patch.ts';

export type RollbackKey =
  | { reversible: true; key: string[]; reason: null }
  | { reversible: false; key: null; reason: string };

/**
 * Whether a catalog object (`schema`, `name`) is the one `schema.table` or `table` means, as the
 * parser named it: PostgreSQL resolves an unqualified name in `public`; MySQL has one database.
 */
export function namedBy(model: SchemaModel, named: string, object: { schema: string | null; name: string }) {
  const [first, second] = named.split('.');
  const schema = second === undefined ? null : first!;
  return (
    object.name === (second ?? first!) &&
    (!traitsOf(model.dialect).schemas || (object.schema ?? 'public') === (schema ?? 'public'))
  );
}

/** The model's table a statement names. */
export function findTable(model: SchemaModel, name: string): TableModel | undefined {
  return model.tables.find((t) => namedBy(model, name, t));
}

/** The keys that identify one row each, the primary key first. */
export function rowKeys(table: TableModel): string[][] {
  const columns = new Map(table.columns.map((c) => [c.name, c]));
  const usable = (key: string[]) => key.length > 0 && key.every((c) => columns.get(c)?.nullable === false);
  const unique = [
    ...table.unique_constraints.map((u) => u.columns),
    // Unique indexes on plain columns only: not expressions, prefixes or partial indexes.
    ...table.indexes.filter((i) => i.unique && i.predicate === null).map((i) => i.columns),
  ];
  return [...(table.primary_key ? [table.primary_key.columns] : []), ...unique].filter(usable);
}

/** Whether `table` has a PostgreSQL rewrite rule (other than a view's). */
export function hasRules(model: SchemaModel, table: TableModel): boolean {
  return model.unmanaged.some(
    (u) => u.kind === 'rule' && u.table === table.name && u.schema === table.schema,
  );
}

const irreversible = (reason: string): RollbackKey => ({ reversible: false, key: null, reason });

/** Whether the server's INSERT … RETURNING gives back the inserted rows' keys (MySQL 8 has none). */
const INSERT_RETURNING: Record<Flavor, boolean> = { postgresql: true, mariadb: true, mysql: false };

export function rollbackKeyOf(
  statement: Pick<PatchStatement, 'kind' | 'table' | 'set_columns' | 'upsert'>,
  table: TableModel,
  target: { flavor: Flavor; rules: boolean },
): RollbackKey {
  const { flavor } = target;
  if (target.rules)
    return irreversible(
      `${statement.table} has rewrite rules, which may send the statement's rows elsewhere`,
    );
  if (statement.kind === 'insert' && statement.upsert)
    return irreversible('it updates existing rows on conflict, and their before-images are not kept');
  if (statement.kind === 'insert' && !INSERT_RETURNING[flavor])
    return irreversible('MySQL has no INSERT … RETURNING, so the inserted rows cannot be recorded');
  const keys = rowKeys(table);
  if (keys.length === 0)
    return irreversible(`${statement.table} has no primary key or unique key on NOT NULL columns`);
  const assigned = new Set(statement.set_columns);
  const key = keys.find((k) => k.every((c) => !assigned.has(c)));
  if (!key)
    return irreversible(`it changes every key of ${statement.table}, so its rows cannot be found again`);
  return { reversible: true, key, reason: null };
}

/** The statement's table on `model` and its rollback key there; null when the model lacks the table. */
export function keyOnModel(
  statement: Pick<PatchStatement, 'kind' | 'table' | 'set_columns' | 'upsert'>,
  model: SchemaModel,
): { table: TableModel; verdict: RollbackKey } | null {
  const table = findTable(model, statement.table);
  if (!table) return null;
  return {
    table,
    verdict: rollbackKeyOf(statement, table, { flavor: model.flavor, rules: hasRules(model, table) }),
  };
}
