// PostgreSQL DDL for the objects beyond tables: schemas, views and materialized views, functions
// and procedures, triggers, extensions, comments on them. Definitions are the server's own output
// (pg_get_viewdef, pg_get_functiondef, pg_get_triggerdef, reloptions), introspected with every name
// qualified: they are rendered as they are, never text a user typed. Names go through pg's quoting.

import type { CommentTarget, MigrationOperation } from '../../engine/migration/operations.ts';
import type { IndexModel } from '../../engine/schema/model.ts';
import type { RoutineModel, TriggerModel, TriggerState, ViewModel } from '../../engine/schema/objects.ts';
import { indexTail } from './postgres.ddl-indexes.ts';
import { id, lit } from './postgres.ddl-names.ts';
import { alterUserType, createUserType, dropUserType } from './postgres.ddl-types.ts';

const qualified = (schema: string | null, name: string) =>
  schema === null ? id(name) : `${id(schema)}.${id(name)}`;

/** `f(a integer)` → `"schema"."f"(a integer)`: the argument list is the server's, names are quoted. */
export function routineName(routine: { schema: string | null; name: string }): string {
  const open = routine.name.indexOf('(');
  if (open < 0) return qualified(routine.schema, routine.name);
  return `${qualified(routine.schema, routine.name.slice(0, open))}${routine.name.slice(open)}`;
}

const viewKeyword = (view: { materialized: boolean }) => (view.materialized ? 'MATERIALIZED VIEW' : 'VIEW');
const withOptions = (options: string[]) => (options.length === 0 ? '' : ` WITH (${options.join(', ')})`);
const commentText = (comment: string | null) => (comment === null ? 'NULL' : lit(comment));

export function commentOn(target: CommentTarget, comment: string | null): string {
  const text = commentText(comment);
  switch (target.type) {
    case 'schema':
      return `COMMENT ON SCHEMA ${id(target.name)} IS ${text}`;
    case 'view':
      return `COMMENT ON VIEW ${qualified(target.schema, target.name)} IS ${text}`;
    case 'materialized_view':
      return `COMMENT ON MATERIALIZED VIEW ${qualified(target.schema, target.name)} IS ${text}`;
    case 'function':
      return `COMMENT ON FUNCTION ${routineName(target)} IS ${text}`;
    case 'procedure':
      return `COMMENT ON PROCEDURE ${routineName(target)} IS ${text}`;
    case 'trigger':
      return `COMMENT ON TRIGGER ${id(target.name)} ON ${qualified(target.schema, target.table ?? '')} IS ${text}`;
    case 'constraint':
      return `COMMENT ON CONSTRAINT ${id(target.name)} ON ${qualified(target.schema, target.table ?? '')} IS ${text}`;
    case 'index':
      return `COMMENT ON INDEX ${qualified(target.schema, target.name)} IS ${text}`;
    case 'sequence':
      return `COMMENT ON SEQUENCE ${qualified(target.schema, target.name)} IS ${text}`;
    case 'type':
      return `COMMENT ON TYPE ${qualified(target.schema, target.name)} IS ${text}`;
  }
}

