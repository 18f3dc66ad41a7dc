// What a generator needs to know of a column: its family of values (the anonymization engine's
// column shapes, plus enums, times and the types only the database can fill), the length a text
// may take, the range of an integer or decimal, and what the table's CHECKs add. Pure.
import { type ColumnShape, columnShape } from '../anonymize/column-type.ts';
import type { ColumnModel, SchemaModel, TableModel } from '../schema/model.ts';
import type { ColumnLimits } from './limits.ts';

export type SeedFamily = ColumnShape['family'] | 'enum' | 'time' | 'float';

export interface SeedColumn {
  column: ColumnModel;
  family: SeedFamily;
  shape: ColumnShape;
  /** Enum labels (PostgreSQL enum types, MySQL enum(…)). */
  enumValues: string[] | null;
  limits: ColumnLimits;
}

function mysqlEnum(type: string): string[] | null {
  const m = /^enum\((.*)\)$/i.exec(type.trim());
  if (!m) return null;
  return [...(m[1] as string).matchAll(/'((?:[^']|'')*)'/g)].map((v) => (v[1] as string).replace(/''/g, "'"));
}

function pgEnum(model: SchemaModel, table: TableModel, type: string): string[] | null {
  const bare = type.replace(/^"|"$/g, '');
  const found = model.enums.find(
    (e) =>
      `${e.schema}.${e.name}` === bare ||
      (e.name === bare && (e.schema === table.schema || e.schema === 'public')),
  );
  return found ? found.values : null;
}

/**
 * Whether `type` is the built-in YEAR (MySQL: `year`, `year(4)`): a type of that name the schema
 * defines itself (a PostgreSQL domain, as Sakila's `year`) is the schema's own, not this one.
 */
function builtInYear(model: SchemaModel, type: string): boolean {
  if (!/^year(\(4\))?$/.test(type)) return false;
  return !model.unmanaged.some((o) => (o.kind === 'domain' || o.kind === 'type') && o.name === 'year');
}

export function seedColumn(
  model: SchemaModel,
  table: TableModel,
  column: ColumnModel,
  limits: ColumnLimits,
): SeedColumn {
  const type = column.type.toLowerCase();
  const shape = columnShape(column.type, column.nullable);
  const enumValues = mysqlEnum(column.type) ?? pgEnum(model, table, column.type);
  let family: SeedFamily = shape.family;
  if (enumValues) family = 'enum';
  else if (/^time( |$|\()/.test(type)) family = 'time';
  else if (/^(real|double|float)/.test(type)) family = 'float';
  else if (builtInYear(model, type))
    return {
      column,
      family: 'integer',
      shape: { ...shape, family: 'integer', min: 1901n, max: 2155n },
      enumValues: null,
      limits,
    };
  return { column, family, shape, enumValues, limits };
}
