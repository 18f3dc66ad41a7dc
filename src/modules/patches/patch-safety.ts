// What makes a patch unsafe to keep, dry-run or execute (docs/contract.md §9), beyond its grammar:
// - a statement that reaches outside the database (server files, large objects, other servers,
//   the operating system) or moves a sequence, written in the statement itself;
// - code the statement sets off that does so: a default, generated column, CHECK, index
//   expression or trigger of a table it writes, the body of a view it writes through, the body of
//   a user routine it (or that code) calls, judged with string literals included;
// - a table it writes (directly or under a view) whose storage engine keeps no transaction, so
//   that neither a dry-run, an all-or-nothing execute nor a rollback could be kept.
// Checked when the patch is saved, and again at dry-run and execute, since the schema may have
// changed in between. Messages name the statement by its number from 1.
import { invalid } from '../../core/errors.ts';
import type { TargetHandle } from '../../dialects/dialect.ts';
import {
  outsideCallReason,
  outsideCalls,
  outsideCallsInBody,
  sequenceMoves,
} from '../../engine/outside-calls.ts';
import { findTable, namedBy } from '../../engine/patch/rollback-key.ts';
import type { DialectName, SchemaModel, TableModel } from '../../engine/schema/model.ts';
import { schemaObjects, type ViewModel } from '../../engine/schema/objects.ts';

/** The part of a patch statement these checks read. */
export interface CheckedStatement {
  index: number;
  table: string;
  sql: string;
}

/** Why a patch is refused: `type` tells clients which kind of refusal (the 422's `type`). */
export interface SafetyRefusal {
  type: 'outside_database' | 'sequence_move' | 'non_transactional_table';
  message: string;
}

const NEVER_OUTSIDE = 'a patch never reaches outside the database';

const describe = (name: string) => `${name} (${outsideCallReason(name)})`;

/** A refusal for outside calls or sequence moves written in the statements, or null. */
export function statementTextRefusal(
  statements: CheckedStatement[],
  dialect: DialectName,
): SafetyRefusal | null {
  for (const statement of statements) {
    const number = statement.index + 1;
    const outside = outsideCalls(statement.sql, dialect);
    if (outside.length > 0)
      return {
        type: 'outside_database',
        message: `Statement ${number} calls ${outside.map(describe).join(', ')}: ${NEVER_OUTSIDE}`,
      };
    const moves = sequenceMoves(statement.sql, dialect);
    if (moves.length > 0)
      return {
        type: 'sequence_move',
        message: `Statement ${number} calls ${moves.join(', ')}, which moves a sequence even when the statement is rolled back; a patch changes rows only`,
      };
  }
  return null;
}

const baseName = (routineName: string) => routineName.split('(')[0]!.toLowerCase();

