// create_tables (docs/contract.md §9.3): the copied tables the target lacks are created from the source's schema
// before the load, through the migration planner and the target's own DDL renderer (the same path
// as a schema migration), with the types mapped between the engines (engine/bridge/translate-table.ts).
import type { MigrationDialect, TargetHandle } from '../../dialects/dialect.ts';
import { displayName, targetTableOf } from '../../engine/bridge/copy-plan.ts';
import { translateTable } from '../../engine/bridge/translate-table.ts';
import { planMigration } from '../../engine/migration/migration.ts';
import type { MigrationOperation } from '../../engine/migration/operations.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';
import type { SchemaModel, TableModel } from '../../engine/schema/model.ts';
import { RunFailed } from '../runs/run-handler.ts';

/** Creates the missing tables; returns their names as the target now calls them. */
export async function createMissingTables(input: {
  source: SchemaModel;
  target: SchemaModel;
  tables: TableModel[];
  dialect: MigrationDialect;
  handle: TargetHandle;
  kindOf(type: string): ValueKind;
}): Promise<string[]> {
  const { source, target, tables, dialect } = input;
  const missing = tables.filter((t) => targetTableOf(t, source, target) === undefined);
  if (missing.length === 0) return [];
  const sameEngine = source.dialect === target.dialect;
  // Where the target keeps each copied table: where it is already, or the engine's default place.
  const defaultSchema = dialect.capabilities.schemasInDatabase ? 'public' : null;
  const schemaOf = (ref: { schema: string | null; name: string }) => {
    const copied = tables.find(
      (t) => displayName(t) === displayName(ref) || (t.name === ref.name && !sameEngine),
    );
    if (!copied) return undefined;
    const existing = targetTableOf(copied, source, target);
    if (existing) return existing.schema;
    return sameEngine ? copied.schema : defaultSchema;
  };
  const translated = missing.map((t) =>
    translateTable(t, {
      from: source.dialect,
      to: target.dialect,
      kindOf: input.kindOf,
      columnType: dialect.rows.columnType,
      rules: dialect.rows.createdTables,
      schemaOf,
    }),
  );
  const used = (name: string, schema: string) =>
    translated.some((t) => t.columns.some((c) => c.type === name || c.type === `${schema}.${name}`));
  const desired: SchemaModel = {
    ...target,
    tables: [...target.tables, ...translated],
    enums: sameEngine
      ? [
          ...target.enums,
          ...source.enums.filter(
            (e) =>
              !target.enums.some((x) => x.schema === e.schema && x.name === e.name) && used(e.name, e.schema),
          ),
        ]
      : target.enums,
    sequences: sameEngine
      ? [
          ...target.sequences,
          ...source.sequences.filter(
            (s) =>
              !target.sequences.some((x) => x.schema === s.schema && x.name === s.name) &&
              s.used_by.some((u) => translated.some((t) => t.name === u.table)),
          ),
        ]
      : target.sequences,
  };
  const migration = planMigration(desired, target, dialect, { include_tables: translated.map(displayName) });
  const applied = await input.handle.apply(migration.statements);
  if (applied.failed)
    throw new RunFailed(
      `Creating the missing tables failed at statement ${applied.failed.index + 1} (${migration.statements[applied.failed.index]?.sql}): ${applied.failed.error.message}; nothing was copied`,
      { tables_created: [] },
    );
  return translated.map(displayName);
}

/** Statements run in a table's load transaction, around its rows. */
export interface KeysAroundLoad {
  /** Take the primary key, unique constraints and indexes off the (empty) table. */
  before: string[];
  /** Build them again, each in one pass over the loaded rows. */
  after: string[];
}

/**
 * For the tables this run created (empty, so taking their keys off costs nothing), the statements
 * that build the primary key, unique constraints and indexes after the load instead of row by row
 * during it: a sorted build in one pass is cheaper than maintaining each index per row. In
 * `replace` mode, the tables that were there (`replaced`, emptied in the load transaction) have
 * their plain (not unique) indexes treated the same way; their primary key and unique constraints
 * stay, since keys outside the copy may rely on them. Only where DDL is transactional
 * (PostgreSQL): both run in the table's load transaction, so a failed, cancelled or killed load
 * leaves the table exactly as it was, every index in place. Not for `upsert`, which needs the
 * primary key while it loads, nor for `append`, which would rebuild indexes over rows it did not
 * write.
 */
export function keysAroundLoad(
  created: TableModel[],
  dialect: MigrationDialect,
  context: { flavor: SchemaModel['flavor']; mode: string },
  replaced: TableModel[] = [],
): Map<string, KeysAroundLoad> {
  const around = new Map<string, KeysAroundLoad>();
  if (!dialect.capabilities.transactionalDdl || context.mode === 'upsert') return around;
  const render = (operations: MigrationOperation[]) =>
    dialect.renderDdl(operations, { flavor: context.flavor }).map((statement) => statement.sql);
  if (context.mode === 'replace')
    for (const table of replaced) {
      const plain = table.indexes.filter((index) => !index.unique);
      if (plain.length === 0 || table.partitioning || (table.inherits ?? []).length > 0) continue;
      const ref = { schema: table.schema, name: table.name };
      around.set(displayName(table), {
        before: render(
          plain.map((index) => ({ kind: 'drop_index', table: ref, index, concurrently: false })),
        ),
        after: render(
          plain.map((index) => ({ kind: 'create_index', table: ref, index, concurrently: false })),
        ),
      });
    }
  for (const table of created) {
    // A partitioned table's indexes and its partitions' are attached to each other, and an
    // inheritance child's keys stand apart from its parent's: such tables keep their keys.
    if (table.partitioning || (table.inherits ?? []).length > 0) continue;
    const ref = { schema: table.schema, name: table.name };
    const before: MigrationOperation[] = [
      ...table.indexes.map((index) => ({
        kind: 'drop_index' as const,
        table: ref,
        index,
        concurrently: false,
      })),
      ...table.unique_constraints.map((constraint) => ({
        kind: 'drop_unique' as const,
        table: ref,
        constraint,
      })),
      ...(table.primary_key
        ? [{ kind: 'drop_primary_key' as const, table: ref, key: table.primary_key }]
        : []),
    ];
    if (before.length === 0) continue;
    const after: MigrationOperation[] = [
      ...(table.primary_key
        ? [{ kind: 'add_primary_key' as const, table: ref, key: table.primary_key }]
        : []),
      ...table.unique_constraints.map((constraint) => ({
        kind: 'add_unique' as const,
        table: ref,
        constraint,
      })),
      ...table.indexes.map((index) => ({
        kind: 'create_index' as const,
        table: ref,
        index,
        concurrently: false,
      })),
    ];
    around.set(displayName(table), { before: render(before), after: render(after) });
  }
  return around;
}
