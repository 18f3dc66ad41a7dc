// `filters` of a bridge run and a subset's `where` (docs/contract.md §9.3): per table, one boolean SQL expression
// over that table's columns, parsed by the source engine's real parser (libpg-query for PostgreSQL,
// node-sql-parser for MySQL) and accepted only when every node is on an allow-list: the table's
// columns, literals, comparison, boolean and arithmetic operators, IN, BETWEEN, LIKE, IS [NOT]
// NULL, CASE, casts, and the immutable functions in FILTER_FUNCTIONS. Subqueries, other functions
// (volatile or with side effects), parameters and anything after the expression (a second
// statement, a UNION) are refused.
//
// The text received is never what runs: the filter must parse alone as one complete expression
// (no parentheses are added around it before parsing, so `id > 0) OR (true` does not close one),
// and what the copy writes into its query is the expression written back from its parsed form
// (deparsed), which is read back and compared to what was checked. A MySQL filter is read as the
// source server reads it under its sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES), and its string
// literals are written for that mode. Pure.
import { loadModule, parseSync } from 'libpg-query';
import nodeSqlParser from 'node-sql-parser';
import { Deparser } from 'pgsql-deparser';
import { lexMysql } from '../mysql-sql-lexer.ts';

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

/** The longest filter (or subset `where`) taken, in characters (the request schema says so too). */
export const MAX_FILTER_LENGTH = 4000;

/** The table a filter reads: its name (a column may be qualified by it) and its columns. */
export interface FilterTable {
  schema: string | null;
  name: string;
  columns: readonly string[];
}

/** Accepted: the expression as the copy writes it into its query (deparsed), or why not. */
export type FilterVerdict = { ok: true; sql: string } | { ok: false; message: string };

class Refused extends Error {}

let loading: Promise<void> | undefined;

/** libpg-query's WASM module; load once before checking PostgreSQL filters. */
export function loadFilterParser(): Promise<void> {
  loading ??= loadModule();
  return loading;
}

/** The node's JSON without source positions: two parses of one expression compare equal. */
function canonical(node: unknown): string {
  return JSON.stringify(node, (key, value) => (key === 'location' ? undefined : value));
}

type PgNode = Record<string, unknown>;

const sval = (node: PgNode | undefined) => (node?.String as { sval?: string } | undefined)?.sval;

/** Checks the node and, in place, writes every column as the bare name (the copy may alias the table). */
function walkPg(node: unknown, table: FilterTable, columns: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) walkPg(item, table, columns);
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
      const names = fields.map(sval);
      const qualifier = names.slice(0, -1);
      const name = names.at(-1);
      const ownTable =
        qualifier.length === 0 ||
        (qualifier.length === 1 && qualifier[0] === table.name) ||
        (qualifier.length === 2 && qualifier[0] === table.schema && qualifier[1] === table.name);
      if (!ownTable || name === undefined) throw new Refused('only columns of the table itself may be named');
      if (!columns.has(name)) throw new Refused(`unknown column ${name}`);
      body.fields = fields.slice(-1);
      return;
    }
    case 'A_Expr': {
      if (!PG_EXPR_KINDS.has(String(body.kind)))
        throw new Refused(`operator kind ${String(body.kind)} is not allowed`);
      for (const part of (body.name as PgNode[] | undefined) ?? []) {
        const op = sval(part) ?? '';
        if (body.kind === 'AEXPR_OP' && !PG_OPERATORS.has(op))
          throw new Refused(`operator ${op} is not allowed`);
      }
      walkPg(body.lexpr, table, columns);
      walkPg(body.rexpr, table, columns);
      return;
    }
    case 'BoolExpr':
    case 'CoalesceExpr':
    case 'MinMaxExpr':
      walkPg(body.args, table, columns);
      return;
    case 'List':
      walkPg(body.items, table, columns);
      return;
    case 'NullTest':
    case 'BooleanTest':
    case 'TypeCast':
      walkPg(body.arg, table, columns);
      return;
    case 'CaseExpr':
      walkPg(body.arg, table, columns);
      walkPg(body.args, table, columns);
      walkPg(body.defresult, table, columns);
      return;
    case 'CaseWhen':
      walkPg(body.expr, table, columns);
      walkPg(body.result, table, columns);
      return;
    case 'FuncCall': {
      const names = (body.funcname as PgNode[]).map((n) => sval(n) ?? '');
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
      walkPg(body.args, table, columns);
      return;
    }
    default:
      throw new Refused(type === 'SubLink' ? 'subqueries are not allowed' : `${type} is not allowed`);
  }
}

/** What `SELECT * FROM t WHERE <expression>` parses into, and nothing else. */
const PG_SELECT_KEYS = new Set(['targetList', 'fromClause', 'whereClause', 'limitOption', 'op']);

