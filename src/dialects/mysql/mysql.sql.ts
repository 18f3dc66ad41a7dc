// Edited migration SQL on MySQL/MariaDB: split into statements and parsed by node-sql-parser (its
// MySQL grammar, which also reads the MariaDB DDL a migration holds). A statement that does not
// parse becomes a statement with an error, never an exception.
//
// Splitting: node-sql-parser parses a whole script but neither tells where each statement is nor
// survives one bad statement, so the text is cut first. The cut is lexical only, as the mysql client
// does it: `;` outside quotes ('…', "…", `…`, with backslash and doubled-quote escapes) and comments
// (`-- `, `#`, `/* */`). No SQL is interpreted here; each piece goes to the parser alone. (The
// client's DELIMITER command is not SQL and is not supported.)
import nodeSqlParser from 'node-sql-parser';
import type { ParsedStatement } from '../../engine/migration/parsed.ts';
import { mysqlFacts, mysqlTransactional } from './mysql.sql-facts.ts';

const parser = new nodeSqlParser.Parser();

interface Piece {
  sql: string;
  /** Without comments, spaces collapsed and lower case outside quotes: the statement's identity. */
  key: string;
}

function isLineCommentStart(text: string, i: number): boolean {
  if (text[i] === '#') return true;
  // MySQL wants whitespace (or the end) after `--`.
  return text[i] === '-' && text[i + 1] === '-' && (i + 2 >= text.length || /\s/.test(text[i + 2]!));
}

export function splitMysql(text: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  let key = '';
  let i = 0;
  const flush = (end: number) => {
    const sql = text.slice(start, end).trim();
    const normalized = key.replace(/\s+/g, ' ').trim();
    if (normalized !== '') pieces.push({ sql, key: normalized });
    key = '';
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < text.length) {
        if (ch !== '`' && text[j] === '\\') j += 2;
        else if (text[j] === ch && text[j + 1] === ch) j += 2;
        else if (text[j] === ch) break;
        else j += 1;
      }
      key += text.slice(i, j + 1);
      i = j + 1;
    } else if (isLineCommentStart(text, i)) {
      while (i < text.length && text[i] !== '\n') i += 1;
      key += ' ';
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      key += ' ';
    } else if (ch === ';') {
      flush(i);
      i += 1;
      start = i;
    } else {
      key += ch.toLowerCase();
      i += 1;
    }
  }
  flush(text.length);
  // A piece that was nothing but a comment has an empty key and was left out; its text is kept
  // with the statement that follows only when it has SQL.
  return pieces;
}

export async function parseMysqlSql(text: string): Promise<ParsedStatement[]> {
  return splitMysql(text).map((piece): ParsedStatement => {
    try {
      const ast = parser.astify(piece.sql, { database: 'MySQL' });
      const nodes = (Array.isArray(ast) ? ast : [ast]) as unknown as Record<string, unknown>[];
      return {
        sql: piece.sql,
        facts: nodes.flatMap(mysqlFacts),
        error: null,
        key: piece.key,
        transactional: nodes.every(mysqlTransactional),
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { sql: piece.sql, facts: null, error: message, key: piece.key, transactional: false };
    }
  });
}
