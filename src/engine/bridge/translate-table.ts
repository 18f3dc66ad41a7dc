// create_tables across engines (docs/contract.md §9.3): a source table's model rewritten as the target engine
// would hold it, for the migration planner and the target's DDL renderer to create. Between two
// engines of one kind the model is kept as it is. Across engines: types through the target's
// mapping (RowFormat.columnType, documented in the README); defaults, checks, exclusion
// constraints, generated expressions and collations are left out (their SQL is the source
// engine's); PostgreSQL identity/serial keys and MySQL AUTO_INCREMENT become each other; indexes
// keep their plain-column parts only; foreign keys are kept among the copied tables. MySQL cannot
// index unbounded text, so a text column in a key or index becomes varchar(255) there. Pure.
import type { ValueKind } from '../rows/value-kind.ts';
import type { ColumnModel, DialectName, TableModel } from '../schema/model.ts';

/** What a table created by a copy from the other engine needs of the target's (RowFormat.createdTables). */
export interface CreatedTableRules {
  /** How a generated key column (serial, identity, AUTO_INCREMENT) is kept: an identity column, or AUTO_INCREMENT on a primary key column. */
  generatedKey: 'identity' | 'auto_increment';
  /** The type a text column takes where a key or index uses it (the engine cannot index unbounded text), or null. */
  keyedTextType: string | null;
  /** A plain column as an index's key part: quoted always (case, reserved words), or bare as the model keeps it. */
  quotedKeyParts: boolean;
}

export interface TranslateContext {
  from: DialectName;
  to: DialectName;
  /** The target engine's rules for the tables it creates. */
  rules: CreatedTableRules;
  kindOf(type: string): ValueKind;
  columnType(kind: ValueKind, type: string): string;
  /** The target schema of a copied table (by source `schema.table` or `table`), or undefined when it is not copied. */
  schemaOf(table: { schema: string | null; name: string }): string | null | undefined;
}

/** A key part that is a column (PostgreSQL's model quotes where needed; MySQL's never does). */
const COLUMN_PART = /^(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")$/;

/** A column key part written for the target: quoted where its rules say so, bare otherwise. */
function keyPartFor(part: string, rules: CreatedTableRules): string {
  const bare = part.startsWith('"') ? part.slice(1, -1).replace(/""/g, '"') : part;
  return rules.quotedKeyParts ? `"${bare.replace(/"/g, '""')}"` : bare;
}

export function translateTable(table: TableModel, ctx: TranslateContext): TableModel {
  const schema = ctx.schemaOf(table) ?? null;
  if (ctx.from === ctx.to) return { ...table, schema };
  const keyed = new Set([
    ...(table.primary_key?.columns ?? []),
    ...table.unique_constraints.flatMap((u) => u.columns),
    ...table.indexes.flatMap((i) => i.columns),
    ...table.foreign_keys.flatMap((f) => f.columns),
  ]);
  const columns: ColumnModel[] = table.columns.map((column) => {
    let type = ctx.columnType(ctx.kindOf(column.type), column.type);
    if (ctx.rules.keyedTextType !== null && keyed.has(column.name) && /text$/.test(type))
      type = ctx.rules.keyedTextType;
    const generatedKey =
      column.identity !== null || column.auto_increment || (column.default ?? '').includes('nextval(');
    const inKey = table.primary_key?.columns.includes(column.name) ?? false;
    // Checks are left out across dialects (as the table's are), and storage is PostgreSQL's own.
    const { check: _check, storage: _storage, compression: _compression, ...portable } = column;
    return {
      ...portable,
      type,
      default: null,
      default_normalized: null,
      identity: ctx.rules.generatedKey === 'identity' && generatedKey ? 'by_default' : null,
      auto_increment: ctx.rules.generatedKey === 'auto_increment' && generatedKey && inKey,
      generated: null,
      on_update: null,
      collation: null,
    };
  });
  // MySQL names keys per table (every primary key is `PRIMARY`); PostgreSQL per schema.
  const local = (name: string) =>
    (name.startsWith(`${table.name}_`) ? name : `${table.name}_${name}`).slice(0, 63);
  return {
    ...table,
    schema,
    columns,
    primary_key: table.primary_key && {
      ...table.primary_key,
      name: `${table.name}_pkey`.slice(0, 63),
      deferrable: false,
      initially_deferred: false,
    },
    unique_constraints: table.unique_constraints.map((u) => ({
      ...u,
      name: local(u.name),
      deferrable: false,
      initially_deferred: false,
    })),
    check_constraints: [],
    exclusion_constraints: [],
    indexes: table.indexes
      .filter(
        (i) => i.columns.every((c) => COLUMN_PART.test(c)) && i.predicate === null && i.include.length === 0,
      )
      .map((i) => ({
        ...i,
        name: local(i.name),
        method: 'btree',
        columns: i.columns.map((c) => keyPartFor(c, ctx.rules)),
      })),
    foreign_keys: table.foreign_keys.flatMap((fk) => {
      const referenced = ctx.schemaOf({
        schema: fk.referenced_schema ?? table.schema,
        name: fk.referenced_table,
      });
      if (referenced === undefined) return [];
      return [{ ...fk, referenced_schema: referenced, deferrable: false, initially_deferred: false }];
    }),
  };
}
