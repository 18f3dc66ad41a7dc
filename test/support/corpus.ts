// The external test corpus (Sakila, Chinook, schema-diff pairs) in ../shared/corpus beside the
// repository, and loaders that put its SQL into a throw-away database. The files create and enter
// databases of their own (CREATE DATABASE, \c, USE); the loaders drop those lines so the SQL lands
// in the database they are given.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const corpusDir = join(repoRoot, '..', 'shared', 'corpus');

export function readCorpus(...parts: string[]): string {
  const path = join(corpusDir, ...parts);
  if (!existsSync(path)) {
    throw new Error(
      `Test corpus file ${path} is missing: the corpus is expected in ../shared/corpus beside the repository`,
    );
  }
  return readFileSync(path, 'utf8');
}

/** The case folders of corpus/schema-diff (each with a.sql and b.sql). */
export function schemaDiffCases(): string[] {
  const dir = join(corpusDir, 'schema-diff');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

// Whole lines only: the files' comments say "Drop database if it exists" too.
const PG_DATABASE_LINES = /^[ \t]*(?:(?:drop|create)[ \t]+database\b[^;\n]*;|\\c(?:onnect)?\b.*)[ \t]*$/gim;
// In MySQL a schema is a database.
const MYSQL_DATABASE_LINES =
  /^[ \t]*(?:(?:drop|create)[ \t]+(?:database|schema)\b[^;\n]*;|use[ \t]+[^;\n]*;)[ \t]*$/gim;

/** Runs a PostgreSQL script (many statements, simple query protocol) in the database at `url`. */
export async function loadPostgresSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql.replace(PG_DATABASE_LINES, ''));
  } finally {
    await client.end();
  }
}

export interface MysqlLoadOptions {
  /** A database name the script writes in front of its tables (`sakila.film`), to remove. */
  dropQualifier?: string;
}

/** Runs a MySQL script in the database at `url`, honouring the mysql client's DELIMITER command. */
export async function loadMysqlSql(url: string, sql: string, options: MysqlLoadOptions = {}): Promise<void> {
  let text = sql.replace(MYSQL_DATABASE_LINES, '');
  if (options.dropQualifier) text = text.replace(new RegExp(`\\b${options.dropQualifier}\\.`, 'gi'), '');
  const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
  try {
    for (const batch of mysqlBatches(text)) {
      try {
        await connection.query(batch);
      } catch (error) {
        // ER_EMPTY_QUERY: a batch of nothing but comments.
        if ((error as { errno?: number }).errno !== 1065) throw error;
      }
    }
  } finally {
    await connection.end();
  }
}

/**
 * The script cut where the `mysql` client would cut it: text between DELIMITER lines with `;` goes
 * to the server as one multi-statement batch; under another delimiter (routine and trigger bodies
 * hold `;`) each statement ends at that delimiter and goes alone.
 */
export function mysqlBatches(text: string): string[] {
  const batches: string[] = [];
  let delimiter = ';';
  let lines: string[] = [];
  const flush = () => {
    const block = lines.join('\n');
    lines = [];
    const pieces = delimiter === ';' ? [block] : block.split(delimiter);
    for (const piece of pieces) if (piece.trim() !== '') batches.push(piece);
  };
  for (const line of text.split('\n')) {
    const match = /^\s*delimiter\s+(\S+)\s*$/i.exec(line);
    if (match) {
      flush();
      delimiter = match[1]!;
    } else {
      lines.push(line);
    }
  }
  flush();
  return batches;
}
