// The parts of a patch statement a read-only dry-run recomputes (dry-run-plan.ts): its target and
// alias, its WHERE, an UPDATE's assignments, an INSERT's columns and rows (VALUES or a query),
// each as SQL text in which every other reference to a table is replaced by what `relationOf`
// answers for it (the table as the earlier statements of the patch leave it). Read by the engines'
// own parsers: libpg-query's tree and scanner for PostgreSQL, node-sql-parser for MySQL. Pure.
import { loadModule, parseSync, scanSync } from 'libpg-query';
import nodeSqlParser from 'node-sql-parser';
import type { DialectName } from '../schema/model.ts';
import type { PatchKind } from './parse-patch.ts';

/** A table as a statement names it (schema null when unqualified). */
export interface TableName {
  schema: string | null;
  name: string;
}

/** SQL text (a SELECT) replacing a reference to `table`, or null to leave the reference alone. */
export type RelationOf = (table: TableName) => string | null;

export type InsertSource =
  | { kind: 'values'; rows: (string | null)[][] }
  | { kind: 'query'; sql: string }
  | { kind: 'default_values' };

export interface StatementPieces {
  kind: PatchKind;
  target: TableName;
  /** The name the statement calls its target by: its alias, else the table's name. */
  alias: string;
  where: string | null;
  /** An UPDATE's assignments in order; `value` null for DEFAULT. */
  assignments: { column: string; value: string | null }[];
  /** An INSERT's column list, null when it names none (every column, in order). */
  insertColumns: string[] | null;
  source: InsertSource | null;
  upsert: boolean;
  /** What the pieces leave out (MySQL UPDATE … ORDER BY … LIMIT), said in a note. */
  unsupported: string | null;
}

/** A statement whose parts a read cannot compute (a multi-column assignment). */
export class PiecesRefused extends Error {}

let loading: Promise<void> | undefined;

// ---- PostgreSQL -------------------------------------------------------------------------------

type Node = Record<string, unknown>;

interface RangeVarRef {
  location: number;
  schema: string | null;
  name: string;
  hasAlias: boolean;
}

/** Every RangeVar of the tree except `skip` (the statement's own target). */
function rangeVars(node: unknown, skip: unknown, out: RangeVarRef[] = []): RangeVarRef[] {
  if (Array.isArray(node)) for (const item of node) rangeVars(item, skip, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Node)) {
      if (key === 'RangeVar' && value !== skip && value && typeof value === 'object') {
        const range = value as Node;
        out.push({
          location: Number(range.location ?? 0),
          schema: (range.schemaname as string | undefined) ?? null,
          name: String(range.relname),
          hasAlias: range.alias !== undefined,
        });
      } else if (value !== skip) rangeVars(value, skip, out);
    }
  }
  return out;
}

interface Lexed {
  text: string;
  start: number;
  end: number;
  lower: string;
  depth: number;
}

/** Tokens with their byte offsets and parenthesis depth, comments left out. */
function lexPostgres(sql: string): Lexed[] {
  let depth = 0;
  const out: Lexed[] = [];
  for (const token of scanSync(sql).tokens) {
    if (token.tokenName === 'SQL_COMMENT' || token.tokenName === 'C_COMMENT') continue;
    if (token.text === ')') depth--;
    out.push({
      text: token.text,
      start: token.start,
      end: token.end,
      lower: token.text.toLowerCase(),
      depth,
    });
    if (token.text === '(') depth++;
  }
  return out;
}

const slice = (bytes: Buffer, start: number, end: number) =>
  bytes.subarray(start, end).toString('utf8').trim();

const pgQuote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The text with each RangeVar `relationOf` answers for replaced by that relation, aliased as before. */
function rewritePostgres(sql: string, refs: RangeVarRef[], relationOf: RelationOf): string {
  const tokens = lexPostgres(sql);
  const edits: { start: number; end: number; text: string }[] = [];
  for (const ref of refs) {
    const relation = relationOf({ schema: ref.schema, name: ref.name });
    if (relation === null) continue;
    let i = tokens.findIndex((t) => t.start === ref.location);
    if (i < 0) continue;
    let start = tokens[i]!.start;
    if (tokens[i - 1]?.lower === 'only') start = tokens[i - 1]!.start;
    while (tokens[i + 1]?.text === '.' && tokens[i + 2]) i += 2;
    const end = tokens[i + 1]?.text === '*' ? tokens[i + 1]!.end : tokens[i]!.end;
    edits.push({ start, end, text: `(${relation})${ref.hasAlias ? '' : ` AS ${pgQuote(ref.name)}`}` });
  }
  let bytes = Buffer.from(sql, 'utf8');
  for (const edit of edits.sort((a, b) => b.start - a.start))
    bytes = Buffer.concat([
      bytes.subarray(0, edit.start),
      Buffer.from(` ${edit.text} `),
      bytes.subarray(edit.end),
    ]);
  return bytes.toString('utf8');
}