/** The filter's WHERE expression, or a refusal: the text must be that expression and nothing more. */
function pgWhere(text: string): PgNode {
  let parsed: { stmts: { stmt: PgNode }[] };
  try {
    parsed = parseSync(`SELECT * FROM t WHERE ${text}`) as unknown as { stmts: { stmt: PgNode }[] };
  } catch (error) {
    throw new Refused(
      `it does not parse as one complete expression: ${error instanceof Error ? error.message : error}`,
    );
  }
  const select =
    parsed.stmts.length === 1 ? (parsed.stmts[0]!.stmt.SelectStmt as PgNode | undefined) : undefined;
  if (
    select?.op !== 'SETOP_NONE' ||
    select.whereClause === undefined ||
    Object.keys(select).some((k) => !PG_SELECT_KEYS.has(k))
  )
    throw new Refused('it must be one boolean expression, nothing before or after it');
  return select.whereClause as PgNode;
}

function checkPostgres(filter: string, table: FilterTable): string {
  const where = pgWhere(filter);
  walkPg(where, table, new Set(table.columns));
  const sql = Deparser.deparse(where as never, { pretty: false });
  // What runs is the written-back text: it must read back as exactly what was checked.
  if (canonical(pgWhere(sql)) !== canonical(where))
    throw new Refused('it does not read back as the same expression once written out');
  return sql;
}

/** How the source server reads a filter's text: its sql_mode (docs/contract.md §9.3). */
interface MysqlReading {
  /** Backslash starts an escape in a string (off under NO_BACKSLASH_ESCAPES). */
  backslashEscapes: boolean;
  /** "…" is a name, not a string (ANSI_QUOTES; the ANSI mode includes it). */
  ansiQuotes: boolean;
}

function mysqlReading(sqlMode: string): MysqlReading {
  const modes = new Set(
    sqlMode
      .toUpperCase()
      .split(',')
      .map((m) => m.trim()),
  );
  return {
    backslashEscapes: !modes.has('NO_BACKSLASH_ESCAPES'),
    ansiQuotes: modes.has('ANSI_QUOTES') || modes.has('ANSI'),
  };
}

/**
 * node-sql-parser's value of a quoted literal is half-decoded (`\n`, `\t`, `\r`, `\b` turned into
 * their characters, the other escapes and doubled quotes left as written): the text it stands for.
 * `\%` and `\_` keep their backslash, as MySQL keeps it (they are LIKE's escapes).
 */
const MYSQL_ESCAPES: Record<string, string> = {
  '0': '\0',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  Z: '\x1a',
  '%': '\\%',
  _: '\\_',
};
function mysqlText(raw: string, quote: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += Object.hasOwn(MYSQL_ESCAPES, next) ? MYSQL_ESCAPES[next] : next;
    } else if (c === quote && raw[i + 1] === quote) {
      out += quote;
      i++;
    } else out += c;
  }
  return out;
}

/** A string literal's body as the server reads it in this mode (the parser's printer adds the quotes). */
function mysqlLiteralBody(text: string, reading: MysqlReading): string {
  const quoted = text.replaceAll("'", "''");
  return reading.backslashEscapes ? quoted.replaceAll('\\', '\\\\') : quoted;
}

type MyNode = Record<string, unknown> & { type?: string };

