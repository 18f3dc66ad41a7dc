// `filters` of a bridge run (API §9.3): per table, one boolean SQL expression over that table's
// columns, parsed by the source engine's real parser (libpg-query for PostgreSQL, node-sql-parser
// for MySQL) and accepted only when every node is on an allow-list: the table's columns, literals,
// comparison, boolean and arithmetic operators, IN, BETWEEN, LIKE, IS [NOT] NULL, CASE, casts, and
// the immutable functions in FILTER_FUNCTIONS. Subqueries, other functions (volatile or with side
// effects), parameters and anything after the expression (a second statement, a UNION) are refused.
// The text is checked wrapped as `SELECT * FROM t WHERE (<filter>)`, exactly as the copy uses it,
// so what was checked is what runs. Pure.
import { loadModule, parseSync } from 'libpg-query';
import nodeSqlParser from 'node-sql-parser';
import type { DialectName } from '../schema/model.ts';

/** The functions a filter may call: immutable on both engines (documented in the README). */
export const FILTER_FUNCTIONS = new Set([
  'lower',
  'upper',
  'length',
  'char_length',
  'abs',
  'round',
  'floor',
  'ceil',
  'ceiling',
  'mod',
  'trim',
  'btrim',
  'ltrim',
  'rtrim',
  'substring',
  'substr',
  'left',
  'right',
  'replace',
  'md5',
  'coalesce',
  'nullif',
  'greatest',
  'least',
]);

const PG_OPERATORS = new Set([
  '=',
  '<>',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '||',
  '~~',
  '!~~',
  '~~*',
  '!~~*',
]);
const PG_EXPR_KINDS = new Set([
  'AEXPR_OP',
  'AEXPR_IN',
  'AEXPR_LIKE',
  'AEXPR_ILIKE',
  'AEXPR_BETWEEN',
  'AEXPR_NOT_BETWEEN',
  'AEXPR_DISTINCT',
  'AEXPR_NOT_DISTINCT',
  'AEXPR_NULLIF',
]);
const MYSQL_OPERATORS = new Set([
  '=',
  '<>',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  '<=>',
  '+',
  '-',
  '*',
  '/',
  '%',
  'DIV',
  'MOD',
  'AND',
  'OR',
  '&&',
  'XOR',
  'IN',
  'NOT IN',
  'BETWEEN',
  'NOT BETWEEN',
  'LIKE',
  'NOT LIKE',
  'IS',
  'IS NOT',
  'NOT',
  '!',
]);

export type FilterVerdict = { ok: true } | { ok: false; message: string };

class Refused extends Error {}

let loading: Promise<void> | undefined;

/** libpg-query's WASM module; load once before checking PostgreSQL filters. */
export function loadFilterParser(): Promise<void> {
  loading ??= loadModule();
  return loading;
}

type PgNode = Record<string, unknown>;

function walkPg(node: unknown, columns: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) walkPg(item, columns);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const [[type, body]] = Object.entries(node as PgNode) as [[string, PgNode]];
  switch (type) {
    case 'A_Const':
    case 'String':
      return;
    case 'ColumnRef': {
      const fields = body.fields as PgNode[];
      const name = (fields[0]?.String as { sval?: string } | undefined)?.sval;
      if (fields.length !== 1 || name === undefined)
        throw new Refused('only columns of the table itself may be named');
      if (!columns.has(name)) throw new Refused(`unknown column ${name}`);
      return;
    }
    case 'A_Expr': {
      if (!PG_EXPR_KINDS.has(String(body.kind)))
        throw new Refused(`operator kind ${String(body.kind)} is not allowed`);
      for (const part of (body.name as PgNode[] | undefined) ?? []) {
        const op = (part.String as { sval?: string } | undefined)?.sval ?? '';
        if (body.kind === 'AEXPR_OP' && !PG_OPERATORS.has(op))
          throw new Refused(`operator ${op} is not allowed`);
      }
      walkPg(body.lexpr, columns);
      walkPg(body.rexpr, columns);
      return;
    }
    case 'BoolExpr':
    case 'CoalesceExpr':
    case 'MinMaxExpr':
      walkPg(body.args, columns);
      return;
    case 'List':
      walkPg(body.items, columns);
      return;
    case 'NullTest':
    case 'BooleanTest':
      walkPg(body.arg, columns);
      return;
    case 'TypeCast':
      walkPg(body.arg, columns);
      return;
    case 'CaseExpr':
      walkPg(body.arg, columns);
      walkPg(body.args, columns);
      walkPg(body.defresult, columns);
      return;
    case 'CaseWhen':
      walkPg(body.expr, columns);
      walkPg(body.result, columns);
      return;
    case 'FuncCall': {
      const names = (body.funcname as PgNode[]).map((n) => (n.String as { sval: string }).sval);
      const name = names.at(-1)!.toLowerCase();
      const schema = names.length > 1 ? names[0] : 'pg_catalog';
      if (
        schema !== 'pg_catalog' ||
        !FILTER_FUNCTIONS.has(name) ||
        body.over ||
        body.agg_star ||
        body.agg_filter
      )
        throw new Refused(`function ${names.join('.')} is not allowed`);
      walkPg(body.args, columns);
      return;
    }
    default:
      throw new Refused(type === 'SubLink' ? 'subqueries are not allowed' : `${type} is not allowed`);
  }
}

