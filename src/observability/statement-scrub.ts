// A statement as a trace may carry it: its shape without its values. The store's statements are
// parameterised already, but a patch or an edited migration is SQL a user wrote, literals and all
// (an e-mail in a WHERE, a password in an UPDATE). Every literal becomes `?` and comments go; the
// placeholders ($1, ?) and the identifiers stay. Not a parser: it only has to tell where a quoted
// text or a number begins and ends, and when it cannot tell (an unterminated quote) it drops the rest.

export type StatementDialect = 'postgresql' | 'mysql';

// One alternative per token that may hold a value or hide one, tried left to right at each point.
const TOKENS: Record<StatementDialect, RegExp> = {
  postgresql: new RegExp(
    [
      String.raw`--[^\n]*`, // line comment
      String.raw`/\*[\s\S]*?\*/`, // block comment
      String.raw`\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$`, // dollar-quoted text
      String.raw`[EeBbXxUu]&?'(?:[^'\\]|\\.|'')*'`, // E'…', B'…', X'…', U&'…' (backslash escapes in E'')
      String.raw`'(?:[^']|'')*'`, // '…' with '' inside
      String.raw`"(?:[^"]|"")*"`, // a quoted identifier: kept
      String.raw`(?<![\w$.])\d+(?:\.\d*)?(?:[eE][+-]?\d+)?`, // numbers, never $1 or t1
      String.raw`(?<![\w$])\.\d+(?:[eE][+-]?\d+)?`,
      String.raw`'|\$(?:[A-Za-z_]\w*)?\$`, // an opening quote with no end: everything after it is dropped
    ].join('|'),
    'g',
  ),
  mysql: new RegExp(
    [
      String.raw`(?:--\s|#)[^\n]*`,
      String.raw`/\*[\s\S]*?\*/`,
      String.raw`[XxBbNn]?'(?:[^'\\]|\\.|'')*'`, // '…', X'…', b'…', N'…', with \' and ''
      String.raw`"(?:[^"\\]|\\.|"")*"`, // "…" is a string in MySQL's default mode
      '`(?:[^`]|``)*`', // a quoted identifier: kept
      String.raw`0[xX][0-9a-fA-F]+|0[bB][01]+`,
      String.raw`(?<![\w$.])\d+(?:\.\d*)?(?:[eE][+-]?\d+)?`,
      String.raw`(?<![\w$])\.\d+(?:[eE][+-]?\d+)?`,
      String.raw`['"]`,
    ].join('|'),
    'g',
  ),
};

export function scrubStatement(text: string, dialect: StatementDialect): string {
  let scrubbed = '';
  let from = 0;
  for (const match of text.matchAll(TOKENS[dialect])) {
    const token = match[0];
    scrubbed += text.slice(from, match.index);
    from = match.index + token.length;
    const first = token[0];
    const quotedName = first === '`' || (first === '"' && dialect === 'postgresql');
    if (quotedName) scrubbed += token;
    else if (first === '-' || first === '#' || (first === '/' && token[1] === '*')) scrubbed += ' ';
    else if (token === "'" || token === '"' || /^\$\w*\$$/.test(token)) {
      // An unterminated quote: nothing after it can be told apart, so nothing after it is kept.
      return `${scrubbed}?`;
    } else scrubbed += '?';
  }
  return scrubbed + text.slice(from);
}
