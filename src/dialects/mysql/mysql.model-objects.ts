// MySQL/MariaDB rows of views, triggers and routines → the model's object lists. Pure.
//
// The server stores a view's SELECT with every name qualified by the database (`db`.`t`.`c`):
// the qualifier of the connection's own database is removed, so the same view in two databases
// prints the same and recreates in whichever database the plan runs. DEFINER clauses are left out
// (the account that created an object is not schema). Dependencies of views are read from their
// definitions: every `t`.`c` names a column of a relation, every `t` after FROM or JOIN a relation.
import type { DependencyRef, RoutineModel, TriggerModel, ViewModel } from '../../engine/schema/objects.ts';
import type { MysqlObjectRows } from './mysql.catalog-objects.ts';

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

function viewDependencies(definition: string, relations: Map<string, 'table' | 'view'>): DependencyRef[] {
  const out = new Map<string, DependencyRef>();
  const add = (name: string, column: string | null) => {
    const kind = relations.get(name);
    if (kind) out.set(JSON.stringify([name, column]), { kind, schema: null, name, column });
  };
  const ident = '`((?:[^`]|``)*)`';
  for (const match of definition.matchAll(new RegExp(`${ident}\\.${ident}`, 'g')))
    add(match[1]!.replace(/``/g, '`'), match[2]!.replace(/``/g, '`'));
  for (const match of definition.matchAll(new RegExp(`\\b(?:from|join)\\s+${ident}`, 'gi')))
    add(match[1]!.replace(/``/g, '`'), null);
  return [...out.values()].sort((a, b) => byText(JSON.stringify(a), JSON.stringify(b)));
}

export function buildMysqlObjects(
  rows: MysqlObjectRows,
  tables: string[],
  viewColumns: Map<string, { name: string; type: string }[]>,
): { views: ViewModel[]; routines: RoutineModel[]; triggers: TriggerModel[] } {
  const relations = new Map<string, 'table' | 'view'>(tables.map((name) => [name, 'table']));
  for (const row of rows.views) relations.set(row.name, 'view');
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
      depends_on: viewDependencies(definition, relations),
    };
  });
  const routines: RoutineModel[] = rows.routines.map((row) => ({
    schema: null,
    name: row.name,
    kind: row.type === 'PROCEDURE' ? 'procedure' : 'function',
    arguments: '',
    result: row.type === 'FUNCTION' ? row.result : null,
    definition: withoutDefiner(row.create).trim(),
    comment: row.comment || null,
    depends_on: [],
  }));
  const triggers: TriggerModel[] = rows.triggers.map((row) => ({
    schema: null,
    table: row.table_name,
    name: row.name,
    definition: row.create
      ? withoutDefiner(row.create).trim()
      : `CREATE TRIGGER ${quoted(row.name)} ${row.timing} ${row.event} ON ${quoted(row.table_name)} FOR EACH ROW ${row.statement}`,
    state: 'O',
    comment: null,
    depends_on: [],
  }));
  return {
    views: views.sort((a, b) => byText(a.name, b.name)),
    routines: routines.sort((a, b) => byText(`${a.kind}:${a.name}`, `${b.kind}:${b.name}`)),
    triggers: triggers.sort((a, b) => byText(`${a.table}\n${a.name}`, `${b.table}\n${b.name}`)),
  };
}
