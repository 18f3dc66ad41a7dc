// The canonical form of the objects beyond tables (objects.ts), for hash.ts: field by field, sorted
// by key, dependencies left out (they are recorded, not compared). A section without objects is
// left out, and so is the default `public` schema, so a schema with none of
// these objects hashes as it did before the model knew them (version.ts).
import { objectKey, type SchemaObjectFields, schemaObjects, triggerKey } from './objects.ts';

const sortBy = <T>(items: T[], key: (item: T) => string) =>
  [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

const section = (name: string, items: unknown[]) => (items.length === 0 ? {} : { [name]: items });

export function canonicalObjects(model: SchemaObjectFields): Record<string, unknown> {
  const objects = schemaObjects(model);
  // Every new database has it, with PostgreSQL's own comment.
  const isDefault = (s: { name: string; comment: string | null }) =>
    s.name === 'public' && (s.comment === null || s.comment === 'standard public schema');
  return {
    ...section(
      'schemas',
      sortBy(
        objects.schemas.filter((s) => !isDefault(s)),
        (s) => s.name,
      ).map((s) => ({
        name: s.name,
        comment: s.comment,
      })),
    ),
    ...section(
      'views',
      sortBy(objects.views, objectKey).map((v) => ({
        schema: v.schema,
        name: v.name,
        materialized: v.materialized,
        definition: v.definition,
        columns: v.columns.map((c) => ({ name: c.name, type: c.type })),
        options: [...v.options].sort(),
        indexes: sortBy(v.indexes, (i) => i.name).map((i) => ({
          name: i.name,
          columns: i.columns,
          include: i.include,
          unique: i.unique,
          method: i.method,
          predicate: i.predicate,
        })),
        comment: v.comment,
      })),
    ),
    ...section(
      'routines',
      sortBy(objects.routines, objectKey).map((r) => ({
        schema: r.schema,
        name: r.name,
        kind: r.kind,
        arguments: r.arguments,
        result: r.result,
        definition: r.definition,
        comment: r.comment,
      })),
    ),
    ...section(
      'triggers',
      sortBy(objects.triggers, triggerKey).map((t) => ({
        schema: t.schema,
        table: t.table,
        name: t.name,
        definition: t.definition,
        state: t.state,
        comment: t.comment,
      })),
    ),
    ...section(
      'types',
      sortBy(objects.types, (t) => `${t.schema}.${t.name}`).map((t) => ({
        schema: t.schema,
        name: t.name,
        kind: t.kind,
        base: t.base,
        default: t.default,
        collation: t.collation,
        not_null: t.not_null,
        checks: sortBy(t.checks, (c) => c.name).map((c) => ({ name: c.name, definition: c.definition })),
        attributes: t.attributes.map((a) => ({ name: a.name, type: a.type })),
        comment: t.comment,
      })),
    ),
    ...section(
      'extensions',
      sortBy(objects.extensions, (e) => e.name).map((e) => ({
        name: e.name,
        schema: e.schema,
        version: e.version,
      })),
    ),
  };
}
