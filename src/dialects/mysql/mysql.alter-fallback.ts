// ALTER TABLE clauses that node-sql-parser 5.4 refuses although MySQL 8 and MariaDB run them, some
// written by our own planner (mysql.ddl.ts): RENAME INDEX|KEY a TO b, DROP CONSTRAINT c, DROP CHECK c,
// ALTER [COLUMN] a SET DEFAULT expr, ALTER [COLUMN] a DROP DEFAULT. They are read token by token
// (mysql.sql-lexer.ts) into the facts the planner gives the same operations.
//
// Never a guess. The statement must be `ALTER TABLE <name> <clause>[, <clause>]...`. A clause of
// another form goes back to node-sql-parser alone, as `ALTER TABLE <name> <clause>`, so that a
// folded statement such as the planner writes (`ADD COLUMN …, RENAME INDEX …`) is read whole; if the
// parser refuses that clause too, or no clause is one of ours, the caller keeps the parser's error.
import type { StatementFact } from '../../engine/migration/facts.ts';
import type { TableRef } from '../../engine/migration/operations.ts';
import { mysqlFacts } from './mysql.sql-facts.ts';
import { type Lexeme, lexMysql } from './mysql.sql-lexer.ts';

type Node = Record<string, unknown>;
/** node-sql-parser's trees of a piece of SQL (MySQL grammar); throws when it refuses the piece. */
export type Astify = (sql: string) => Node[];

interface Reading {
  sql: string;
  table: TableRef;
  astify: Astify;
}

const isKeyword = (lexeme: Lexeme | undefined, word: string): boolean =>
  lexeme?.kind === 'word' && lexeme.text.toUpperCase() === word;

const isSymbol = (lexeme: Lexeme | undefined, symbol: string): boolean =>
  lexeme?.kind === 'symbol' && lexeme.text === symbol;

/** A name, backticked (doubled backticks inside) or bare; null for anything else. */
function identifier(lexeme: Lexeme | undefined): string | null {
  if (lexeme?.kind === 'quoted_name') {
    const name = lexeme.text.slice(1, -1).replace(/``/g, '`');
    return name === '' ? null : name;
  }
  // A bare run of digits is a number, not a name.
  if (lexeme?.kind === 'word' && !/^\d+$/.test(lexeme.text)) return lexeme.text;
  return null;
}

const textOf = (sql: string, lexemes: Lexeme[]): string =>
  sql.slice(lexemes[0]!.start, lexemes[lexemes.length - 1]!.end);

/** The clauses: cut at commas outside parentheses; null when the parentheses do not balance. */
function splitClauses(lexemes: Lexeme[]): Lexeme[][] | null {
  const clauses: Lexeme[][] = [[]];
  let depth = 0;
  for (const lexeme of lexemes) {
    if (isSymbol(lexeme, '(')) depth += 1;
    if (isSymbol(lexeme, ')')) depth -= 1;
    if (depth < 0) return null;
    if (depth === 0 && isSymbol(lexeme, ',')) clauses.push([]);
    else clauses[clauses.length - 1]!.push(lexeme);
  }
  return depth === 0 && clauses.every((clause) => clause.length > 0) ? clauses : null;
}

/**
 * Whether node-sql-parser reads the text as one expression. In parentheses, whose pairs the clause
 * split has checked, nothing in the text can reach outside the one select item.
 */
function isExpression(text: string, astify: Astify): boolean {
  try {
    const nodes = astify(`SELECT (${text})`);
    const columns = nodes[0]?.columns;
    return (
      nodes.length === 1 && nodes[0]?.type === 'select' && Array.isArray(columns) && columns.length === 1
    );
  } catch {
    return false;
  }
}