/** Splits tokens at `depth` commas into [start, end) byte ranges. */
function splitAtCommas(tokens: Lexed[], depth: number): Lexed[][] {
  const parts: Lexed[][] = [[]];
  for (const token of tokens) {
    if (token.depth === depth && token.text === ',') parts.push([]);
    else parts.at(-1)!.push(token);
  }
  return parts.filter((part) => part.length > 0);
}

const textOf = (bytes: Buffer, tokens: Lexed[]) =>
  tokens.length === 0 ? '' : slice(bytes, tokens[0]!.start, tokens.at(-1)!.end);

async function postgresPieces(sql: string, relationOf: RelationOf): Promise<StatementPieces> {
  loading ??= loadModule();
  await loading;
  const statement = (parseSync(sql).stmts ?? [])[0]?.stmt as Node | undefined;
  if (!statement) throw new PiecesRefused('the statement does not parse');
  const [type, body] = Object.entries(statement)[0] as [string, Node];
  const relation = body.relation as Node;
  const target = {
    schema: (relation.schemaname as string | undefined) ?? null,
    name: String(relation.relname),
  };
  const alias = (relation.alias as { aliasname?: string } | undefined)?.aliasname ?? target.name;
  const kind: PatchKind = type === 'UpdateStmt' ? 'update' : type === 'DeleteStmt' ? 'delete' : 'insert';
  const rewritten = rewritePostgres(sql, rangeVars(body, relation), relationOf);
  const bytes = Buffer.from(rewritten, 'utf8');
  const tokens = lexPostgres(rewritten);
  const top = (word: string, from = 0) =>
    tokens.findIndex((t, i) => i >= from && t.depth === 0 && t.lower === word);
  const whereAt = top('where');
  const where = whereAt < 0 ? null : textOf(bytes, tokens.slice(whereAt + 1));
  const pieces: StatementPieces = {
    kind,
    target,
    alias,
    where,
    assignments: [],
    insertColumns: null,
    source: null,
    upsert: body.onConflictClause !== undefined,
    unsupported: null,
  };
  if (kind === 'update') {
    const targets = (body.targetList as { ResTarget: Node }[]).map((t) => t.ResTarget);
    if (targets.some((t) => t.val && typeof t.val === 'object' && 'MultiAssignRef' in t.val))
      throw new PiecesRefused('a multi-column assignment (SET (a, b) = …) cannot be computed by a read');
    const setAt = top('set');
    const segments = splitAtCommas(tokens.slice(setAt + 1, whereAt < 0 ? undefined : whereAt), 0);
    pieces.assignments = targets.map((t, i) => {
      const segment = segments[i] ?? [];
      const equals = segment.findIndex((token) => token.depth === 0 && token.text === '=');
      if ((t.indirection as unknown[] | undefined)?.length)
        throw new PiecesRefused(
          'an assignment to part of a column (a field or an element) cannot be computed by a read',
        );
      const value = segment.slice(equals + 1);
      const isDefault = value.length === 1 && value[0]!.lower === 'default';
      return { column: String(t.name), value: isDefault ? null : textOf(bytes, value) };
    });
  }
  if (kind === 'insert') {
    const columns = body.cols as { ResTarget: Node }[] | undefined;
    pieces.insertColumns = columns ? columns.map((c) => String(c.ResTarget.name)) : null;
    const select = (body.selectStmt as { SelectStmt?: Node } | undefined)?.SelectStmt;
    const conflictAt = tokens.findIndex(
      (t, i) => t.depth === 0 && t.lower === 'on' && tokens[i + 1]?.lower === 'conflict',
    );
    const end = conflictAt < 0 ? tokens.length : conflictAt;
    if (!select) pieces.source = { kind: 'default_values' };
    else if (select.valuesLists) {
      const valuesAt = top('values');
      const groups = splitAtCommas(tokens.slice(valuesAt + 1, end), 0);
      pieces.source = {
        kind: 'values',
        rows: groups.map((group) =>
          splitAtCommas(group.slice(1, -1), 1).map((value) =>
            value.length === 1 && value[0]!.lower === 'default' ? null : textOf(bytes, value),
          ),
        ),
      };
    } else {
      // After the target, its alias, the column list and OVERRIDING … VALUE comes the query.
      let i = top('into') + 1;
      while (
        tokens[i] &&
        tokens[i]!.depth === 0 &&
        tokens[i]!.text !== '(' &&
        !['select', 'values', 'with', 'table', 'overriding'].includes(tokens[i]!.lower)
      )
        i++;
      if (columns && tokens[i]?.text === '(') {
        while (tokens[i] && !(tokens[i]!.depth === 0 && tokens[i]!.text === ')')) i++;
        i++;
      }
      if (tokens[i]?.lower === 'overriding') i += 3;
      pieces.source = { kind: 'query', sql: textOf(bytes, tokens.slice(i, end)) };
    }
  }
  return pieces;
}

