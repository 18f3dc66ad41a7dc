// information_schema queries for the objects beyond tables on MySQL/MariaDB: views, triggers and
// stored routines of the connection's database. The full text of routines and triggers comes from
// SHOW CREATE (one per object: information_schema has neither a routine's parameter list on both
// engines nor a trigger's statement as written), the lists set-based.

/** MariaDB lists a view's ALGORITHM; MySQL 8 has no such column (only SHOW CREATE VIEW prints it). */
import type { Flavor } from '../../engine/schema/model.ts';

export function viewsSql(flavor: Flavor): string {
  const algorithm = flavor === 'mariadb' ? 'ALGORITHM' : 'null';
  return `
  select TABLE_NAME as name, VIEW_DEFINITION as definition, CHECK_OPTION as check_option,
    SECURITY_TYPE as security_type, ${algorithm} as algorithm, database() as current_schema
  from information_schema.VIEWS
  where TABLE_SCHEMA = database()`;
}

export interface ViewRow {
  name: string;
  definition: string;
  check_option: string;
  security_type: string;
  /** UNDEFINED, MERGE or TEMPTABLE (MariaDB); null on MySQL 8. */
  algorithm?: string | null;
  current_schema: string;
}

export const TRIGGERS_SQL = `
  select TRIGGER_NAME as name, EVENT_OBJECT_TABLE as table_name, EVENT_MANIPULATION as event,
    ACTION_TIMING as timing, ACTION_STATEMENT as statement, ACTION_ORDER as action_order,
    database() as current_schema
  from information_schema.TRIGGERS
  where TRIGGER_SCHEMA = database()
  order by EVENT_OBJECT_TABLE, ACTION_TIMING, EVENT_MANIPULATION, ACTION_ORDER`;

export interface TriggerRow {
  name: string;
  table_name: string;
  event: string;
  timing: string;
  statement: string;
  action_order: number;
  /** The connection's database: its qualifier is left out of the names the body reads. */
  current_schema?: string;
  /** SHOW CREATE TRIGGER's original statement: what the server dumps and recreates. */
  create?: string;
}

export const ROUTINES_SQL = `
  select ROUTINE_NAME as name, ROUTINE_TYPE as type, DTD_IDENTIFIER as result,
    ROUTINE_COMMENT as comment, database() as current_schema
  from information_schema.ROUTINES
  where ROUTINE_SCHEMA = database()`;

export interface RoutineRow {
  name: string;
  type: 'FUNCTION' | 'PROCEDURE';
  result: string | null;
  comment: string | null;
  /** The connection's database: its qualifier is left out of the names the body reads. */
  current_schema?: string;
}

/** A routine's row with its SHOW CREATE text. */
export interface RoutineWithText extends RoutineRow {
  create: string;
}

export interface MysqlObjectRows {
  views: ViewRow[];
  triggers: TriggerRow[];
  routines: RoutineWithText[];
}