/** Checks the node and, in place, writes names bare and strings for the server's mode. */
function walkMysql(node: unknown, table: FilterTable, columns: Set<string>, reading: MysqlReading): void {
  if (Array.isArray(node)) {
    for (const item of node) walkMysql(item, table, columns, reading);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as MyNode;
  const walk = (child: unknown) => walkMysql(child, table, columns, reading);
  const column = (name: unknown, qualifier: unknown) => {
    if (typeof name !== 'string' || name === '*' || (qualifier !== null && qualifier !== table.name))
      throw new Refused('only columns of the table itself may be named');
    if (!columns.has(name)) throw new Refused(`unknown column ${name}`);
    for (const key of Object.keys(n)) delete n[key];
    Object.assign(n, { type: 'column_ref', table: null, column: name, collate: null });
  };
  switch (n.type) {
    case 'number':
      if (typeof n.value !== 'number' || !Number.isFinite(n.value))
        throw new Refused('a number out of range');
      return;
    case 'bool':
    case 'null':
      return;
    case 'double_quote_string':
      if (reading.ansiQuotes) {
        column(mysqlText(String(n.value), '"'), null);
        return;
      }
      n.value = mysqlLiteralBody(mysqlText(String(n.value), '"'), reading);
      n.type = 'single_quote_string';
      return;
    case 'single_quote_string':
      n.value = mysqlLiteralBody(mysqlText(String(n.value), "'"), reading);
      return;
    case 'column_ref': {
      const raw = n.column as unknown;
      const name =
        typeof raw === 'string'
          ? raw
          : ((raw as { expr?: { value?: unknown } } | null)?.expr?.value as string);
      if ((n.db !== undefined && n.db !== null) || (n.collate !== undefined && n.collate !== null))
        throw new Refused('only columns of the table itself may be named');
      column(name, n.table);
      return;
    }
    case 'binary_expr':
      if (!MYSQL_OPERATORS.has(String(n.operator).toUpperCase()))
        throw new Refused(`operator ${String(n.operator)} is not allowed`);
      walk(n.left);
      walk(n.right);
      return;
    case 'unary_expr':
      if (!MYSQL_OPERATORS.has(String(n.operator).toUpperCase()) && n.operator !== '-')
        throw new Refused(`operator ${String(n.operator)} is not allowed`);
      walk(n.expr);
      return;
    case 'expr_list':
      walk(n.value);
      return;
    case 'cast':
      walk(n.expr);
      return;
    case 'case':
      walk(n.expr);
      walk(n.args);
      return;
    case 'when':
    case 'else':
      walk(n.cond);
      walk(n.result);
      return;
    case 'function': {
      const parts = ((n.name as { name?: { value?: string }[] } | undefined)?.name ?? []).map(
        (p) => p.value ?? '',
      );
      const name = parts.join('.').toLowerCase();
      if (parts.length !== 1 || !FILTER_FUNCTIONS.has(name) || n.over)
        throw new Refused(`function ${name} is not allowed`);
      walk(n.args);
      return;
    }
    default:
      throw new Refused(
        n.type === 'select' ? 'subqueries are not allowed' : `${String(n.type)} is not allowed`,
      );
  }
}

const mysqlParser = new nodeSqlParser.Parser();
// MySQL's grammar: node-sql-parser's MariaDB one refuses non-reserved keywords as names (`status`).
const MYSQL_GRAMMAR = { database: 'MySQL' };

/** The filter's WHERE expression as the server reads `text` in this mode, or a refusal. */
function mysqlWhere(text: string, reading: MysqlReading): MyNode {
  // The parser always reads backslash escapes; without them a backslash is itself: doubled, it reads so.
  const read = reading.backslashEscapes ? text : text.replaceAll('\\', '\\\\');
  // MySQL runs `/*! … */` comments as SQL, where a parser skips them: comments have no place here.
  if (lexMysql(read).some((l) => l.kind === 'comment' || !l.closed))
    throw new Refused('comments are not allowed');
  let ast: unknown;
  try {
    ast = mysqlParser.astify(`SELECT * FROM t WHERE ${read}`, MYSQL_GRAMMAR);
  } catch (error) {
    throw new Refused(
      `it does not parse as one complete expression: ${error instanceof Error ? error.message : error}`,
    );
  }
  const select = (Array.isArray(ast) ? (ast.length === 1 ? ast[0] : undefined) : ast) as MyNode | undefined;
  const extra = [
    'with',
    'groupby',
    'having',
    'orderby',
    'limit',
    '_next',
    'union',
    'locking_read',
    'into',
    'window',
  ];
  const set = (v: unknown) =>
    v !== null &&
    v !== undefined &&
    !(typeof v === 'object' && Object.values(v as object).every((x) => x === null));
  if (
    select?.type !== 'select' ||
    (select.from as unknown[]).length !== 1 ||
    select.where === null ||
    select.where === undefined ||
    extra.some((k) => set(select[k]))
  )
    throw new Refused('it must be one boolean expression, nothing before or after it');
  return select.where as MyNode;
}

function checkMysql(filter: string, table: FilterTable, sqlMode: string): string {
  const reading = mysqlReading(sqlMode);
  const columns = new Set(table.columns);
  const where = mysqlWhere(filter, reading);
  walkMysql(where, table, columns, reading);
  const sql = mysqlParser.exprToSQL(where as never, MYSQL_GRAMMAR);
  const again = mysqlWhere(sql, reading);
  walkMysql(again, table, columns, reading);
  if (canonical(again) !== canonical(where))
    throw new Refused('it does not read back as the same expression once written out');
  return sql;
}

/**
 * How one engine's parser reads a filter: the expression to write into the copy's query, or
 * Refused. Each dialect names its own (RowFormat.readFilter); `sqlMode` is a MySQL source's
 * `@@sql_mode`. The PostgreSQL one needs loadFilterParser() called once first.
 */
export type FilterReader = (filter: string, table: FilterTable, sqlMode: string) => string;

export const readPostgresFilter: FilterReader = (filter, table) => checkPostgres(filter, table);
export const readMysqlFilter: FilterReader = checkMysql;

/**
 * Whether `filter` is one allowed boolean expression over `table`'s columns, as the source's
 * engine reads it (`read`), and, when it is, the expression to write into the copy's query.
 */
export function checkFilter(
  read: FilterReader,
  filter: string,
  table: FilterTable,
  sqlMode = '',
): FilterVerdict {
  try {
    if (filter.trim() === '') throw new Refused('it is empty');
    if (filter.length > MAX_FILTER_LENGTH)
      throw new Refused(`it is longer than ${MAX_FILTER_LENGTH.toLocaleString('en')} characters`);
    return { ok: true, sql: read(filter, table, sqlMode) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, message: `Not an allowed filter: ${error.message}` };
    throw error;
  }
}
