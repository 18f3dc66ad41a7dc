// Objects that introspection must not report: the shadow and temporary objects of online schema
// change tools (gh-ost, pt-online-schema-change, pg_repack, pgroll) and this service's own backups (docs/architecture.md). Reporting them would
// raise drift alerts for every gh-ost run and make a migration plan drop a tool's work in progress.
// The list is data, so a deployment can extend it; patterns are regular-expression sources.
import type { ColumnRef, SchemaModel, TableModel } from './model.ts';
import type { SchemaObjectFields } from './objects.ts';

export interface ObjectFilterConfig {
  /** Schemas left out entirely (PostgreSQL). System schemas are left out by the dialects. */
  schemas: string[];
  tables: string[];
  indexes: string[];
  columns: string[];
  triggers: string[];
}

export const DEFAULT_OBJECT_FILTER: ObjectFilterConfig = {
  schemas: [
    'dbops_backup', // this service's backups of patched rows and dropped data
    'repack', // pg_repack
    'pgroll', // pgroll's state
  ],
  tables: [
    '^_dbops_bak_', // this service's backups on MySQL
    '^_.+_(gho|ghc|ghk|del)$', // gh-ost, including _<t>_<YYYYMMDDhhmmss>_del
    '^_.+_(new|old|chkpnt|sentinel)$', // pt-online-schema-change, Spirit
    '^lhmn_', // LHM
    '^lhma_\\d+_',
    '^_vt_(hld|prg|evc|drp|vrp)_', // Vitess
    '^#sql', // interrupted ALTER on MySQL/MariaDB
    '^pgosc_(st|at|op_table)_', // pg-osc
    '^_pgroll_(new|del|dup)_', // pgroll
    '^pgschemadiff_tmp', // pg-schema-diff
  ],
  indexes: [
    '_ccnew\\d*$', // REINDEX CONCURRENTLY in progress or interrupted
    '_ccold\\d*$',
    '^pgschemadiff_tmp',
    '^_pgroll_',
  ],
  columns: ['^_pgroll_(new|del|dup)_'],
  triggers: [
    '^pt_osc_.+_(ins|upd|del)$', // pt-online-schema-change
    '^_pgroll_trigger_',
  ],
};

export interface ObjectFilter {
  schema(name: string): boolean;
  table(name: string): boolean;
  index(name: string): boolean;
  column(name: string): boolean;
  trigger(name: string): boolean;
}

/** A filter whose methods answer "keep this object?". */
export function compileFilter(config: ObjectFilterConfig = DEFAULT_OBJECT_FILTER): ObjectFilter {
  const anyOf = (sources: string[]) => {
    const patterns = sources.map((source) => new RegExp(source));
    return (name: string) => !patterns.some((pattern) => pattern.test(name));
  };
  const schemas = new Set(config.schemas);
  return {
    schema: (name) => !schemas.has(name),
    table: anyOf(config.tables),
    index: anyOf(config.indexes),
    column: anyOf(config.columns),
    trigger: anyOf(config.triggers),
  };
}

/**
 * The model without filtered objects. Enums and sequences only used by filtered tables go with them;
 * unmanaged objects in filtered schemas, on filtered tables, or named like a tool's trigger too.
 */
export function applyFilter(model: SchemaModel, filter: ObjectFilter): SchemaModel {
  const keepTable = (schema: string | null, name: string) =>
    (schema === null || filter.schema(schema)) && filter.table(name);
  const tables = model.tables
    .filter((table) => keepTable(table.schema, table.name))
    .map((t) => filterTable(t, filter));
  const kept = new Set(tables.map((table) => JSON.stringify([table.schema, table.name])));
  const usedByKept = (use: ColumnRef) => kept.has(JSON.stringify([use.schema, use.table]));

  // One no column uses stays (it is an object of its own); one only filtered tables use goes.
  const keepType = <T extends { schema: string; used_by: ColumnRef[] }>(item: T) =>
    filter.schema(item.schema) && (item.used_by.length === 0 || item.used_by.some(usedByKept));
  const enums = model.enums
    .filter(keepType)
    .map((item) => ({ ...item, used_by: item.used_by.filter(usedByKept) }));
  const sequences = model.sequences
    .filter(keepType)
    .map((item) => ({ ...item, used_by: item.used_by.filter(usedByKept) }));
  const unmanaged = model.unmanaged.filter((item) => {
    if (item.schema !== null && !filter.schema(item.schema)) return false;
    if (item.table !== null && !filter.table(item.table)) return false;
    return item.kind !== 'trigger' || filter.trigger(item.name);
  });
  return { ...model, tables, enums, sequences, unmanaged, ...filterObjects(model, filter) };
}

/** The managed objects outside filtered schemas, and triggers neither on filtered tables nor a tool's. */
function filterObjects(model: SchemaModel, filter: ObjectFilter): SchemaObjectFields {
  const inSchema = (item: { schema: string | null }) => item.schema === null || filter.schema(item.schema);
  const out: SchemaObjectFields = {};
  if (model.schemas) out.schemas = model.schemas.filter((s) => filter.schema(s.name));
  if (model.views) out.views = model.views.filter(inSchema);
  if (model.routines) out.routines = model.routines.filter(inSchema);
  if (model.types) out.types = model.types.filter(inSchema);
  if (model.collations) out.collations = model.collations.filter(inSchema);
  if (model.triggers)
    out.triggers = model.triggers.filter(
      (t) => inSchema(t) && filter.table(t.table) && filter.trigger(t.name),
    );
  return out;
}

function filterTable(table: TableModel, filter: ObjectFilter): TableModel {
  return {
    ...table,
    columns: table.columns.filter((column) => filter.column(column.name)),
    indexes: table.indexes.filter((index) => filter.index(index.name)),
  };
}
