// PostgreSQL catalog rows of the objects beyond tables → the model's object lists. Pure, like
// postgres.model.ts. Dependencies on system objects (pg_catalog functions and types) are dropped:
// they never change with a plan.

import type { IndexModel } from '../../engine/schema/model.ts';
import type {
  DependencyRef,
  RoutineModel,
  SchemaObjects,
  TriggerModel,
  ViewModel,
} from '../../engine/schema/objects.ts';
import type { IndexRow } from './postgres.catalog.ts';
import type { ObjectRows } from './postgres.catalog-objects.ts';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const isSystem = (schema: string | null) =>
  schema !== null && (schema === 'information_schema' || schema.startsWith('pg_'));

/** pg_get_viewdef ends the SELECT with a semicolon; the model holds the bare query. */
export function bareQuery(definition: string): string {
  return definition.trim().replace(/;$/, '');
}

export function buildPostgresObjects(rows: ObjectRows): SchemaObjects {
  const dependencies = new Map<string, DependencyRef[]>();
  for (const row of rows.dependencies) {
    if (isSystem(row.schema)) continue;
    const key = `${row.owner_kind}:${row.owner_oid}`;
    const list = dependencies.get(key) ?? [];
    list.push({ kind: row.kind, schema: row.schema, name: row.name, column: row.column });
    dependencies.set(key, list);
  }
  const dependsOn = (kind: string, oid: number) =>
    (dependencies.get(`${kind}:${oid}`) ?? []).sort((a, b) =>
      byText(
        JSON.stringify([a.kind, a.schema, a.name, a.column]),
        JSON.stringify([b.kind, b.schema, b.name, b.column]),
      ),
    );

  const views = new Map<number, ViewModel>();
  for (const row of rows.views)
    views.set(row.oid, {
      schema: row.schema,
      name: row.name,
      materialized: row.materialized,
      definition: bareQuery(row.definition),
      columns: row.columns,
      options: [...row.options].sort(byText),
      indexes: [],
      comment: row.comment,
      depends_on: dependsOn('view', row.oid),
    });
  for (const row of rows.viewIndexes)
    views.get(row.table_oid)?.indexes.push({
      name: row.name,
      columns: row.columns,
      include: row.include,
      unique: row.unique,
      method: row.method,
      predicate: row.predicate,
      ...indexExtras(row),
    });
  for (const view of views.values()) view.indexes.sort((a, b) => byText(a.name, b.name));

  const routines: RoutineModel[] = rows.routines.map((row) => ({
    schema: row.schema,
    name: row.name,
    kind: row.kind,
    arguments: row.arguments,
    result: row.result,
    definition: row.definition.trim(),
    comment: row.comment,
    depends_on: dependsOn('routine', row.oid),
  }));

  const triggers: TriggerModel[] = rows.triggers.map((row) => ({
    schema: row.schema,
    table: row.table_name,
    name: row.name,
    definition: row.definition,
    state: row.state,
    comment: row.comment,
    depends_on: [
      ...(isSystem(row.function_schema)
        ? []
        : [{ kind: 'routine' as const, schema: row.function_schema, name: row.function_name, column: null }]),
      ...dependsOn('trigger', row.oid),
    ],
  }));

  const bySchemaName = (
    a: { schema: string | null; name: string },
    b: { schema: string | null; name: string },
  ) => byText(`${a.schema ?? ''}\n${a.name}`, `${b.schema ?? ''}\n${b.name}`);
  return {
    schemas: rows.schemas
      .map((row) => ({ name: row.name, comment: row.comment }))
      .sort((a, b) => byText(a.name, b.name)),
    views: [...views.values()].sort(bySchemaName),
    routines: routines.sort(bySchemaName),
    triggers: triggers.sort((a, b) =>
      byText(`${a.schema}\n${a.table}\n${a.name}`, `${b.schema}\n${b.table}\n${b.name}`),
    ),
    extensions: rows.extensions
      .map((row) => ({ name: row.name, schema: row.schema, version: row.version }))
      .sort((a, b) => byText(a.name, b.name)),
    collations: rows.collations
      .map((row) => {
        const text = (key: string) => (typeof row.row[key] === 'string' ? (row.row[key] as string) : null);
        const icu = row.row.collprovider === 'i';
        return {
          schema: row.schema,
          name: row.name,
          provider: icu ? 'icu' : 'libc',
          locale: icu ? (text('colliculocale') ?? text('colllocale') ?? text('collcollate')) : null,
          lc_collate: icu ? null : text('collcollate'),
          lc_ctype: icu ? null : text('collctype'),
          deterministic: row.row.collisdeterministic !== false,
        };
      })
      .sort(bySchemaName),
    types: rows.types
      .map((row) => ({
        schema: row.schema,
        name: row.name,
        kind: row.kind,
        base: row.base,
        default: row.default_value,
        collation: row.collation,
        not_null: row.not_null,
        checks: row.checks,
        attributes: row.attributes,
        comment: row.comment,
      }))
      .sort(bySchemaName),
  };
}

/** The options an index has beyond the defaults, set only when it has them (hashes stay stable). */
export function indexExtras(row: IndexRow): Pick<IndexModel, 'nulls_not_distinct' | 'options' | 'comment'> {
  return {
    ...(row.nulls_not_distinct ? { nulls_not_distinct: true } : {}),
    ...(row.options?.length ? { options: row.options } : {}),
    ...(row.comment ? { comment: row.comment } : {}),
  };
}
