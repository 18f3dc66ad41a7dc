// A planned migration: the operations rendered into SQL statements by the dialect, each annotated
// (kind, destructive, transactional, reversible, lossy) with its own rollback, and the rollback of
// the whole migration (every statement's rollback, last statement first). The engine stays pure:
// the dialect is passed in as a DdlRenderer, which the dialects implement (dependencies point in).
import type { DialectName, Flavor, SchemaModel } from '../schema/model.ts';
import { backupTableName } from './backup.ts';
import { operationFacts, type StatementFact } from './facts.ts';
import { invertOperation } from './invert.ts';
import { isDestructive, type MigrationOperation, operationObject } from './operations.ts';
import { type PlanNote, type PlanOptions, planOperations } from './plan.ts';

/** A statement ready to run: the executor needs nothing else. */
export interface ExecutableStatement {
  sql: string;
  /**
   * False for statements that cannot run inside a transaction (PostgreSQL CREATE INDEX CONCURRENTLY,
   * ALTER TYPE … ADD VALUE) and for every DDL statement on MySQL, which commits by itself.
   */
  transactional: boolean;
}

/** A statement of a rollback, annotated as the forward statements are, for the rollback's guard. */
export interface RollbackStatement extends ExecutableStatement {
  /** The operation kind it carries out (`drop_column`, `restore_table`, `drop_backup`…). */
  kind: string;
  /** It drops a table or a column, or replaces a column's stored values (as `destructive` forward). */
  destructive: boolean;
  /** What it destroys, as people read it: `column people.nickname`, `table orders`… */
  destroys: string[];
  /** The backup table it drops once the restore before it has read it (`drop_backup`), or null. */
  drops_backup: string | null;
  /** The object acted on, as a forward statement names it. */
  object: string;
}

export interface RenderedStatement extends ExecutableStatement {
  /** Indexes, in the operations given to the renderer, of the operations this statement carries out. */
  operations: number[];
  /** The operation kind, `alter_column_<change>`, or `alter_table` for several changes in one ALTER. */
  kind: string;
}

export interface RenderContext {
  flavor: Flavor;
}

/** Renders operations into SQL; identifiers always through the dialect's quoting. */
export interface DdlRenderer {
  readonly name: DialectName;
  renderDdl(operations: MigrationOperation[], context: RenderContext): RenderedStatement[];
}

export interface MigrationStatement extends ExecutableStatement {
  index: number;
  kind: string;
  /** The object acted on: `schema.table`, `table.column`, `table.constraint`… */
  object: string;
  /** It drops a table or a column, or replaces a column's stored values. */
  destructive: boolean;
  /** It has a rollback (possibly nothing to undo). */
  reversible: boolean;
  /** The rollback does not give back exactly what was there (`lossy_reason` says why). */
  lossy: boolean;
  lossy_reason: string | null;
  /** The statements that undo this one ([] when there is nothing to undo), or null when it cannot be undone. */
  rollback: RollbackStatement[] | null;
  /** The backup table this statement fills (`backup_drops`), or null. */
  backup: string | null;
  rollback_sql: string | null;
  /**
   * The statement whose rollback also undoes this one (an operation rendered into several
   * statements), or null. Such a statement's own `rollback` is [].
   */
  part_of: number | null;
  facts: StatementFact[];
}

export interface Migration {
  dialect: DialectName;
  operations: MigrationOperation[];
  statements: MigrationStatement[];
  /** The forward script (`generated_sql`). */
  sql: string;
  /** Every statement's rollback, last statement first; null as soon as one statement has none. */
  rollback: RollbackStatement[] | null;
  rollback_sql: string | null;
  /** What the planner saw and did not change (objects outside its scope), and why. */
  notes: PlanNote[];
}

/** Statements joined into one script, one statement per paragraph. */
export function joinSql(statements: { sql: string }[]): string {
  return statements.map((statement) => `${statement.sql};`).join('\n\n');
}