/** ALTER [COLUMN] a SET DEFAULT expr | DROP DEFAULT. */
function readColumnDefault(clause: Lexeme[], { sql, table, astify }: Reading): StatementFact | null {
  // COLUMN is reserved: a column of that name is backticked, a quoted_name that is no keyword.
  const at = isKeyword(clause[1], 'COLUMN') ? 2 : 1;
  const column = identifier(clause[at]);
  const rest = clause.slice(at + 1);
  if (column === null) return null;
  if (rest.length === 2 && isKeyword(rest[0], 'DROP') && isKeyword(rest[1], 'DEFAULT'))
    return { action: 'drop_default', table, column };
  const expression = rest.slice(2);
  if (
    isKeyword(rest[0], 'SET') &&
    isKeyword(rest[1], 'DEFAULT') &&
    expression.length > 0 &&
    isExpression(textOf(sql, expression), astify)
  )
    // Not volatile: MySQL and MariaDB change only the table's metadata, no existing row gets a
    // value computed, and a planned set_default on MySQL says the same (isVolatileDefault).
    return { action: 'set_default', table, column, volatile: false };
  return null;
}

/** The fact of one of our clauses; null for a clause of any other form. */
function readClause(clause: Lexeme[], reading: Reading): StatementFact | null {
  const { table } = reading;
  const [first, second] = clause;
  if (
    clause.length === 5 &&
    isKeyword(first, 'RENAME') &&
    (isKeyword(second, 'INDEX') || isKeyword(second, 'KEY')) &&
    isKeyword(clause[3], 'TO')
  ) {
    const name = identifier(clause[2]);
    const to = identifier(clause[4]);
    return name === null || to === null ? null : { action: 'rename_index', table, name, to };
  }
  if (clause.length === 3 && isKeyword(first, 'DROP')) {
    const name = identifier(clause[2]);
    if (name === null) return null;
    // DROP CONSTRAINT drops whatever carries the name (check, unique, foreign key): the kind is
    // unknown here, and the rollback looks the name up in the target.
    if (isKeyword(second, 'CONSTRAINT')) return { action: 'drop_constraint', table, constraint: null, name };
    if (isKeyword(second, 'CHECK')) return { action: 'drop_constraint', table, constraint: 'check', name };
    return null;
  }
  if (isKeyword(first, 'ALTER')) return readColumnDefault(clause, reading);
  return null;
}

/** A clause of another form, read by node-sql-parser on its own; null when it refuses it. */
function parserClause(tableText: string, clauseText: string, astify: Astify): StatementFact[] | null {
  try {
    const nodes = astify(`ALTER TABLE ${tableText} ${clauseText}`);
    return nodes.length === 1 && nodes[0]?.type === 'alter' ? nodes.flatMap(mysqlFacts) : null;
  } catch {
    return null;
  }
}

/** The facts of an ALTER TABLE that node-sql-parser refused, or null when it is not one we read. */
export function readAlterFallback(sql: string, astify: Astify): StatementFact[] | null {
  const all = lexMysql(sql);
  // An unclosed quote or comment: what it hides is unknown.
  if (all.some((lexeme) => !lexeme.closed)) return null;
  const lexemes = all.filter((lexeme) => lexeme.kind !== 'space' && lexeme.kind !== 'comment');
  if (!isKeyword(lexemes[0], 'ALTER') || !isKeyword(lexemes[1], 'TABLE')) return null;
  // `db.t` or `t`. A MySQL migration's tables are the connection database's (schema null), as
  // mysql.sql-facts.ts reads them: the qualifier is read past, not kept.
  const qualified = isSymbol(lexemes[3], '.');
  const name = identifier(lexemes[qualified ? 4 : 2]);
  if (name === null || (qualified && identifier(lexemes[2]) === null)) return null;
  const nameEnd = qualified ? 5 : 3;
  const clauses = splitClauses(lexemes.slice(nameEnd));
  if (clauses === null) return null;
  const reading: Reading = { sql, table: { schema: null, name }, astify };
  const tableText = textOf(sql, lexemes.slice(2, nameEnd));
  const facts: StatementFact[] = [];
  let ours = false;
  for (const clause of clauses) {
    const fact = readClause(clause, reading);
    const read = fact === null ? parserClause(tableText, textOf(sql, clause), astify) : [fact];
    if (read === null) return null;
    ours ||= fact !== null;
    facts.push(...read);
  }
  // Only our clauses are a reason to read differently from the parser.
  return ours ? facts : null;
}
