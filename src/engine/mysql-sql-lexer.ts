// The lexical layer of MySQL/MariaDB SQL, as the mysql client sees it: quotes ('…', "…", `…`, with
// backslash and doubled-quote escapes), comments (`-- `, `#`, `/* */`), words and single-character
// symbols. No SQL is interpreted here. Statement splitting (dialects/mysql/mysql.sql.ts), the ALTER TABLE
// fallback (mysql.alter-fallback.ts) and outside-calls.ts read text through it, so they agree on
// what is quoted.

export interface Lexeme {
  /**
   * `string` is '…' or "…" (a string in MySQL's default sql_mode); `quoted_name` is `…`; a `word` is
   * a bare keyword, identifier or number.
   */
  kind: 'space' | 'comment' | 'string' | 'quoted_name' | 'word' | 'symbol';
  /** The source text, quotes and comment markers included. */
  text: string;
  start: number;
  end: number;
  /** False for a quote or block comment that runs to the end of the text without closing. */
  closed: boolean;
}

const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

function isLineCommentStart(text: string, i: number): boolean {
  if (text[i] === '#') return true;
  // MySQL wants whitespace (or the end) after `--`.
  return text[i] === '-' && text[i + 1] === '-' && (i + 2 >= text.length || /\s/.test(text[i + 2]!));
}

/** The end of the quote opened at `i`, and whether it closes. */
function quoteEnd(text: string, i: number): { end: number; closed: boolean } {
  const quote = text[i]!;
  let j = i + 1;
  while (j < text.length) {
    // Backslash escapes belong to strings only: inside backticks a backslash is a plain character.
    if (quote !== '`' && text[j] === '\\') j += 2;
    else if (text[j] === quote && text[j + 1] === quote) j += 2;
    else if (text[j] === quote) return { end: j + 1, closed: true };
    else j += 1;
  }
  return { end: text.length, closed: false };
}

export function lexMysql(text: string): Lexeme[] {
  const lexemes: Lexeme[] = [];
  let i = 0;
  const push = (kind: Lexeme['kind'], end: number, closed = true) => {
    lexemes.push({ kind, text: text.slice(i, end), start: i, end, closed });
    i = end;
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      const { end, closed } = quoteEnd(text, i);
      push(ch === '`' ? 'quoted_name' : 'string', end, closed);
    } else if (isLineCommentStart(text, i)) {
      const newline = text.indexOf('\n', i);
      push('comment', newline < 0 ? text.length : newline);
    } else if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      push('comment', close < 0 ? text.length : close + 2, close >= 0);
    } else if (/\s/.test(ch)) {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j += 1;
      push('space', j);
    } else if (WORD_CHAR.test(ch)) {
      let j = i + 1;
      while (j < text.length && WORD_CHAR.test(text[j]!)) j += 1;
      push('word', j);
    } else {
      push('symbol', i + 1);
    }
  }
  return lexemes;
}
