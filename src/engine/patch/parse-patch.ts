// Patch SQL (docs/contract.md §9): split and parsed by the engines' real parsers (libpg-query for PostgreSQL,
// node-sql-parser for MySQL), never by regular expressions. Only plain DML is accepted: UPDATE,
// DELETE and INSERT on one table each. DDL, SELECT, CTEs (which may hide a data-modifying
// statement), RETURNING (execute adds its own to record the rows), anything else, and an UPDATE or
// DELETE without WHERE (unless the full table is allowed) are refused, naming the statement.
// Whether a statement can be rolled back needs the table's keys: see rollback-key.ts. Pure.
import { loadModule, parseSync, scanSync } from 'libpg-query';
import nodeSqlParser from 'node-sql-parser';
import type { DialectName } from '../schema/model.ts';

export type PatchKind = 'update' | 'delete' | 'insert';

export interface PatchStatement {
  index: number;
  kind: PatchKind;
  /** `schema.table` when qualified, else the bare name. */
  table: string;
  /** The statement's text, without the terminating semicolon. */
  sql: string;
  /** Whether an UPDATE or DELETE has a WHERE clause. */
  has_where: boolean;
  /** The target table as quoted SQL, with its alias when the statement gives one. */
  target_sql: string;
  /** The target table as quoted SQL, without alias. */
  table_sql: string;
  /** The WHERE condition's SQL (null for INSERT and for a statement without WHERE). */
  where_sql: string | null;
  /** The columns an UPDATE assigns (empty for DELETE and INSERT). */
  set_columns: string[];
  /** An INSERT that updates the existing row on conflict (ON CONFLICT DO UPDATE, ON DUPLICATE KEY UPDATE). */
  upsert: boolean;
}

export type PatchParse =
  | { ok: true; statements: PatchStatement[] }
  | { ok: false; index: number; message: string };

export interface PatchParseOptions {
  allowFullTable?: boolean;
}

let loading: Promise<void> | undefined;

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

interface Raw {
  sql: string;
  kind: PatchKind | null;
  /** What the statement is, for the refusal message. */
  what: string;
  table: string | null;
  tables: number;
  hasWhere: boolean;
  hasWith: boolean;
  hasReturning: boolean;
  setColumns: string[];
  upsert: boolean;
  targetSql: string;
  tableSql: string;
  whereSql: string | null;
}

const pgQuote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function pgTargetSql(range: Record<string, unknown> | undefined, withAlias = true): string {
  if (!range) return '';
  const schema = range.schemaname as string | undefined;
  const alias = (range.alias as { aliasname?: string } | undefined)?.aliasname;
  const name = `${schema ? `${pgQuote(schema)}.` : ''}${pgQuote(String(range.relname))}`;
  return alias && withAlias ? `${name} AS ${pgQuote(alias)}` : name;
}

/**
 * The text of the top-level WHERE condition, to its last token (the scanner knows quoting and
 * nesting). A trailing comment is left out: the condition is embedded in other SQL, where a
 * `-- comment` would swallow what follows it.
 */
function pgWhereSql(sql: string): string | null {
  let depth = 0;
  let start: number | null = null;
  let end = 0;
  for (const token of scanSync(sql).tokens) {
    if (token.tokenName === 'SQL_COMMENT' || token.tokenName === 'C_COMMENT') continue;
    if (start !== null) end = token.end;
    if (token.text === '(') depth++;
    else if (token.text === ')') depth--;
    else if (depth === 0 && start === null && token.text.toLowerCase() === 'where') start = token.end;
  }
  return start === null ? null : Buffer.from(sql, 'utf8').subarray(start, end).toString('utf8').trim();
}

function pgRangeName(range: Record<string, unknown> | undefined): string | null {
  if (!range) return null;
  const rel = range.relname as string | undefined;
  if (!rel) return null;
  const schema = range.schemaname as string | undefined;
  return schema ? `${schema}.${rel}` : rel;
}