function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9_$])${escaped}([^a-z0-9_$]|$)`).test(text.toLowerCase());
}

/** The views a name reaches through other views, and the tables under them all. */
function writtenRelations(model: SchemaModel, name: string): { tables: TableModel[]; views: ViewModel[] } {
  const views = schemaObjects(model).views;
  const tables: TableModel[] = [];
  const throughViews: ViewModel[] = [];
  const visit = (named: { schema: string | null; name: string }, depth: number) => {
    const table = model.tables.find((t) => t.name === named.name && t.schema === named.schema);
    if (table) {
      if (!tables.includes(table)) tables.push(table);
      return;
    }
    const view = views.find((v) => v.name === named.name && v.schema === named.schema);
    if (!view || throughViews.includes(view) || depth > 16) return;
    throughViews.push(view);
    for (const dependency of view.depends_on)
      if (dependency.kind === 'table' || dependency.kind === 'view') visit(dependency, depth + 1);
  };
  const table = findTable(model, name);
  if (table) tables.push(table);
  else {
    const view = views.find((v) => namedBy(model, name, v));
    if (view) visit(view, 0);
  }
  return { tables, views: throughViews };
}

/** The code that runs when a table is written: defaults, generated columns, checks, index expressions, triggers. */
function codeOnWrite(model: SchemaModel, table: TableModel): { what: string; text: string }[] {
  const code: { what: string; text: string }[] = [];
  for (const column of table.columns) {
    if (column.default)
      code.push({ what: `the default of ${table.name}.${column.name}`, text: column.default });
    if (column.generated)
      code.push({
        what: `the generated column ${table.name}.${column.name}`,
        text: column.generated.expression,
      });
    if (column.check) code.push({ what: `the check of ${table.name}.${column.name}`, text: column.check });
  }
  for (const check of table.check_constraints)
    code.push({ what: `the check ${check.name} of ${table.name}`, text: check.expression });
  for (const index of table.indexes)
    code.push({
      what: `the index ${index.name} of ${table.name}`,
      text: [...index.columns, index.predicate ?? ''].join(' '),
    });
  for (const trigger of schemaObjects(model).triggers)
    if (trigger.table === table.name && trigger.schema === table.schema)
      code.push({ what: `the trigger ${trigger.name} of ${table.name}`, text: trigger.definition });
  return code;
}

/** A refusal when code the statements set off reaches outside the database, or null. */
export function schemaCodeRefusal(statements: CheckedStatement[], model: SchemaModel): SafetyRefusal | null {
  const dialect = model.dialect;
  const routines = schemaObjects(model).routines;
  for (const statement of statements) {
    const { tables, views } = writtenRelations(model, statement.table);
    const code = [
      ...views.map((view) => ({ what: `the view ${view.name} it writes through`, text: view.definition })),
      ...tables.flatMap((table) => codeOnWrite(model, table)),
    ];
    // The routines the statement or that code calls, and the ones those call, each once.
    const pending = [statement.sql, ...code.map((c) => c.text)];
    const called = new Set<(typeof routines)[number]>();
    while (pending.length > 0) {
      const text = pending.pop()!;
      for (const routine of routines)
        if (!called.has(routine) && mentions(text, baseName(routine.name))) {
          called.add(routine);
          pending.push(routine.definition);
          code.push({ what: `the ${routine.kind} ${baseName(routine.name)}`, text: routine.definition });
        }
    }
    for (const { what, text } of code) {
      const outside = outsideCallsInBody(text, dialect);
      if (outside.length > 0)
        return {
          type: 'outside_database',
          message: `Statement ${statement.index + 1} runs ${what}, which calls ${outside.map(describe).join(', ')}: ${NEVER_OUTSIDE}`,
        };
    }
  }
  return null;
}

/** The connection's tables whose engine keeps no transaction, by name, with the engine. */
export async function nonTransactionalTables(handle: TargetHandle): Promise<Map<string, string>> {
  const sql = handle.sql.capabilities.nonTransactionalTablesSql;
  if (sql === null) return new Map();
  const { rows } = await handle.transaction((tx) => tx.query(sql), { commit: false, readOnly: true });
  return new Map(rows.map((row) => [String(row.table_name), String(row.engine)]));
}

/** A refusal when a statement writes a table (directly or under a view) whose engine keeps no transaction. */
export function engineRefusal(
  statements: CheckedStatement[],
  model: SchemaModel,
  engines: Map<string, string>,
): SafetyRefusal | null {
  if (engines.size === 0) return null;
  for (const statement of statements)
    for (const table of writtenRelations(model, statement.table).tables) {
      const engine = engines.get(table.name);
      if (engine)
        return {
          type: 'non_transactional_table',
          message: `Statement ${statement.index + 1} writes ${table.name}, whose engine ${engine} keeps no transaction: neither a dry-run, an all-or-nothing execute nor a rollback could be kept; convert it to a transactional engine (InnoDB) first`,
        };
    }
  return null;
}

/** Every refusal above on the target as it is now, or null when the patch is safe to keep or run. */
export async function liveRefusal(
  handle: TargetHandle,
  statements: CheckedStatement[],
  model: SchemaModel,
): Promise<SafetyRefusal | null> {
  return (
    statementTextRefusal(statements, model.dialect) ??
    engineRefusal(statements, model, await nonTransactionalTables(handle)) ??
    schemaCodeRefusal(statements, model)
  );
}

/** The target's model, or a 422 on `body.sql` when the patch is unsafe on it (see liveRefusal). */
export async function introspectSafe(
  handle: TargetHandle,
  statements: CheckedStatement[],
): Promise<SchemaModel> {
  const model = await handle.introspect();
  const refusal = await liveRefusal(handle, statements, model);
  if (refusal) throw invalid(['body', 'sql'], refusal.message, refusal.type);
  return model;
}
