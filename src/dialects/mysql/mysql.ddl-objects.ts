// MySQL/MariaDB DDL for views, triggers and stored routines. Definitions are the server's own text
// (the view's SELECT with the database qualifier removed, SHOW CREATE without DEFINER, a trigger
// rebuilt from information_schema): rendered as they are. Objects are created as the connecting
// account (DEFINER is left to the server). MySQL has no CREATE OR REPLACE for routines or triggers:
// a changed one is dropped and created; views are replaced in place.
import mysql from 'mysql2/promise';
import type { MigrationOperation } from '../../engine/migration/operations.ts';
import type { ViewModel } from '../../engine/schema/objects.ts';

const id = (name: string) =>
  (mysql.escapeId as (value: string, forbidQualified: boolean) => string)(name, true);
const lit = (value: string) => mysql.escape(value);

const VIEW_ALGORITHMS: Record<string, string> = {
  'algorithm=merge': 'MERGE',
  'algorithm=temptable': 'TEMPTABLE',
};

function viewSql(view: ViewModel, replace: boolean): string {
  const algorithm = view.options.map((option) => VIEW_ALGORITHMS[option]).find(Boolean);
  const invoker = view.options.includes('security=invoker') ? 'SQL SECURITY INVOKER ' : '';
  const check = view.options.find((option) => option.startsWith('check_option='));
  const option = check ? ` WITH ${check.slice('check_option='.length).toUpperCase()} CHECK OPTION` : '';
  return `CREATE ${replace ? 'OR REPLACE ' : ''}${algorithm ? `ALGORITHM=${algorithm} ` : ''}${invoker}VIEW ${id(view.name)} AS ${view.definition}${option}`;
}

const routineKeyword = (kind: 'function' | 'procedure') => (kind === 'procedure' ? 'PROCEDURE' : 'FUNCTION');

/** The statements of an object operation, or null when the operation is not one of these. */
export function renderMysqlObject(op: MigrationOperation): string[] | null {
  switch (op.kind) {
    case 'create_view':
      return [viewSql(op.view, false)];
    case 'replace_view':
      return [viewSql(op.after, true)];
    case 'drop_view':
      return [`DROP VIEW ${id(op.view.name)}`];
    case 'create_routine':
      return [op.routine.definition];
    case 'drop_routine':
      return [`DROP ${routineKeyword(op.routine.kind)} ${id(op.routine.name)}`];
    case 'replace_routine':
      return [`DROP ${routineKeyword(op.before.kind)} ${id(op.before.name)}`, op.after.definition];
    case 'create_trigger':
      return [op.trigger.definition];
    case 'drop_trigger':
      return [`DROP TRIGGER ${id(op.trigger.name)}`];
    case 'comment_object':
      if (op.target.type !== 'function' && op.target.type !== 'procedure') return null;
      return [`ALTER ${routineKeyword(op.target.type)} ${id(op.target.name)} COMMENT ${lit(op.after ?? '')}`];
    default:
      return null;
  }
}
