// The text a CHECK is written with, so that the server stores the check it printed. PostgreSQL
// prints `status IN ('a', 'b')` on a varchar column as `status::text = ANY (ARRAY['a'::character
// varying, 'b'::character varying]::text[])`, but that printed text parses into another tree,
// which prints with a cast on every element (`ARRAY['a'::character varying::text, …]`): the same
// check, a different pg_dump. Written back as the IN list it came from, it stores the first tree.
const IDENT = '(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")';
const VARCHAR_LITERAL = "'(?:[^']|'')*'::character varying";
const VARCHAR_IN_LIST = new RegExp(
  `(${IDENT}(?:\\.${IDENT})?)::text = ANY \\(ARRAY\\[(${VARCHAR_LITERAL}(?:, ${VARCHAR_LITERAL})*)\\]::text\\[\\]\\)`,
  'g',
);

/** The expression with each printed varchar IN list written back as the IN list. */
export function checkToWrite(expression: string): string {
  return expression.replace(VARCHAR_IN_LIST, (_, column: string, literals: string) => {
    const values = literals.match(/'(?:[^']|'')*'/g) ?? [];
    return `${column} IN (${values.join(', ')})`;
  });
}
