// SQL text parsed into statements by a dialect (libpg-query for PostgreSQL, node-sql-parser for
// MySQL), each with the facts lint needs. What the HTTP layer gets when a migration's SQL is edited.
import type { DialectName } from '../schema/model.ts';
import type { StatementFact } from './facts.ts';
import type { StatementClass } from './statement-class.ts';

export interface ParsedStatement {
  /** The statement's text as written, without the terminating semicolon. */
  sql: string;
  /** What it does; null when it does not parse. */
  facts: StatementFact[] | null;
  /** The parser's message when it does not parse. */
  error: string | null;
  /**
   * The statement's identity regardless of spacing, comments and keyword case: equal keys mean the
   * same statement (used to recognise a planned statement left unchanged by an edit).
   */
  key: string;
  /** False for a statement that cannot run inside a transaction (and for MySQL DDL). */
  transactional: boolean;
  /** What kind of statement it is, for the schema-only rule (`unparseable` when it does not parse). */
  class: StatementClass;
}

export interface SqlParser {
  readonly name: DialectName;
  /** Splits the text into statements and parses each; never throws on bad SQL. */
  parseSql(text: string): Promise<ParsedStatement[]>;
}
