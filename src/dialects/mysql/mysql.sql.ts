// Edited migration SQL on MySQL/MariaDB: split into statements and parsed by node-sql-parser (its
// MySQL grammar, which also reads the MariaDB DDL a migration holds). A statement that does not
// parse becomes a statement with an error, never an exception.
//
// Splitting: node-sql-parser parses a whole script but neither tells where each statement is nor
// survives one bad statement, so the text is cut first. The cut is lexical only, as the mysql client
// does it: `;` outside quotes ('…', "…", `…`, with backslash and doubled-quote escapes) and comments
// (`-- `, `#`, `/* */`), read by mysql.sql-lexer.ts. No SQL is interpreted here; each piece goes to
// the parser alone. (The client's DELIMITER command is not SQL and is not supported.)
//
// node-sql-parser cannot read some ALTER TABLE clauses that MySQL and MariaDB run and that our own
// planner writes (RENAME INDEX, DROP CONSTRAINT `name`, ALTER COLUMN … SET/DROP DEFAULT): only when
// it refuses a statement does mysql.alter-fallback.ts get a chance to read it.
import nodeSqlParser from 'node-sql-parser';
import type { ParsedStatement } from '../../engine/migration/parsed.ts';
import { readAlterFallback } from './mysql.alter-fallback.ts';
import { mysqlStatementClass } from './mysql.sql-class.ts';
import { mysqlFacts, mysqlTransactional } from './mysql.sql-facts.ts';
import { lexMysql } from './mysql.sql-lexer.ts';

const parser = new nodeSqlParser.Parser();

interface Piece {
  sql: string;
  /** Without comments, spaces collapsed and lower case outside quotes: the statement's identity. */
  key: string;
}

export function splitMysql(text: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  let key = '';
  const flush = (end: number) => {
    const sql = text.slice(start, end).trim();
    const normalized = key.replace(/\s+/g, ' ').trim();
    if (normalized !== '') pieces.push({ sql, key: normalized });
    key = '';
  };
  for (const lexeme of lexMysql(text)) {
    if (lexeme.kind === 'symbol' && lexeme.text === ';') {
      flush(lexeme.start);
      start = lexeme.end;
    } else if (lexeme.kind === 'comment')
      // An executable comment (`/*! … */`) is SQL the server runs: it belongs to the identity.
      key += /^\/\*M?!/.test(lexeme.text) ? lexeme.text : ' ';
    else if (lexeme.kind === 'string' || lexeme.kind === 'quoted_name') key += lexeme.text;
    else key += lexeme.text.toLowerCase();
  }
  flush(text.length);
  // A piece that was nothing but a comment has an empty key and was left out; its text is kept
  // with the statement that follows only when it has SQL.
  return pieces;
}

/** node-sql-parser's trees of one piece of SQL; throws when the MySQL grammar refuses it. */
function astify(sql: string): Record<string, unknown>[] {
  const ast = parser.astify(sql, { database: 'MySQL' });
  return (Array.isArray(ast) ? ast : [ast]) as unknown as Record<string, unknown>[];
}

export async function parseMysqlSql(text: string): Promise<ParsedStatement[]> {
  return splitMysql(text).map((piece): ParsedStatement => {
    const statementClass = mysqlStatementClass(piece.sql);
    try {
      const nodes = astify(piece.sql);
      return {
        sql: piece.sql,
        facts: nodes.flatMap(mysqlFacts),
        error: null,
        key: piece.key,
        transactional: nodes.every(mysqlTransactional),
        class: statementClass,
      };
    } catch (error) {
      const facts = readAlterFallback(piece.sql, astify);
      // ALTER TABLE is DDL: it commits by itself, so it never belongs to a transaction.
      if (facts !== null)
        return {
          sql: piece.sql,
          facts,
          error: null,
          key: piece.key,
          transactional: false,
          class: statementClass,
        };
      // Not a statement the fallback reads either: the parser's own message is the one that helps.
      const message = error instanceof Error ? error.message : String(error);
      return {
        sql: piece.sql,
        facts: null,
        error: message,
        key: piece.key,
        transactional: false,
        class: statementClass,
      };
    }
  });
}
