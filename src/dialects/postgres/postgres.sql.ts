// Edited migration SQL on PostgreSQL: split into statements and parsed by libpg-query (PostgreSQL's
// own parser, compiled to WASM), never matched with regular expressions. A statement that does not
// parse becomes a statement with an error, never an exception.
//
// Splitting: text that parses whole is cut where the parser says statements are. Otherwise the
// parser's scanner (which knows quoting, dollar quoting and comments) cuts it at its `;` tokens and
// each piece is parsed alone, so one bad statement does not hide the good ones. When even the
// scanner fails (an unterminated string or comment), everything from the statement where the error
// is to the end is one statement that does not parse. Positions from libpg-query are UTF-8 byte
// offsets: the text is cut as bytes.
import { loadModule, parseSync, scanSync } from 'libpg-query';
import type { ParsedStatement } from '../../engine/migration/parsed.ts';
import { UNPARSEABLE } from '../../engine/migration/statement-class.ts';
import { postgresStatementClass } from './postgres.sql-class.ts';
import { postgresFacts, postgresTransactional } from './postgres.sql-facts.ts';

let loading: Promise<void> | undefined;

interface Piece {
  sql: string;
  /** The parsed statement node (`{ CreateStmt: … }`), or the parser's error. */
  node: Record<string, unknown> | null;
  error: string | null;
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

function slice(bytes: Buffer, start: number, end?: number): string {
  return bytes.subarray(start, end).toString('utf8').trim();
}

function parsedPieces(text: string): Piece[] {
  const bytes = Buffer.from(text, 'utf8');
  const result = parseSync(text) as unknown as {
    stmts: { stmt: Record<string, unknown>; stmt_location?: number; stmt_len?: number }[];
  };
  return result.stmts.map((entry) => {
    const start = entry.stmt_location ?? 0;
    const end = entry.stmt_len ? start + entry.stmt_len : undefined;
    return { sql: slice(bytes, start, end), node: entry.stmt, error: null };
  });
}

/** One piece of text between `;` tokens, parsed alone. */
function parsePiece(sql: string): Piece[] {
  try {
    const pieces = parsedPieces(sql);
    return pieces.length === 1 ? [{ ...pieces[0]!, sql }] : pieces;
  } catch (error) {
    return [{ sql, node: null, error: errorMessage(error) }];
  }
}

/** Byte ranges between top-level `;` tokens of text the scanner accepts. */
function scannedRanges(text: string): [number, number][] {
  const tokens = scanSync(text).tokens;
  const ranges: [number, number][] = [];
  let start = 0;
  for (const token of tokens) {
    if (token.text !== ';') continue;
    ranges.push([start, token.start]);
    start = token.end;
  }
  ranges.push([start, Buffer.byteLength(text, 'utf8')]);
  return ranges;
}

function splitPieces(text: string): Piece[] {
  try {
    return parsedPieces(text);
  } catch (error) {
    const bytes = Buffer.from(text, 'utf8');
    const pieces = (ranges: [number, number][]) =>
      ranges
        .map(([start, end]) => slice(bytes, start, end))
        .filter((sql) => sql !== '')
        .flatMap(parsePiece);
    try {
      return pieces(scannedRanges(text));
    } catch {
      // The scanner fails on an unterminated string or comment: cut before the statement holding
      // the error (the scanner accepts the text before it), and keep the rest as one bad statement.
      const position =
        (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails?.cursorPosition ?? 0;
      const prefix = Buffer.from(text.slice(0, Math.max(0, position - 1)), 'utf8');
      try {
        const ranges = scannedRanges(prefix.toString('utf8'));
        const last = ranges.pop()!;
        const rest = slice(bytes, last[0]);
        return [...pieces(ranges), { sql: rest, node: null, error: errorMessage(error) }];
      } catch {
        return [{ sql: text.trim(), node: null, error: errorMessage(error) }];
      }
    }
  }
}

/** The statement's identity without positions: the same SQL however spaced, cased or commented. */
function statementKey(node: Record<string, unknown>): string {
  return JSON.stringify(node, (key, value) =>
    key === 'location' || key === 'stmt_location' || key === 'stmt_len' ? undefined : value,
  );
}

export async function parsePostgresSql(text: string): Promise<ParsedStatement[]> {
  if (text.trim() === '') return [];
  loading ??= loadModule();
  await loading;
  return splitPieces(text).map((piece): ParsedStatement => {
    if (piece.node === null)
      return {
        sql: piece.sql,
        facts: null,
        error: piece.error,
        key: piece.sql,
        transactional: true,
        class: UNPARSEABLE,
      };
    return {
      sql: piece.sql,
      facts: postgresFacts(piece.node),
      error: null,
      key: statementKey(piece.node),
      transactional: postgresTransactional(piece.node),
      class: postgresStatementClass(piece.node, piece.sql),
    };
  });
}
