// What in a piece of SQL reaches outside the database (docs/contract.md §9: patches and migrations never do):
// server files, large objects, other servers, the operating system, the server's own
// configuration and processes. Pure: the text is read through each engine's own lexer (PostgreSQL's
// scanner from libpg-query; the MySQL client's lexing in mysql-sql-lexer.ts), never interpreted.
//
// Names are matched as identifiers wherever they appear, called or not, bare, quoted or
// schema-qualified: a function named without parentheses (CREATE OPERATOR … FUNCTION = x, CREATE
// CAST … WITH FUNCTION x) binds it to something that will call it. The cost is refusing a column
// that happens to carry one of these names, which is rare and renamable.
//
// Judged conservatively and not decidable here: SQL assembled at run time from pieces
// (`'pg_' || 'read_file'`, a column's content handed to EXECUTE) cannot be seen; the functions
// that run SQL text handed to them are therefore refused themselves (see DYNAMIC_SQL).
import { loadModule, scanSync } from 'libpg-query';
import { type Lexeme, lexMysql } from './mysql-sql-lexer.ts';

export type OutsideDialect = 'postgresql' | 'mysql';

// The scanner is WebAssembly that must be instantiated once before its synchronous calls.
await loadModule();

/** PostgreSQL routines that reach outside the database, each with why. */
const POSTGRES_FUNCTIONS: Record<string, string> = {
  pg_read_file: 'reads a server file',
  pg_read_binary_file: 'reads a server file',
  pg_stat_file: 'reads a server file’s metadata',
  pg_file_write: 'writes a server file (adminpack)',
  pg_file_rename: 'renames a server file (adminpack)',
  pg_file_unlink: 'deletes a server file (adminpack)',
  pg_file_sync: 'syncs a server file (adminpack)',
  pg_logdir_ls: 'lists the server’s log directory (adminpack)',
  pg_current_logfile: 'names the server’s log file path',
  pg_rotate_logfile: 'rotates the server’s log files',
  pg_reload_conf: 'reloads the server’s configuration files',
  pg_promote: 'promotes a standby server',
  pg_switch_wal: 'forces a WAL file switch on the server',
  pg_create_restore_point: 'writes a WAL restore point',
  pg_backup_start: 'starts a server backup',
  pg_backup_stop: 'stops a server backup',
  pg_start_backup: 'starts a server backup (before PostgreSQL 15)',
  pg_stop_backup: 'stops a server backup (before PostgreSQL 15)',
  pg_terminate_backend: 'ends another session',
  pg_cancel_backend: 'cancels another session’s query',
  pg_log_backend_memory_contexts: 'writes to the server log',
  pg_create_physical_replication_slot: 'creates a replication slot, kept outside transactions',
  pg_create_logical_replication_slot: 'creates a replication slot, kept outside transactions',
  pg_drop_replication_slot: 'drops a replication slot',
  pg_copy_physical_replication_slot: 'creates a replication slot',
  pg_copy_logical_replication_slot: 'creates a replication slot',
  pg_replication_slot_advance: 'moves a replication slot',
  pg_logical_emit_message: 'sends a message to logical decoding consumers (other servers)',
  pg_logical_slot_get_changes: 'consumes a replication slot',
  pg_logical_slot_get_binary_changes: 'consumes a replication slot',
  pg_replication_origin_create: 'creates replication state',
  pg_replication_origin_drop: 'drops replication state',
  pg_replication_origin_advance: 'moves replication state',
  pg_import_system_collations: 'reads the operating system’s locales',
  // Server-side large objects: lo_import and lo_export move server files in and out; the others
  // read and write large objects, which live outside every table a patch names.
  lo_import: 'reads a server file into a large object',
  lo_export: 'writes a large object to a server file',
  lo_open: 'opens a large object',
  lo_close: 'closes a large object',
  lo_creat: 'creates a large object',
  lo_create: 'creates a large object',
  lo_unlink: 'deletes a large object',
  lo_get: 'reads a large object',
  lo_put: 'writes a large object',
  lo_from_bytea: 'creates a large object',
  lo_lseek: 'moves in a large object',
  lo_lseek64: 'moves in a large object',
  lo_tell: 'reads a large object’s position',
  lo_tell64: 'reads a large object’s position',
  lo_truncate: 'truncates a large object',
  lo_truncate64: 'truncates a large object',
  loread: 'reads a large object',
  lowrite: 'writes a large object',
  lo_manage: 'deletes large objects (the lo extension’s trigger)',
};