/** Plans, renders and annotates the migration that makes `target` match `source`. */
export function planMigration(
  source: SchemaModel,
  target: SchemaModel,
  renderer: DdlRenderer,
  options: PlanOptions = {},
): Migration {
  const { operations, notes } = planOperations(source, target, options);
  return { ...assembleMigration(operations, renderer, { flavor: target.flavor }), notes };
}

/** Renders the operations and derives every statement's rollback. */
export function assembleMigration(
  operations: MigrationOperation[],
  renderer: DdlRenderer,
  context: RenderContext,
): Omit<Migration, 'notes'> {
  const dialect = renderer.name;
  const rendered = renderer.renderDdl(operations, context);
  // An operation rendered into several statements is undone by the rollback of its first one;
  // the others have nothing of their own to undo (the first one's rollback runs last).
  const owner = new Map<number, number>();
  rendered.forEach((statement, index) => {
    for (const op of statement.operations) if (!owner.has(op)) owner.set(op, index);
  });
  const statements = rendered.map((statement, index): MigrationStatement => {
    const own = statement.operations.filter((op) => owner.get(op) === index).map((op) => operations[op]!);
    const all = statement.operations.map((op) => operations[op]!);
    let rollback: RollbackStatement[] | null = [];
    const lossy: string[] = [];
    const inverse: MigrationOperation[] = [];
    for (const op of [...own].reverse()) {
      const undo = invertOperation(op, dialect);
      if (undo === null) {
        rollback = null;
        break;
      }
      inverse.push(...undo.operations);
      if (undo.lossy) lossy.push(undo.lossy);
    }
    if (rollback !== null && inverse.length > 0) rollback = renderRollback(renderer, inverse, context);
    const backup = all.find((op) => op.kind === 'backup_column' || op.kind === 'backup_table');
    return {
      index,
      sql: statement.sql,
      kind: statement.kind,
      object: all.length > 0 ? operationObject(all[0]!) : '',
      destructive: all.some(isDestructive),
      transactional: statement.transactional,
      reversible: rollback !== null,
      lossy: lossy.length > 0,
      lossy_reason: lossy.length > 0 ? lossy.join('; ') : null,
      rollback,
      rollback_sql: rollback === null ? null : joinSql(rollback),
      part_of:
        own.length === 0 && statement.operations.length > 0 ? owner.get(statement.operations[0]!)! : null,
      facts: own.flatMap((op) => operationFacts(op, dialect)),
      backup: backup && 'backup' in backup ? backupTableName(dialect, backup.backup) : null,
    };
  });
  const rollback = migrationRollback(statements);
  return {
    dialect,
    operations,
    statements,
    sql: joinSql(statements),
    rollback,
    rollback_sql: rollback === null ? null : joinSql(rollback),
  };
}

/** Renders the operations that undo a statement, each statement annotated for the rollback's guard. */
export function renderRollback(
  renderer: DdlRenderer,
  inverse: MigrationOperation[],
  context: RenderContext,
): RollbackStatement[] {
  return renderer.renderDdl(inverse, context).map(({ sql, transactional, kind, operations }) => {
    const ops = operations.map((index) => inverse[index]!);
    const dropped = ops.find((op) => op.kind === 'drop_backup');
    return {
      sql,
      transactional,
      kind,
      destructive: ops.some(isDestructive),
      destroys: ops.filter(isDestructive).map(destroyedObject),
      drops_backup: dropped?.kind === 'drop_backup' ? backupTableName(renderer.name, dropped.backup) : null,
      object: ops[0] ? operationObject(ops[0]) : '',
    };
  });
}

function destroyedObject(op: MigrationOperation): string {
  const what = op.kind === 'drop_table' ? 'table' : op.kind === 'drop_column' ? 'column' : 'data of';
  return `${what} ${operationObject(op)}`;
}

/** The rollback of a list of statements: theirs, last first; null when one of them has none. */
export function migrationRollback(
  statements: { rollback: RollbackStatement[] | null }[],
): RollbackStatement[] | null {
  const out: RollbackStatement[] = [];
  for (const statement of [...statements].reverse()) {
    if (statement.rollback === null) return null;
    out.push(...statement.rollback);
  }
  return out;
}
