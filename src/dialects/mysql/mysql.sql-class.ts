// The class of a MySQL/MariaDB statement for the schema-only rule of migrations (docs/contract.md §8), read from
// its leading keywords through the project's lexer (mysql.sql-lexer.ts): node-sql-parser cannot
// read triggers, routines or partition clauses, which are definitions all the same. Definitions
// of the schema's objects and `SET [SESSION]` of the lock bounds are allowed; anything else is
// named. Wherever it sits, `INTO OUTFILE|DUMPFILE` writes a server file, and an executable comment
// (`/*! … */`, `/*M! … */`) is SQL the server runs that no keyword reading sees: both are refused.
import {
  ALLOWED_SETTING,
  DEFINITION,
  ROUTINE_DEFINITION,
  type StatementClass,
  UNPARSEABLE,
} from '../../engine/migration/statement-class.ts';
import { type Lexeme, lexMysql } from './mysql.sql-lexer.ts';

/** The objects a migration defines (docs/contract.md §6 kinds as MySQL and MariaDB have them). */
const SCHEMA_OBJECTS = new Set(['TABLE', 'VIEW', 'INDEX', 'TRIGGER', 'PROCEDURE', 'FUNCTION', 'SEQUENCE']);

/** Objects whose definition is code run later. */
const ROUTINES = new Set(['TRIGGER', 'PROCEDURE', 'FUNCTION']);

/** Objects that are created like schema objects but are not the schema's (docs/contract.md §8). */
const OTHER_OBJECTS: Record<string, string> = {
  EVENT: 'EVENT',
  SERVER: 'SERVER',
  USER: 'role statement',
  ROLE: 'role statement',
  DATABASE: 'database',
  SCHEMA: 'database',
  TABLESPACE: 'tablespace',
  LOGFILE: 'tablespace',
  INSTANCE: 'ALTER INSTANCE',
  PACKAGE: 'routine package',
};

/** The settings a migration may bound its locks with (docs/contract.md §8). */
const LOCK_SETTINGS = new Set(['lock_wait_timeout', 'innodb_lock_wait_timeout', 'max_statement_time']);

const DATA_CHANGES = new Set(['INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'TRUNCATE']);
const TRANSACTION = new Set(['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'XA']);
/** Statements MySQL or MariaDB run that are none of the above: refused by their own name. */
const OTHER_STATEMENTS = new Set([
  'ANALYZE',
  'BACKUP',
  'BINLOG',
  'CACHE',
  'CHANGE',
  'CHECK',
  'CHECKSUM',
  'DEALLOCATE',
  'DESC',
  'DESCRIBE',
  'EXECUTE',
  'EXPLAIN',
  'FLUSH',
  'GET',
  'HANDLER',
  'HELP',
  'INSTALL',
  'KILL',
  'LOCK',
  'OPTIMIZE',
  'PREPARE',
  'PURGE',
  'REPAIR',
  'RESET',
  'RESIGNAL',
  'SHOW',
  'SHUTDOWN',
  'SIGNAL',
  'STOP',
  'UNINSTALL',
  'UNLOCK',
  'USE',
]);

const refused = (name: string): StatementClass => ({ schema_only: false, name });

const isExecutableComment = (lexeme: Lexeme) => lexeme.kind === 'comment' && /^\/\*M?!/.test(lexeme.text);

/** `SET [SESSION|LOCAL] name = number|DEFAULT`, or `SET @@[session.]name = …`, one assignment. */
function isLockSetting(tokens: Lexeme[]): boolean {
  const text = tokens
    .slice(1)
    .map((token) => token.text)
    .join(' ');
  const match =
    /^(?:(?:SESSION|LOCAL) |@ @ (?:SESSION \. )?)?(\w+) (?:=|: =) (\d+(?: \. \d+)?|DEFAULT)$/i.exec(text);
  return match !== null && LOCK_SETTINGS.has(match[1]!.toLowerCase());
}

/** The object word of CREATE / ALTER / DROP, past OR REPLACE, DEFINER = …, ALGORITHM = … and such. */
function objectWord(words: string[]): string | null {
  for (const word of words.slice(1, 16)) {
    if (SCHEMA_OBJECTS.has(word) || word in OTHER_OBJECTS) return word;
  }
  return null;
}

/** The class of one statement's text (without its terminating `;`). */
export function mysqlStatementClass(sql: string): StatementClass {
  const lexemes = lexMysql(sql);
  if (lexemes.some((lexeme) => !lexeme.closed)) return UNPARSEABLE;
  if (lexemes.some(isExecutableComment)) return refused('executable comment (/*! … */)');
  const tokens = lexemes.filter((lexeme) => lexeme.kind !== 'space' && lexeme.kind !== 'comment');
  const words = tokens.filter((token) => token.kind === 'word').map((token) => token.text.toUpperCase());
  const first = tokens[0]?.kind === 'word' ? words[0]! : null;
  if (first === null) return UNPARSEABLE;
  const joined = ` ${words.join(' ')} `;
  if (/ INTO (OUTFILE|DUMPFILE) /.test(joined)) return refused('… INTO OUTFILE');
  if (first === 'CREATE' || first === 'ALTER' || first === 'DROP' || first === 'RENAME') {
    const object = objectWord(words);
    if (object !== null && ROUTINES.has(object) && first !== 'DROP') return ROUTINE_DEFINITION;
    if (object !== null && SCHEMA_OBJECTS.has(object)) return DEFINITION;
    const label = object === null ? null : OTHER_OBJECTS[object]!;
    if (object !== null && label === object) return refused(`${first} ${object}`);
    if (object !== null) return refused(`${label} (${first} ${object})`);
    return refused(`${first} ${words[1] ?? ''}`.trim());
  }
  if (first === 'SET') {
    if (isLockSetting(tokens)) return ALLOWED_SETTING;
    if (words[1] === 'ROLE' || words[1] === 'DEFAULT' || words[1] === 'PASSWORD')
      return refused(`role statement (SET ${words[1]})`);
    return refused(`setting (SET ${tokens[1]?.text ?? ''})`.replace(' )', ')'));
  }
  if (DATA_CHANGES.has(first)) return refused(`data change (${first})`);
  if (first === 'LOAD') return refused(`LOAD ${words[1] ?? ''}`.trim());
  if (first === 'CALL') return refused('routine call (CALL …)');
  if (first === 'DO') return refused('routine call (DO …)');
  if (first === 'SELECT' || first === 'WITH' || first === 'VALUES' || first === 'TABLE') {
    const call = tokens.some(
      (token, index) =>
        token.kind === 'word' && tokens[index + 1]?.kind === 'symbol' && tokens[index + 1]!.text === '(',
    );
    return refused(call ? `routine call (${first} …)` : `query (${first})`);
  }
  if (first === 'GRANT' || first === 'REVOKE') return refused(`privileges (${first})`);
  if (TRANSACTION.has(first)) return refused('transaction control');
  return OTHER_STATEMENTS.has(first) ? refused(first) : UNPARSEABLE;
}
