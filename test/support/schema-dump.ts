// The independent oracle of schema round trips: the engines' own dump tools (`pg_dump
// --schema-only`, `mariadb-dump --no-data`), normalised so that two databases holding the same
// schema print the same text. What normalisation forgives, and why: session settings and comments
// of the tool (not schema); statement order (a plan creates objects in another order than a script);
// column order inside CREATE TABLE (a planned ADD COLUMN appends where the source may have the
// column in the middle; the model records the order without comparing it); MariaDB's
// AUTO_INCREMENT counter (data, not schema); the database's own name where MariaDB qualifies a
// sequence with it. Everything else must be equal to the character.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { DialectName } from '../../src/engine/schema/model.ts';

const run = promisify(execFile);

/** The schema dump of the database at `url` (a `postgres://` or `mysql://` URL on 127.0.0.1). */
export async function dumpSchema(url: string, dialect: DialectName): Promise<string> {
  const parsed = new URL(url);
  if (dialect === 'postgresql') {
    // This service's backups of dropped data are not schema (docs/architecture.md).
    const args = ['--schema-only', '--no-owner', '--no-privileges', '--exclude-schema=dbops_backup', url];
    const { stdout } = await run('pg_dump', args, {
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }
  const args = [
    '--no-data',
    '--skip-comments',
    '--skip-dump-date',
    '--routines',
    '--events',
    '--triggers',
    `--host=${parsed.hostname}`,
    `--port=${parsed.port || '3306'}`,
    `--user=${decodeURIComponent(parsed.username)}`,
    decodeURIComponent(parsed.pathname.slice(1)),
  ];
  if (parsed.password) args.unshift(`--password=${decodeURIComponent(parsed.password)}`);
  const { stdout } = await run('mariadb-dump', args, { maxBuffer: 64 * 1024 * 1024 });
  // MariaDB writes the database's own name into a sequence default (`nextval(`db`.`seq`)`): the
  // name of the database is not part of its schema.
  const database = decodeURIComponent(parsed.pathname.slice(1));
  return stdout.split(`\`${database}\`.`).join('');
}

const NOISE: Record<DialectName, RegExp[]> = {
  postgresql: [/^--/, /^SET /, /^SELECT pg_catalog\.set_config/, /^\\/],
  mysql: [
    /^--/,
    /^\/\*M!999999/, // the sandbox-mode marker of recent mariadb-dump
    /^\/\*![0-9]+ SET /,
    /^\/\*M?!\d+ SET /,
    /^SET /,
    /^\/\*!40000 ALTER TABLE/,
    /^(UN)?LOCK TABLES/,
  ],
};

/** The dump with the tool's noise removed, as sorted statements with sorted column lines. */
export function normalizeDump(dump: string, dialect: DialectName): string {
  const lines = dump
    .split('\n')
    .filter((line) => !NOISE[dialect].some((pattern) => pattern.test(line)))
    .map((line) => (dialect === 'mysql' ? line.replace(/ AUTO_INCREMENT=\d+/, '') : line));
  const statements = lines
    .join('\n')
    .split(/;\n|;;\n|\nDELIMITER .*\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter((statement) => statement !== '' && !/^DELIMITER\b/.test(statement))
    .filter((statement) => !statement.includes('_dbops_bak_'));
  return statements.map(sortTableBody).sort().join(';\n\n');
}

/**
 * CREATE TABLE with its column and constraint lines sorted (commas dropped: the last has none), what
 * follows the body (INHERITS, PARTITION BY, WITH) kept as it is.
 */
function sortTableBody(statement: string): string {
  const match = /^(CREATE TABLE [^\n]*\(\n)([\s\S]*?)(\n\)[\s\S]*)$/.exec(statement);
  if (!match) return statement;
  const body = match[2]!
    .split('\n')
    .map((line) => line.replace(/,$/, ''))
    .sort();
  return `${match[1]}${body.join('\n')}${match[3]}`;
}

/** The normalised dumps of two databases, for one `expect(a).toBe(b)`. */
export async function normalizedDumps(dialect: DialectName, ...urls: string[]): Promise<string[]> {
  return Promise.all(urls.map(async (url) => normalizeDump(await dumpSchema(url, dialect), dialect)));
}
