// MySQL/MariaDB rows of views, triggers and routines → the model's object lists. Pure.
//
// The server stores a view's SELECT with every name qualified by the database (`db`.`t`.`c`):
// the qualifier of the connection's own database is removed, so the same view in two databases
// prints the same and recreates in whichever database the plan runs. DEFINER clauses are left out
// (the account that created an object is not schema). What views, routines and triggers read is
// read from their text (mysql.model-dependencies.ts).
import type { RoutineModel, TriggerModel, ViewModel } from '../../engine/schema/objects.ts';
import type { MysqlObjectRows } from './mysql.catalog-objects.ts';
import { type KnownObjects, namedDependencies } from './mysql.model-dependencies.ts';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const quoted = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/** The definition without the qualifier of the current database. */
export function unqualified(definition: string, database: string): string {
  return definition.split(`${quoted(database)}.`).join('');
}

/** `DEFINER=`user`@`host` ` removed from a SHOW CREATE text. */
export function withoutDefiner(text: string): string {
  return text.replace(/\s+DEFINER\s*=\s*(?:`(?:[^`]|``)*`|'[^']*'|\S+)@(?:`(?:[^`]|``)*`|'[^']*'|\S+)/i, '');
}

export function buildMysqlObjects(
  rows: MysqlObjectRows,
  tables: string[],
  viewColumns: Map<string, { name: string; type: string }[]>,
): { views: ViewModel[]; routines: RoutineModel[]; triggers: TriggerModel[] } {
  const relations = new Map<string, 'table' | 'view'>(tables.map((name) => [name, 'table']));
  for (const row of rows.views) relations.set(row.name, 'view');
  const known: KnownObjects = {
    database:
      rows.views[0]?.current_schema ??
      rows.routines[0]?.current_schema ??
      rows.triggers[0]?.current_schema ??
      null,
    relations,
    routines: new Map(rows.routines.map((row) => [row.name.toLowerCase(), row.name])),
  };
  const views: ViewModel[] = rows.views.map((row) => {
    const definition = unqualified(row.definition, row.current_schema);
    const options: string[] = [];
    if (row.check_option && row.check_option !== 'NONE')
      options.push(`check_option=${row.check_option.toLowerCase()}`);
    if (row.security_type === 'INVOKER') options.push('security=invoker');
    if (row.algorithm && row.algorithm !== 'UNDEFINED')
      options.push(`algorithm=${row.algorithm.toLowerCase()}`);
    return {
      schema: null,
      name: row.name,
      materialized: false,
      definition,
      columns: viewColumns.get(row.name) ?? [],
      options,
      indexes: [],
      comment: null,
      depends_on: namedDependencies(definition, known, { self: { kind: 'view', name: row.name } }),
    };
  });
  const routines: RoutineModel[] = rows.routines.map((row) => {
    const definition = withoutDefiner(row.create).trim();
    return {
      schema: null,
      name: row.name,
      kind: row.type === 'PROCEDURE' ? 'procedure' : 'function',
      arguments: '',
      result: row.type === 'FUNCTION' ? row.result : null,
      definition,
      comment: row.comment || null,
      depends_on: namedDependencies(definition, known, {
        self: { kind: 'routine', name: row.name },
        columns: false,
      }),
    };
  });
  const triggers: TriggerModel[] = rows.triggers.map((row) => ({
    schema: null,
    table: row.table_name,
    name: row.name,
    definition: row.create
      ? withoutDefiner(row.create).trim()
      : `CREATE TRIGGER ${quoted(row.name)} ${row.timing} ${row.event} ON ${quoted(row.table_name)} FOR EACH ROW ${row.statement}`,
    state: 'O',
    comment: null,
    // The body only: its own table is read anyway (create_trigger needs it).
    depends_on: namedDependencies(row.statement, known, { columns: false }),
  }));
  return {
    views: views.sort((a, b) => byText(a.name, b.name)),
    routines: routines.sort((a, b) => byText(`${a.kind}:${a.name}`, `${b.kind}:${b.name}`)),
    triggers: triggers.sort((a, b) => byText(`${a.table}\n${a.name}`, `${b.table}\n${b.name}`)),
  };
}
