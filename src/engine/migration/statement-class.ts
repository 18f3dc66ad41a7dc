// What kind of statement a migration statement is, for the rule that a migration carries schema only
// (docs/contract.md §8): definitions (CREATE / ALTER / DROP / COMMENT of the schema's objects, a routine's body
// being part of its definition) and the few settings that bound locks are allowed; data changes,
// COPY, routine calls, privileges, roles and everything else are patches' business or nobody's.
// The dialect's parser names the class of each statement it reads (postgres.sql-class.ts,
// mysql.sql-class.ts); this file decides which statements of a migration are refused and says why.

export interface StatementClass {
  /** A definition or an allowed setting. */
  schema_only: boolean;
  /** How a person reads the class: `definition`, `data change (UPDATE)`, `COPY`, `unparseable`… */
  name: string;
  /**
   * It defines code run later (a routine or trigger body), which may sit in a string literal
   * (PostgreSQL's `AS $$ … $$`): its outside calls are looked for in strings too.
   */
  holds_code?: boolean;
}

export const UNPARSEABLE: StatementClass = { schema_only: false, name: 'unparseable' };
export const DEFINITION: StatementClass = { schema_only: true, name: 'definition' };
export const ROUTINE_DEFINITION: StatementClass = { schema_only: true, name: 'definition', holds_code: true };
export const ALLOWED_SETTING: StatementClass = { schema_only: true, name: 'setting' };
/**
 * A statement the plan itself wrote and the edit left unchanged (a backup into `dbops_backup` or
 * `_dbops_bak_*`, a table rebuild's `INSERT … SELECT` and its `setval`, a restore): the planner
 * writes only what its operation needs, on objects it names itself. The same text written by hand
 * is not the plan's and is classed by what it is.
 */
export function plannedClass(parsed: StatementClass): StatementClass {
  return { schema_only: true, name: 'planned', holds_code: parsed.holds_code === true };
}

export interface RefusedStatement {
  /** 0-based, like every index field of the API. */
  statement_index: number;
  /** The class's name when the class is refused; null when only its calls are. */
  class: string | null;
  /** Lower-cased names of the calls that reach outside the database (empty when none). */
  outside_calls: string[];
}

/**
 * The statements a migration may not hold: a class other than schema, or a call that reaches
 * outside the database anywhere in it (planned statements included: the source's view bodies and
 * defaults come through the plan).
 */
export function refusedStatements(
  statements: { sql: string; class: StatementClass }[],
  outsideCalls: (sql: string, holdsCode: boolean) => string[],
): RefusedStatement[] {
  const refused: RefusedStatement[] = [];
  statements.forEach((statement, index) => {
    const calls =
      statement.class.name === UNPARSEABLE.name
        ? []
        : outsideCalls(statement.sql, statement.class.holds_code === true);
    if (statement.class.schema_only && calls.length === 0) return;
    refused.push({
      statement_index: index,
      class: statement.class.schema_only ? null : statement.class.name,
      outside_calls: calls,
    });
  });
  return refused;
}

/** `statement 2 is data change (UPDATE); statement 3 calls pg_read_file`: numbered from 1. */
export function describeRefused(refused: RefusedStatement[]): string {
  return refused
    .map((r) => {
      const number = `statement ${r.statement_index + 1}`;
      const calls = `calls ${r.outside_calls.join(', ')}, which reach${r.outside_calls.length === 1 ? 'es' : ''} outside the database`;
      if (r.class === null) return `${number} ${calls}`;
      if (r.outside_calls.length > 0) return `${number} is ${r.class} and ${calls}`;
      return `${number} is ${r.class}`;
    })
    .join('; ');
}