/** Name prefixes of PostgreSQL families that all reach outside. */
const POSTGRES_PREFIXES: Record<string, string> = {
  dblink: 'connects to another server (dblink)',
  pg_ls_: 'lists a server directory',
  pg_file_: 'touches a server file (adminpack)',
  pg_read_: 'reads a server file',
};

/**
 * Functions that run SQL text handed to them: what that text calls cannot be judged before it
 * runs, and it may come from a column, so they are refused as a whole.
 */
const DYNAMIC_SQL: Record<string, string> = {
  query_to_xml: 'runs SQL text',
  query_to_xmlschema: 'runs SQL text',
  query_to_xml_and_xmlschema: 'runs SQL text',
  ts_stat: 'runs SQL text',
  ts_rewrite: 'runs SQL text (its two-argument form)',
};

/** Extensions and languages that reach other servers, server files or the operating system. */
const POSTGRES_EXTENSIONS = new Set(['dblink', 'postgres_fdw', 'file_fdw', 'adminpack', 'lo']);
const UNTRUSTED_LANGUAGES = new Set([
  'plpython3u',
  'plpythonu',
  'plpython2u',
  'plperlu',
  'pltclu',
  'plsh',
  'plv8u',
  'pljavau',
  'plrust',
  // C and internal bind a new name to a server C symbol, which may be any routine above.
  'c',
  'internal',
]);

/** MySQL/MariaDB routines (built-in and the well-known UDF libraries) that reach outside. */
const MYSQL_FUNCTIONS: Record<string, string> = {
  load_file: 'reads a server file',
  sys_exec: 'runs an operating-system command (lib_mysqludf_sys)',
  sys_eval: 'runs an operating-system command (lib_mysqludf_sys)',
  sys_bineval: 'runs machine code (lib_mysqludf_sys)',
  sys_get: 'reads an operating-system environment variable (lib_mysqludf_sys)',
  sys_set: 'sets an operating-system environment variable (lib_mysqludf_sys)',
  lib_mysqludf_sys_info: 'probes the operating-system UDF library',
  http_get: 'calls another server (mysql-udf-http)',
  http_post: 'calls another server (mysql-udf-http)',
  http_put: 'calls another server (mysql-udf-http)',
  http_delete: 'calls another server (mysql-udf-http)',
};

const MYSQL_ENGINES_OUTSIDE = new Set(['connect', 'federated', 'federatedx']);

const POSTGRES_SEQUENCE_MOVES = new Set(['nextval', 'setval']);
// MariaDB: NEXTVAL/SETVAL and NEXT VALUE FOR move a sequence; LASTVAL and PREVIOUS VALUE FOR only
// read the session's last value, so they are not moves.
const MYSQL_SEQUENCE_MOVES = new Set(['nextval', 'setval']);

/** A token of either engine, comments dropped, names unquoted and lower-cased. */
interface Token {
  kind: 'name' | 'string' | 'symbol';
  /** A name's lower-cased identifier; a string's content; a symbol's text. */
  value: string;
  /** A double-quoted MySQL string: a name under sql_mode ANSI_QUOTES. */
  maybeName?: boolean;
}

function decodeUnicodeEscapes(text: string, escapeChar = '\\'): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== escapeChar) {
      out += text[i];
      continue;
    }
    if (text[i + 1] === escapeChar) {
      out += escapeChar;
      i += 1;
    } else if (text[i + 1] === '+') {
      out += String.fromCodePoint(Number.parseInt(text.slice(i + 2, i + 8), 16) || 0);
      i += 7;
    } else {
      out += String.fromCodePoint(Number.parseInt(text.slice(i + 1, i + 5), 16) || 0);
      i += 4;
    }
  }
  return out;
}