function viewIndex(view: ViewModel, index: IndexModel): string {
  let sql = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${id(index.name)} ON ${qualified(view.schema, view.name)}`;
  sql += ` USING ${id(index.method)} (${index.columns.join(', ')})`;
  return sql + indexTail(index);
}

function createView(view: ViewModel): string[] {
  const out = [
    `CREATE ${viewKeyword(view)} ${qualified(view.schema, view.name)}${withOptions(view.options)} AS\n${view.definition}`,
  ];
  for (const index of view.indexes) out.push(viewIndex(view, index));
  if (view.comment !== null)
    out.push(
      commentOn(
        {
          type: view.materialized ? 'materialized_view' : 'view',
          schema: view.schema,
          name: view.name,
          table: null,
        },
        view.comment,
      ),
    );
  return out;
}

function createRoutine(routine: RoutineModel): string[] {
  // Bodies are checked at creation; a SQL function may read a table the plan creates later (as
  // pg_dump does, the check is left to the first call).
  const out = ['SET LOCAL check_function_bodies = off', routine.definition];
  if (routine.comment !== null)
    out.push(
      commentOn(
        { type: routine.kind, schema: routine.schema, name: routine.name, table: null },
        routine.comment,
      ),
    );
  return out;
}

function triggerState(trigger: TriggerModel, state: TriggerState): string {
  const how = { O: 'ENABLE', D: 'DISABLE', R: 'ENABLE REPLICA', A: 'ENABLE ALWAYS' }[state];
  return `ALTER TABLE ${qualified(trigger.schema, trigger.table)} ${how} TRIGGER ${id(trigger.name)}`;
}

function createTrigger(trigger: TriggerModel): string[] {
  const out = [trigger.definition];
  if (trigger.state !== 'O') out.push(triggerState(trigger, trigger.state));
  if (trigger.comment !== null)
    out.push(
      commentOn(
        { type: 'trigger', schema: trigger.schema, name: trigger.name, table: trigger.table },
        trigger.comment,
      ),
    );
  return out;
}

/** The statements of an object operation, or null when the operation is not one of these. */
export function renderObjectOperation(op: MigrationOperation): string[] | null {
  switch (op.kind) {
    case 'alter_extension':
      return [`ALTER EXTENSION ${id(op.name)} UPDATE TO ${lit(op.after)}`];
    case 'create_schema': {
      const out = [`CREATE SCHEMA ${id(op.schema.name)}`];
      if (op.schema.comment !== null)
        out.push(
          commentOn({ type: 'schema', schema: null, name: op.schema.name, table: null }, op.schema.comment),
        );
      return out;
    }
    case 'drop_schema':
      return [`DROP SCHEMA ${id(op.schema.name)}`];
    case 'create_collation': {
      const c = op.collation;
      const options =
        c.provider === 'icu'
          ? [`provider = icu`, `locale = ${lit(c.locale ?? '')}`]
          : [`lc_collate = ${lit(c.lc_collate ?? '')}`, `lc_ctype = ${lit(c.lc_ctype ?? '')}`];
      if (!c.deterministic) options.push('deterministic = false');
      return [`CREATE COLLATION ${qualified(c.schema, c.name)} (${options.join(', ')})`];
    }
    case 'drop_collation':
      return [`DROP COLLATION ${qualified(op.collation.schema, op.collation.name)}`];
    case 'create_type':
      return createUserType(op.type);
    case 'drop_type':
      return dropUserType(op.type);
    case 'alter_type':
      return alterUserType(op.before, op.after);
    case 'comment_object':
      return [commentOn(op.target, op.after)];
    case 'create_view':
      return createView(op.view);
    case 'drop_view':
      return [`DROP ${viewKeyword(op.view)} ${qualified(op.view.schema, op.view.name)}`];
    case 'replace_view':
      return [
        `CREATE OR REPLACE VIEW ${qualified(op.after.schema, op.after.name)}${withOptions(op.after.options)} AS\n${op.after.definition}`,
      ];
    case 'create_routine':
      return createRoutine(op.routine);
    case 'drop_routine':
      return [
        `DROP ${op.routine.kind === 'procedure' ? 'PROCEDURE' : 'FUNCTION'} ${routineName(op.routine)}`,
      ];
    case 'replace_routine':
      return ['SET LOCAL check_function_bodies = off', op.after.definition];
    case 'create_trigger':
      return createTrigger(op.trigger);
    case 'drop_trigger':
      return [`DROP TRIGGER ${id(op.trigger.name)} ON ${qualified(op.trigger.schema, op.trigger.table)}`];
    case 'set_trigger_state':
      return [triggerState(op.trigger, op.after)];
    default:
      return null;
  }
}