/** The parser's refusal with where it stopped (line and column from 1), when the parser says. */
function unparsed(text: string, offset: number | undefined, why: string | undefined): string {
  if (offset === undefined) return `The SQL does not parse: ${why}`;
  const before = text.slice(0, offset).split('\n');
  const line = before.length;
  const column = (before.at(-1) ?? '').length + 1;
  return `The SQL does not parse at line ${line}, column ${column}: ${why}`;
}

async function rawPostgres(text: string): Promise<Raw[] | { index: number; message: string }> {
  loading ??= loadModule();
  await loading;
  let result: { stmts: { stmt: Record<string, unknown>; stmt_location?: number; stmt_len?: number }[] };
  try {
    result = parseSync(text) as unknown as typeof result;
  } catch (error) {
    // libpg-query's cursor is a byte offset into the text.
    const offset = (error as { sqlDetails?: { cursorPosition?: unknown } }).sqlDetails?.cursorPosition;
    const at =
      typeof offset === 'number'
        ? Buffer.from(text, 'utf8').subarray(0, offset).toString('utf8').length
        : undefined;
    return { index: 0, message: unparsed(text, at, errorMessage(error)) };
  }
  const bytes = Buffer.from(text, 'utf8');
  return (result.stmts ?? []).map((entry) => {
    const start = entry.stmt_location ?? 0;
    const end = entry.stmt_len ? start + entry.stmt_len : undefined;
    const sql = bytes.subarray(start, end).toString('utf8').trim();
    const [type, body] = Object.entries(entry.stmt)[0] as [string, Record<string, unknown>];
    const kind: PatchKind | null =
      type === 'UpdateStmt'
        ? 'update'
        : type === 'DeleteStmt'
          ? 'delete'
          : type === 'InsertStmt'
            ? 'insert'
            : null;
    const extra =
      type === 'UpdateStmt'
        ? ((body.fromClause as unknown[] | undefined)?.length ?? 0)
        : type === 'DeleteStmt'
          ? ((body.usingClause as unknown[] | undefined)?.length ?? 0)
          : 0;
    return {
      sql,
      kind,
      what: type.replace(/Stmt$/, ''),
      table: kind ? pgRangeName(body.relation as Record<string, unknown> | undefined) : null,
      tables: 1 + extra,
      hasWhere: body.whereClause !== undefined,
      hasWith: body.withClause !== undefined,
      hasReturning: body.returningClause !== undefined || body.returningList !== undefined,
      setColumns:
        type === 'UpdateStmt'
          ? ((body.targetList as { ResTarget: { name: string } }[] | undefined) ?? []).map(
              (t) => t.ResTarget.name,
            )
          : [],
      upsert: (body.onConflictClause as { action?: string } | undefined)?.action === 'ONCONFLICT_UPDATE',
      targetSql: kind ? pgTargetSql(body.relation as Record<string, unknown> | undefined) : '',
      tableSql: kind ? pgTargetSql(body.relation as Record<string, unknown> | undefined, false) : '',
      whereSql: body.whereClause !== undefined ? pgWhereSql(sql) : null,
    };
  });
}

type MysqlAst = Record<string, unknown> & { type?: string };

const myQuote = (name: string) => `\`${name.replaceAll('`', '``')}\``;

function mysqlTargetSql(entry: Record<string, unknown> | undefined, withAlias = true): string {
  if (!entry || typeof entry.table !== 'string') return '';
  const db = typeof entry.db === 'string' && entry.db !== '' ? `${myQuote(entry.db)}.` : '';
  const alias =
    withAlias && typeof entry.as === 'string' && entry.as !== '' ? ` AS ${myQuote(entry.as)}` : '';
  return `${db}${myQuote(entry.table)}${alias}`;
}

function mysqlTableName(entry: Record<string, unknown> | undefined): string | null {
  if (!entry || typeof entry.table !== 'string') return null;
  return typeof entry.db === 'string' && entry.db !== '' ? `${entry.db}.${entry.table}` : entry.table;
}