function postgresIdentifier(text: string): string {
  if (text.startsWith('"')) return text.slice(1, -1).replaceAll('""', '"').toLowerCase();
  return text.toLowerCase();
}

function postgresStringContent(text: string): string {
  const dollar = /^(\$[^$]*\$)([\s\S]*)\1$/.exec(text);
  if (dollar) return dollar[2] ?? '';
  const quote = text.indexOf("'");
  const prefix = text.slice(0, quote).toLowerCase();
  const body = text.slice(quote + 1, -1).replaceAll("''", "'");
  if (prefix === 'e')
    return body.replace(/\\(.)/g, (_, ch: string) => ({ n: '\n', t: '\t', r: '\r' })[ch] ?? ch);
  return body;
}

/** PostgreSQL tokens, or null when the scanner refuses the text (judged as raw words then). */
function postgresTokens(sql: string): Token[] | null {
  let scanned: ReturnType<typeof scanSync>;
  try {
    scanned = scanSync(sql);
  } catch {
    return null;
  }
  const tokens: Token[] = [];
  const list = scanned.tokens;
  /** The UESCAPE clause of a U& token: read with it, then skipped. */
  const escapeClause = new Set<number>();
  for (const [i, token] of list.entries()) {
    if (token.tokenName === 'SQL_COMMENT' || token.tokenName === 'C_COMMENT' || escapeClause.has(i)) continue;
    // U&"…" and U&'…' come out of the scanner unnamed; a following UESCAPE '<c>' names their escape.
    const unicode = /^u&(["'])([\s\S]*)\1$/i.exec(token.text);
    if (unicode) {
      const uescape =
        list[i + 1]?.text.toLowerCase() === 'uescape' ? list[i + 2]?.text.slice(1, -1) : undefined;
      const quote = unicode[1] ?? '"';
      const value = decodeUnicodeEscapes(
        (unicode[2] ?? '').replaceAll(quote + quote, quote),
        uescape ?? '\\',
      );
      tokens.push(quote === '"' ? { kind: 'name', value: value.toLowerCase() } : { kind: 'string', value });
    } else if (token.tokenName === 'SCONST')
      tokens.push({ kind: 'string', value: postgresStringContent(token.text) });
    else if (token.tokenName === 'IDENT' || token.keywordKind > 0)
      tokens.push({ kind: 'name', value: postgresIdentifier(token.text) });
    else tokens.push({ kind: 'symbol', value: token.text });
  }
  return tokens;
}

/**
 * MySQL tokens. `/*! … *\/` and `/*M! … *\/` are not comments to the server, which runs what they
 * hold (on every version above the optional number): they are read as code.
 */
function mysqlTokens(sql: string): Token[] {
  const tokens: Token[] = [];
  const read = (lexeme: Lexeme) => {
    if (lexeme.kind === 'space') return;
    if (lexeme.kind === 'comment') {
      const executable = /^\/\*M?!\d*([\s\S]*?)(\*\/)?$/.exec(lexeme.text);
      if (executable) for (const inner of lexMysql(executable[1] ?? '')) read(inner);
      return;
    }
    if (lexeme.kind === 'quoted_name')
      tokens.push({ kind: 'name', value: lexeme.text.slice(1, -1).replaceAll('``', '`').toLowerCase() });
    else if (lexeme.kind === 'string') {
      const quote = lexeme.text[0] ?? "'";
      const body = lexeme.text
        .slice(1, lexeme.closed ? -1 : undefined)
        .replaceAll(quote + quote, quote)
        .replace(/\\(.)/g, (_, ch: string) => ({ n: '\n', t: '\t', r: '\r', 0: '\0' })[ch] ?? ch);
      tokens.push({ kind: 'string', value: body, maybeName: quote === '"' });
    } else if (lexeme.kind === 'word') tokens.push({ kind: 'name', value: lexeme.text.toLowerCase() });
    else tokens.push({ kind: 'symbol', value: lexeme.text });
  };
  for (const lexeme of lexMysql(sql)) read(lexeme);
  return tokens;
}

const isName = (token: Token | undefined, ...values: string[]) =>
  token?.kind === 'name' && (values.length === 0 || values.includes(token.value));

/** The statements of a token list, split at top-level semicolons. */
function statements(tokens: Token[]): Token[][] {
  const out: Token[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'symbol' && token.value === ';') out.push([]);
    else out.at(-1)?.push(token);
  }
  return out.filter((statement) => statement.length > 0);
}

function postgresNameHit(name: string): string | null {
  if (name in POSTGRES_FUNCTIONS || name in DYNAMIC_SQL) return name;
  for (const prefix of Object.keys(POSTGRES_PREFIXES)) if (name.startsWith(prefix)) return name;
  return null;
}

function mysqlNameHit(name: string): string | null {
  return name in MYSQL_FUNCTIONS ? name : null;
}

/** COPY's file and program forms (STDIN/STDOUT stay on the client connection and are fine). */
function postgresCopy(statement: Token[]): string[] {
  if (!isName(statement[0], 'copy')) return [];
  const found: string[] = [];
  let depth = 0;
  for (const [i, token] of statement.entries()) {
    if (token.kind === 'symbol' && token.value === '(') depth++;
    else if (token.kind === 'symbol' && token.value === ')') depth--;
    else if (depth === 0 && isName(token, 'program')) found.push('copy … program');
    else if (depth === 0 && isName(token, 'to', 'from') && statement[i + 1]?.kind === 'string')
      found.push(`copy … ${token.value} file`);
  }
  return found;
}

/** Strings that a PostgreSQL statement hands to the server as code: DO bodies, routine bodies. */
function postgresCodeStrings(statement: Token[]): string[] {
  const first = statement[0];
  if (isName(first, 'do')) return statement.filter((t) => t.kind === 'string').map((t) => t.value);
  const creates = isName(first, 'create') && statement.some((t) => isName(t, 'function', 'procedure'));
  if (!creates) return [];
  return statement.flatMap((token, i) => {
    if (token.kind !== 'string') return [];
    const previous = statement[i - 1];
    const afterAs = isName(previous, 'as') || (previous?.value === ',' && isName(statement[i - 2]));
    return afterAs ? [token.value] : [];
  });
}

function postgresStatement(statement: Token[], inBody: boolean): string[] {
  const found = [...postgresCopy(statement)];
  for (const [i, token] of statement.entries()) {
    if (token.kind === 'name') {
      const hit = postgresNameHit(token.value);
      if (hit) found.push(hit);
      const next = statement[i + 1];
      if (token.value === 'language' && next?.kind === 'name' && UNTRUSTED_LANGUAGES.has(next.value))
        found.push(`language ${next.value}`);
      if (token.value === 'extension' && isName(statement[i - 1], 'create')) {
        const named = statement
          .slice(i + 1)
          .find((t) => t.kind === 'name' && !['if', 'not', 'exists'].includes(t.value));
        if (named && POSTGRES_EXTENSIONS.has(named.value)) found.push(`create extension ${named.value}`);
      }
    } else if (token.kind === 'string' && inBody) found.push(...judge(token.value, 'postgresql', true));
  }
  const [first, second, third] = statement;
  if (isName(first, 'alter') && isName(second, 'system')) found.push('alter system');
  if (isName(first, 'load')) found.push('load');
  if (isName(first, 'create') && isName(second, 'server')) found.push('create server');
  if (isName(first, 'create') && isName(second, 'foreign') && isName(third, 'table'))
    found.push('create foreign table');
  if (isName(first, 'create') && isName(second, 'foreign') && isName(third, 'data'))
    found.push('create foreign data wrapper');
  if (isName(first, 'import') && isName(second, 'foreign')) found.push('import foreign schema');
  if (!inBody)
    for (const code of postgresCodeStrings(statement)) found.push(...judge(code, 'postgresql', true));
  return found;
}

function mysqlStatement(statement: Token[], inBody: boolean): string[] {
  const found: string[] = [];
  for (const [i, token] of statement.entries()) {
    const next = statement[i + 1];
    if (token.kind === 'string') {
      if (token.maybeName && next?.value === '(') {
        const hit = mysqlNameHit(token.value.toLowerCase());
        if (hit) found.push(hit);
      }
      // PREPARE … FROM '<sql>' runs the string; in a body every string is judged.
      const prepared = isName(statement[i - 1], 'from') && statement.some((t) => isName(t, 'prepare'));
      if (inBody || prepared) found.push(...judge(token.value, 'mysql', true));
      continue;
    }
    if (token.kind !== 'name') continue;
    const hit = mysqlNameHit(token.value);
    if (hit) found.push(hit);
    if (token.value === 'into' && isName(next, 'outfile', 'dumpfile')) found.push(`into ${next?.value}`);
    if (token.value === 'load' && isName(next, 'data', 'xml')) found.push(`load ${next?.value}`);
    if (token.value === 'install' && isName(next, 'plugin', 'soname')) found.push(`install ${next?.value}`);
    if (token.value === 'soname') found.push('soname');
    if (token.value === 'directory' && isName(statement[i - 1], 'data', 'index'))
      found.push(`${statement[i - 1]?.value} directory`);
    if (token.value === 'engine') {
      const engine = next?.value === '=' ? statement[i + 2] : next;
      if (engine?.kind === 'name' && MYSQL_ENGINES_OUTSIDE.has(engine.value))
        found.push(`engine ${engine.value}`);
    }
    if (token.value === 'persist' || token.value === 'persist_only')
      if (isName(statement[i - 1], 'set') || statement[i - 1]?.value === '@@') found.push('set persist');
  }
  const [first, second] = statement;
  if (isName(first, 'create') && isName(second, 'server')) found.push('create server');
  return found;
}

/** How one engine's SQL is read for what reaches outside the database. */
interface OutsideScanner {
  /** The text's tokens, or null when it does not scan (a string holding half a statement). */
  tokens(text: string): Token[] | null;
  /** What one statement reaches outside with; in a body, its strings are judged as code too. */
  statement(statement: Token[], inBody: boolean): string[];
  /** The refused name a word is, or null. */
  nameHit(word: string): string | null;
  /** Constructs of several words, for text the scanner cannot read. */
  phrases: [RegExp, string][];
  /** The calls that move a sequence. */
  sequenceMoves: ReadonlySet<string>;
  /** `NEXT VALUE FOR` moves a sequence too (MariaDB). */
  nextValueFor: boolean;
}

const SCANNERS: Record<OutsideDialect, OutsideScanner> = {
  postgresql: {
    tokens: (text) => postgresTokens(text),
    statement: (statement, inBody) => postgresStatement(statement, inBody),
    nameHit: (word) => postgresNameHit(word),
    phrases: [
      [/\bcopy\b[\s\S]*?\bprogram\b/, 'copy … program'],
      [/\balter\s+system\b/, 'alter system'],
    ],
    sequenceMoves: POSTGRES_SEQUENCE_MOVES,
    nextValueFor: false,
  },
  mysql: {
    tokens: (text) => mysqlTokens(text),
    statement: (statement, inBody) => mysqlStatement(statement, inBody),
    nameHit: (word) => mysqlNameHit(word),
    phrases: [
      [/\binto\s+outfile\b/, 'into outfile'],
      [/\binto\s+dumpfile\b/, 'into dumpfile'],
      [/\bload\s+data\b/, 'load data'],
      [/\bload\s+xml\b/, 'load xml'],
    ],
    sequenceMoves: MYSQL_SEQUENCE_MOVES,
    nextValueFor: true,
  },
};

/** Every word of the text matched against the names, and the phrases: what a body is judged by besides its tokens. */
function rawWords(text: string, dialect: OutsideDialect): string[] {
  const lower = text.toLowerCase();
  const words = lower.match(/[a-z0-9_$]+/g) ?? [];
  const named = words.flatMap((word) => {
    const hit = SCANNERS[dialect].nameHit(word);
    return hit ? [hit] : [];
  });
  return [
    ...named,
    ...SCANNERS[dialect].phrases.filter(([pattern]) => pattern.test(lower)).map(([, name]) => name),
  ];
}

const unique = (names: string[]) => [...new Set(names)];

let depth = 0;

function judge(text: string, dialect: OutsideDialect, inBody: boolean): string[] {
  // A string inside a string inside …: past a few levels it is judged by its words alone.
  if (depth > 8) return rawWords(text, dialect);
  depth++;
  try {
    const scanner = SCANNERS[dialect];
    const tokens = scanner.tokens(text);
    if (tokens === null) return rawWords(text, dialect);
    const found = statements(tokens).flatMap((statement) => scanner.statement(statement, inBody));
    // A body may be in a language the SQL scanner cannot read (plpython3u): its words count too.
    return inBody ? [...found, ...rawWords(text, dialect)] : found;
  } finally {
    depth--;
  }
}

/** The calls and constructs in `sql` that reach outside the database (server files, large objects, other servers, the OS), lower-cased names like 'pg_read_file', 'copy … program', 'into outfile', 'load_file', 'dblink_connect'. Empty when none. Strings and comments are not calls. */
export function outsideCalls(sql: string, dialect: OutsideDialect): string[] {
  return unique(judge(sql, dialect, false));
}

/** The same, for text that is itself code run later (a routine body, a view definition, a default, a generated column, a CHECK): judged conservatively, string literals included, since dynamic SQL hides in them. */
export function outsideCallsInBody(text: string, dialect: OutsideDialect): string[] {
  return unique(judge(text, dialect, true));
}

/** Sequence-moving calls (PostgreSQL setval, nextval; MariaDB NEXTVAL, SETVAL, NEXT VALUE FOR) in `sql`. */
export function sequenceMoves(sql: string, dialect: OutsideDialect): string[] {
  const scanner = SCANNERS[dialect];
  const tokens = scanner.tokens(sql);
  const names = scanner.sequenceMoves;
  if (tokens === null)
    return unique((sql.toLowerCase().match(/[a-z0-9_$]+/g) ?? []).filter((word) => names.has(word)));
  const found: string[] = [];
  for (const [i, token] of tokens.entries()) {
    if (token.kind !== 'name') continue;
    if (names.has(token.value)) found.push(token.value);
    if (
      scanner.nextValueFor &&
      token.value === 'next' &&
      isName(tokens[i + 1], 'value') &&
      isName(tokens[i + 2], 'for')
    )
      found.push('next value for');
  }
  return unique(found);
}

/** Why a name returned by the functions above is refused, for messages and docs. */
export function outsideCallReason(name: string): string {
  for (const table of [POSTGRES_FUNCTIONS, DYNAMIC_SQL, MYSQL_FUNCTIONS]) {
    const reason = table[name];
    if (reason) return reason;
  }
  for (const [prefix, reason] of Object.entries(POSTGRES_PREFIXES))
    if (name.startsWith(prefix)) return reason;
  if (name === 'load' || name.startsWith('install') || name === 'soname')
    return 'loads a shared library into the server';
  if (name.startsWith('copy')) return 'reads or writes a server file or runs a program on the server';
  if (name.startsWith('language')) return 'runs code with the server’s operating-system rights';
  if (name.startsWith('into') || name.startsWith('load') || name.endsWith('directory'))
    return 'reads or writes a server file';
  if (name.startsWith('engine') || name.includes('server') || name.includes('foreign'))
    return 'reaches another server or a server file';
  return 'changes the server outside the database';
}