function checkPostgres(filter: string, columns: Set<string>): void {
  let parsed: { stmts: { stmt: PgNode }[] };
  try {
    parsed = parseSync(`SELECT * FROM t WHERE (${filter})`) as unknown as { stmts: { stmt: PgNode }[] };
  } catch (error) {
    throw new Refused(
      `it does not parse as one expression: ${error instanceof Error ? error.message : error}`,
    );
  }
  const select =
    parsed.stmts.length === 1 ? (parsed.stmts[0]!.stmt.SelectStmt as PgNode | undefined) : undefined;
  const extra = [
    'withClause',
    'groupClause',
    'havingClause',
    'sortClause',
    'limitCount',
    'limitOffset',
    'lockingClause',
  ];
  if (select?.op !== 'SETOP_NONE' || extra.some((k) => select[k] !== undefined))
    throw new Refused('it must be one boolean expression, nothing before or after it');
  walkPg(select.whereClause, columns);
}

type MyNode = Record<string, unknown> & { type?: string };

function walkMysql(node: unknown, columns: Set<string>, table: string): void {
  if (Array.isArray(node)) {
    for (const item of node) walkMysql(item, columns, table);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as MyNode;
  switch (n.type) {
    case 'number':
    case 'single_quote_string':
    case 'string':
    case 'bool':
    case 'null':
      return;
    case 'column_ref': {
      const raw = n.column as unknown;
      const name =
        typeof raw === 'string'
          ? raw
          : ((raw as { expr?: { value?: unknown } } | null)?.expr?.value as string);
      if (typeof name !== 'string' || name === '*' || (n.table !== null && n.table !== table))
        throw new Refused('only columns of the table itself may be named');
      if (!columns.has(name)) throw new Refused(`unknown column ${name}`);
      return;
    }
    case 'binary_expr':
      if (!MYSQL_OPERATORS.has(String(n.operator).toUpperCase()))
        throw new Refused(`operator ${String(n.operator)} is not allowed`);
      walkMysql(n.left, columns, table);
      walkMysql(n.right, columns, table);
      return;
    case 'unary_expr':
      if (!MYSQL_OPERATORS.has(String(n.operator).toUpperCase()) && n.operator !== '-')
        throw new Refused(`operator ${String(n.operator)} is not allowed`);
      walkMysql(n.expr, columns, table);
      return;
    case 'expr_list':
      walkMysql(n.value, columns, table);
      return;
    case 'cast':
      walkMysql(n.expr, columns, table);
      return;
    case 'case':
      walkMysql(n.expr, columns, table);
      walkMysql(n.args, columns, table);
      return;
    case 'when':
    case 'else':
      walkMysql(n.cond, columns, table);
      walkMysql(n.result, columns, table);
      return;
    case 'function': {
      const parts = ((n.name as { name?: { value?: string }[] } | undefined)?.name ?? []).map(
        (p) => p.value ?? '',
      );
      const name = parts.join('.').toLowerCase();
      if (parts.length !== 1 || !FILTER_FUNCTIONS.has(name) || n.over)
        throw new Refused(`function ${name} is not allowed`);
      walkMysql(n.args, columns, table);
      return;
    }
    default:
      throw new Refused(
        n.type === 'select' ? 'subqueries are not allowed' : `${String(n.type)} is not allowed`,
      );
  }
}

function checkMysql(filter: string, columns: Set<string>, table: string): void {
  // MySQL runs `/*! … */` comments as SQL: a parser that skips comments would check something else
  // than what runs. Comments have no place in a one-expression filter.
  if (/\/\*|#|--/.test(filter)) throw new Refused('comments are not allowed');
  let ast: unknown;
  try {
    ast = new nodeSqlParser.Parser().astify(`SELECT * FROM t WHERE (${filter})`, { database: 'MariaDB' });
  } catch (error) {
    throw new Refused(
      `it does not parse as one expression: ${error instanceof Error ? error.message : error}`,
    );
  }
  const select = (Array.isArray(ast) ? (ast.length === 1 ? ast[0] : undefined) : ast) as MyNode | undefined;
  const extra = ['with', 'groupby', 'having', 'orderby', 'limit', '_next', 'union', 'locking_read', 'into'];
  const set = (v: unknown) =>
    v !== null &&
    v !== undefined &&
    !(typeof v === 'object' && Object.values(v as object).every((x) => x === null));
  if (
    select?.type !== 'select' ||
    (select.from as unknown[]).length !== 1 ||
    extra.some((k) => set(select[k]))
  )
    throw new Refused('it must be one boolean expression, nothing before or after it');
  walkMysql(select.where, columns, 't');
  void table;
}

/**
 * Whether `filter` is one allowed boolean expression over `columns` of the source's engine. For
 * PostgreSQL, call loadFilterParser() once first.
 */
export function checkFilter(dialect: DialectName, filter: string, columns: string[]): FilterVerdict {
  try {
    if (filter.trim() === '') throw new Refused('it is empty');
    const known = new Set(columns);
    if (dialect === 'postgresql') checkPostgres(filter, known);
    else checkMysql(filter, known, 't');
    return { ok: true };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, message: `Not an allowed filter: ${error.message}` };
    throw error;
  }
}