function rawMysql(text: string): Raw[] | { index: number; message: string } {
  const parser = new nodeSqlParser.Parser();
  let ast: MysqlAst | MysqlAst[];
  try {
    ast = parser.astify(text, { database: 'MariaDB' }) as unknown as MysqlAst | MysqlAst[];
  } catch (error) {
    const offset = (error as { location?: { start?: { offset?: unknown } } }).location?.start?.offset;
    return {
      index: 0,
      message: unparsed(text, typeof offset === 'number' ? offset : undefined, errorMessage(error)),
    };
  }
  const list = (Array.isArray(ast) ? ast : [ast]).filter((node) => node && typeof node === 'object');
  return list.map((node) => {
    const type = String(node.type ?? 'unknown').toLowerCase();
    const kind: PatchKind | null =
      type === 'update' || type === 'delete' || type === 'insert' ? (type as PatchKind) : null;
    const tables = (node.table as Record<string, unknown>[] | null | undefined) ?? [];
    const from = (node.from as Record<string, unknown>[] | null | undefined) ?? [];
    const targets = type === 'delete' ? from : tables;
    let sql: string;
    try {
      sql = parser.sqlify(node as never, { database: 'MariaDB' });
    } catch {
      sql = '';
    }
    return {
      sql,
      kind,
      what: type.toUpperCase(),
      table: kind ? mysqlTableName(targets[0]) : null,
      tables: kind === 'insert' ? 1 : targets.length,
      hasWhere: node.where !== null && node.where !== undefined,
      hasWith: node.with !== null && node.with !== undefined,
      hasReturning: node.returning !== null && node.returning !== undefined,
      setColumns:
        type === 'update' ? ((node.set as { column: string }[] | undefined) ?? []).map((s) => s.column) : [],
      upsert: node.on_duplicate_update !== null && node.on_duplicate_update !== undefined,
      targetSql: kind ? mysqlTargetSql(targets[0]) : '',
      tableSql: kind ? mysqlTargetSql(targets[0], false) : '',
      whereSql:
        node.where !== null && node.where !== undefined
          ? parser.exprToSQL(node.where as never, { database: 'MariaDB' })
          : null,
    };
  });
}

/** Each engine's parser of patch text: a new engine is one more entry. */
type RawParse = Raw[] | { index: number; message: string };

const RAW_PARSERS: Record<DialectName, (text: string) => RawParse | Promise<RawParse>> = {
  postgresql: rawPostgres,
  mysql: rawMysql,
};

/** Parses and checks patch SQL for `dialect`. Never throws on bad SQL. */
export async function parsePatch(
  dialect: DialectName,
  text: string,
  options: PatchParseOptions = {},
): Promise<PatchParse> {
  const raw = await RAW_PARSERS[dialect](text);
  if (!Array.isArray(raw)) return { ok: false, ...raw };
  if (raw.length === 0) return { ok: false, index: 0, message: 'The patch has no statement' };
  const statements: PatchStatement[] = [];
  for (const [index, statement] of raw.entries()) {
    const refuse = (why: string): PatchParse => ({
      ok: false,
      index,
      message: `Statement ${index + 1}: ${why}`,
    });
    if (statement.kind === null)
      return refuse(`${statement.what} is not allowed in a patch; only UPDATE, DELETE and INSERT are`);
    if (statement.hasWith) return refuse('a WITH clause is not allowed in a patch');
    if (statement.hasReturning)
      return refuse('RETURNING is not allowed in a patch; the dry-run shows the rows a statement changes');
    if (statement.table === null) return refuse('the target table could not be determined');
    if (statement.tables > 1)
      return refuse(`a multi-table ${statement.kind.toUpperCase()} is not allowed in a patch`);
    if (statement.kind !== 'insert' && !statement.hasWhere && !options.allowFullTable)
      return refuse(
        `${statement.kind.toUpperCase()} without WHERE changes the whole table; send allow_full_table: true to allow it`,
      );
    statements.push({
      index,
      kind: statement.kind,
      table: statement.table,
      sql: statement.sql,
      has_where: statement.hasWhere,
      target_sql: statement.targetSql,
      table_sql: statement.tableSql,
      where_sql: statement.whereSql,
      set_columns: statement.setColumns,
      upsert: statement.upsert,
    });
  }
  return { ok: true, statements };
}
