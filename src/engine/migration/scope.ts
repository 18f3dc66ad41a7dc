// `include_tables` / `exclude_tables` of a compare (docs/contract.md §8): which tables a migration may touch.
// A pattern is `table` (any schema), `schema.table`, and may hold `*` for any run of characters.
// Enums and sequences follow the tables: one used only by tables out of scope is out of scope too,
// as the engine's shadow-object filter does it. Triggers follow their table, and views follow the
// tables they read (a view reading a table out of scope stays as it is); schemas, functions and
// extensions belong to no table and are left out of a scoped plan.
import type { ColumnRef, SchemaModel } from '../schema/model.ts';

export interface TableScope {
  include_tables?: string[] | undefined;
  exclude_tables?: string[] | undefined;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Whether a table matches one of the patterns (by bare name, or by `schema.name`). */
export function matchesAny(table: { schema: string | null; name: string }, patterns: string[]): boolean {
  return patterns.some((pattern) => {
    const regex = globToRegExp(pattern);
    if (!pattern.includes('.')) return regex.test(table.name);
    return table.schema !== null && regex.test(`${table.schema}.${table.name}`);
  });
}

export function inScope(table: { schema: string | null; name: string }, scope: TableScope): boolean {
  const include = scope.include_tables ?? [];
  const exclude = scope.exclude_tables ?? [];
  if (include.length > 0 && !matchesAny(table, include)) return false;
  return !matchesAny(table, exclude);
}

/** The model restricted to the tables in scope, with the enums and sequences they use. */
export function scopeModel(model: SchemaModel, scope: TableScope): SchemaModel {
  if ((scope.include_tables ?? []).length === 0 && (scope.exclude_tables ?? []).length === 0) return model;
  const tables = model.tables.filter((table) => inScope(table, scope));
  const kept = new Set(tables.map((table) => JSON.stringify([table.schema, table.name])));
  const usedByKept = (use: ColumnRef) => kept.has(JSON.stringify([use.schema, use.table]));
  return {
    ...model,
    tables,
    enums: model.enums.filter((item) => item.used_by.some(usedByKept)),
    sequences: model.sequences.filter((item) => item.used_by.some(usedByKept)),
    schemas: undefined,
    routines: undefined,
    extensions: undefined,
    types: undefined,
    collations: undefined,
    views: model.views?.filter((view) =>
      view.depends_on.every(
        (dep) => dep.kind !== 'table' || kept.has(JSON.stringify([dep.schema, dep.name])),
      ),
    ),
    triggers: model.triggers?.filter((trigger) => kept.has(JSON.stringify([trigger.schema, trigger.table]))),
  };
}