// ---- MySQL --------------------------------------------------------------------------------------

type MysqlNode = Record<string, unknown>;

const PLACEHOLDER = (n: number) => `__dbops_relation_${n}__`;

/** Points every FROM entry of the tree that `relationOf` answers for at a numbered placeholder. */
function markMysqlTables(node: unknown, skip: Set<unknown>, relationOf: RelationOf, found: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) markMysqlTables(item, skip, relationOf, found);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const entry = node as MysqlNode;
  if (typeof entry.table === 'string' && !skip.has(entry) && ('as' in entry || 'db' in entry)) {
    const relation = relationOf({ schema: (entry.db as string | null) || null, name: entry.table });
    if (relation !== null) {
      found.push(relation);
      entry.as = (entry.as as string | null) || entry.table;
      entry.db = null;
      entry.table = PLACEHOLDER(found.length - 1);
    }
  }
  for (const [key, value] of Object.entries(entry))
    if (key !== 'table' || typeof value !== 'string') markMysqlTables(value, skip, relationOf, found);
}

function mysqlPieces(sql: string, relationOf: RelationOf): StatementPieces {
  const parser = new nodeSqlParser.Parser();
  const opt = { database: 'MariaDB' };
  const parsed = parser.astify(sql, opt);
  const node = (Array.isArray(parsed) ? parsed[0] : parsed) as unknown as MysqlNode;
  const kind = String(node.type) as PatchKind;
  const targets = ((kind === 'delete' ? node.from : node.table) as MysqlNode[]) ?? [];
  const own = targets[0]!;
  const skip = new Set<unknown>([...targets, ...((node.table as MysqlNode[] | null) ?? [])]);
  const relations: string[] = [];
  markMysqlTables(node, skip, relationOf, relations);
  const restore = (text: string) =>
    relations.reduce((out, relation, n) => out.replaceAll(`\`${PLACEHOLDER(n)}\``, `(${relation})`), text);
  const expr = (value: unknown) => restore(parser.exprToSQL(value as never, opt));
  const isDefault = (value: unknown) =>
    (value as MysqlNode | null)?.type === 'column_ref' &&
    String((value as MysqlNode).column).toUpperCase() === 'DEFAULT';
  const pieces: StatementPieces = {
    kind,
    target: { schema: (own.db as string | null) || null, name: String(own.table) },
    alias: (own.as as string | null) || String(own.table),
    where: node.where ? expr(node.where) : null,
    assignments: [],
    insertColumns: null,
    source: null,
    upsert: node.on_duplicate_update !== null && node.on_duplicate_update !== undefined,
    unsupported:
      node.orderby || node.limit
        ? 'its ORDER BY … LIMIT is not applied: every row the WHERE matches is counted'
        : null,
  };
  if (kind === 'update')
    pieces.assignments = ((node.set as MysqlNode[]) ?? []).map((s) => ({
      column: String(s.column),
      value: isDefault(s.value) ? null : expr(s.value),
    }));
  if (kind === 'insert') {
    pieces.insertColumns =
      Array.isArray(node.columns) && node.columns.length > 0 ? node.columns.map(String) : null;
    const values = node.values as MysqlNode | null;
    if (values?.type === 'values')
      pieces.source = {
        kind: 'values',
        rows: ((values.values as MysqlNode[]) ?? []).map((row) =>
          ((row.value as unknown[]) ?? []).map((value) => (isDefault(value) ? null : expr(value))),
        ),
      };
    else if (values) pieces.source = { kind: 'query', sql: restore(parser.sqlify(values as never, opt)) };
    else pieces.source = { kind: 'default_values' };
  }
  return pieces;
}

/** Each engine's reader of a statement's pieces: a new engine is one more entry. */
const PIECE_READERS: Record<
  DialectName,
  (sql: string, relationOf: RelationOf) => StatementPieces | Promise<StatementPieces>
> = {
  postgresql: postgresPieces,
  mysql: mysqlPieces,
};

/** The statement's pieces, other table references rewritten through `relationOf`. */
export async function statementPieces(
  dialect: DialectName,
  sql: string,
  relationOf: RelationOf,
): Promise<StatementPieces> {
  return PIECE_READERS[dialect](sql, relationOf);
}
