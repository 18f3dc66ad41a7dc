// The external test corpus (Sakila, Chinook, schema-diff pairs): real schemas written elsewhere, so
// not part of the repository. Its folder comes from CORPUS_DIR (`.ci/run` sets it when a corpus
// sits beside the checkout); without it the suites that read it are skipped with one loud
// line, so a clone passes on its own. Also the loaders that put SQL (the corpus's or a fixture's)
// into a throw-away database: the corpus files create and enter databases of their own (CREATE
// DATABASE, \c, USE), and the loaders drop those lines so the SQL lands in the database they are given.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';

const configured = process.env.CORPUS_DIR?.trim() ?? '';
/** The corpus folder, or undefined when CORPUS_DIR is unset or empty. */
export const corpusDir: string | undefined = configured === '' ? undefined : resolve(configured);

// A folder that was asked for but is not there is a mistake to report, not a reason to skip.
if (corpusDir !== undefined && !existsSync(join(corpusDir, 'schema-diff'))) {
  throw new Error(`CORPUS_DIR=${configured} has no test corpus (no schema-diff folder in ${corpusDir})`);
}

/**
 * Whether the corpus is there. When it is not, prints the one loud line naming `what` (the suite
 * skipped), as the database-backed suites do for a missing server.
 */
export function corpusAvailable(what: string): boolean {
  if (corpusDir !== undefined) return true;
  console.warn(
    `\n*** SKIPPED ${what}: no test corpus (set CORPUS_DIR to the folder holding sakila/, chinook/ ` +
      'and schema-diff/; `bash .ci/run` sets it when a corpus sits beside the checkout) ***\n',
  );
  return false;
}

function requireCorpusDir(): string {
  if (corpusDir === undefined) {
    throw new Error('The test corpus is read without CORPUS_DIR: guard the suite with corpusAvailable()');
  }
  return corpusDir;
}

export function readCorpus(...parts: string[]): string {
  return readFileSync(join(requireCorpusDir(), ...parts), 'utf8');
}

/** The case folders of corpus/schema-diff (each with a.sql and b.sql); none without the corpus. */
export function schemaDiffCases(): string[] {
  if (corpusDir === undefined) return [];
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

/** The Sakila tables whose rows `loadSakilaRows` can load on both engines, parents first. */
export type SakilaTable = 'language' | 'category' | 'actor' | 'film' | 'film_actor' | 'film_category';

/**
 * Rows of the Sakila data (`postgres-data-copy.sql`, PostgreSQL COPY text) into the tables of a
 * loaded Sakila schema at `url`, PostgreSQL or MySQL: the corpus has rows only for PostgreSQL. The
 * columns both engines have are inserted (PostgreSQL's `film.fulltext` is not MySQL's), a text
 * array becomes a MySQL SET, and on PostgreSQL the serial sequences move past the loaded keys.
 */
export async function loadSakilaRows(url: string, tables: SakilaTable[]): Promise<void> {
  const blocks = copyBlocks(readCorpus('sakila', 'postgres-data-copy.sql'));
  const batches = tables.map((table) => {
    const block = blocks.get(table);
    if (!block) throw new Error(`The Sakila data has no rows for ${table}`);
    return { table, ...block };
  });
  if (url.startsWith('mysql')) {
    const connection = await mysql.createConnection({ uri: url });
    try {
      for (const { table, columns, rows } of batches) {
        const [found] = await connection.query(
          'select column_name as name from information_schema.columns where table_schema = database() and table_name = ?',
          [table],
        );
        const known = new Set((found as { name: string }[]).map((c) => c.name.toLowerCase()));
        const keep = columns.flatMap((c, i) => (known.has(c) ? [i] : []));
        const values = rows.map((row) => keep.map((i) => pgArrayToSet(row[i] ?? null)));
        for (let at = 0; at < values.length; at += 1_000)
          await connection.query('INSERT INTO ?? (??) VALUES ?', [
            table,
            keep.map((i) => columns[i]),
            values.slice(at, at + 1_000),
          ]);
      }
    } finally {
      await connection.end();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const { table, columns, rows } of batches) {
      for (let at = 0; at < rows.length; at += 1_000) {
        const slice = rows.slice(at, at + 1_000);
        const tuples = slice.map(
          (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
        );
        await client.query(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`,
          slice.flat(),
        );
      }
      // The schema's sequences are not OWNED BY their columns: the name is read from the default.
      const serials = await client.query(
        `select column_name as name, substring(column_default from 'nextval\\(''([^'']+)''') as sequence
           from information_schema.columns
          where table_schema = current_schema() and table_name = $1 and column_default like 'nextval(%'`,
        [table],
      );
      for (const { name, sequence } of serials.rows)
        await client.query(`select setval($1::regclass, (select max(${name}) from ${table}))`, [sequence]);
    }
  } finally {
    await client.end();
  }
}

/** The COPY … FROM stdin blocks of a dump: table to column names and decoded rows (null for \N). */
function copyBlocks(dump: string): Map<string, { columns: string[]; rows: (string | null)[][] }> {
  const blocks = new Map<string, { columns: string[]; rows: (string | null)[][] }>();
  const copy = /^COPY (?:public\.)?(\w+) \(([^)]*)\) FROM stdin;\n([\s\S]*?)^\\\.$/gm;
  for (const [, table, columns, body] of dump.matchAll(copy)) {
    const rows = body!
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\t').map((field) => (field === '\\N' ? null : unescapeCopy(field))));
    blocks.set(table!, { columns: columns!.split(', '), rows });
  }
  return blocks;
}

const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

function unescapeCopy(field: string): string {
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code.startsWith('x')) return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    return COPY_ESCAPES[code] ?? code;
  });
}

/** `{Trailers,"Deleted Scenes"}` (a PostgreSQL text array) to `Trailers,Deleted Scenes` (a SET). */
function pgArrayToSet(value: string | null): string | null {
  if (value === null || !/^\{.*\}$/.test(value)) return value;
  return value
    .slice(1, -1)
    .split(',')
    .map((item) => item.replace(/^"(.*)"$/, '$1'))
    .join(',');
}
