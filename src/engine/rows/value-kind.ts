// What a column's values are, in the row pipeline's neutral terms, whatever the engine: each dialect
// maps its type names onto these (its RowFormat.valueKind), and a writer converts by the kinds of
// the two ends. The neutral text form of each kind (copy-text.ts holds the framing):
//   integer, decimal, float: as the source prints them (decimals never pass through a JS number)
//   boolean: `t`/`f` (PostgreSQL) or `0`/`1` (MySQL tinyint(1)); both engines' writers take both
//   date `YYYY-MM-DD`; time `HH:MM:SS[.ffffff]`; timestamp `YYYY-MM-DD HH:MM:SS[.ffffff]`
//   timestamptz: the same in UTC, possibly followed by `+00` (PostgreSQL prints it)
//   json: the document's text; uuid, enum, text: the text
//   binary: `\x` followed by lowercase hex (PostgreSQL's bytea_output = hex)
//   array: PostgreSQL's array literal; no other engine holds it, so a copy to one is refused
// Pure.

export const VALUE_KINDS = [
  'text',
  'integer',
  'decimal',
  'float',
  'boolean',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'json',
  'uuid',
  'binary',
  'enum',
  'array',
  'other',
] as const;

export type ValueKind = (typeof VALUE_KINDS)[number];
