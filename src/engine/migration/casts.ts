// Whether PostgreSQL has a cast from one column type to another, so that `USING col::new_type`
// converts the stored values (failing only on a value that does not convert). ALTER COLUMN TYPE
// without USING needs an assignment cast; the planner always writes the explicit cast where the
// type family changes, and this tells whether that explicit cast exists at all. Facts from
// pg_cast of PostgreSQL 15: every type converts to and from the string types (I/O conversion), the
// numeric types into one another, integer ↔ boolean, the date and time types into one another,
// json ↔ jsonb, inet ↔ cidr, bit strings ↔ integers. Enums, domains and other user types go through
// text (the planner writes `::text::type`). Anything else (bigint → timestamp, boolean → date) has
// no cast: the conversion needs an expression only a person can choose (to_timestamp? days?).

const STRING = new Set(['text', 'character varying', 'character', 'name', '"char"', 'citext']);
const NUMERIC = new Set([
  'smallint',
  'integer',
  'bigint',
  'real',
  'double precision',
  'numeric',
  'money',
  'oid',
]);
const TEMPORAL = new Set([
  'date',
  'timestamp without time zone',
  'timestamp with time zone',
  'time without time zone',
  'time with time zone',
  'interval',
  'abstime',
]);

/** Families whose members cast into one another (pairs checked both ways). */
const FAMILIES: Set<string>[] = [
  NUMERIC,
  new Set(['date', 'timestamp without time zone', 'timestamp with time zone']),
  new Set(['time without time zone', 'time with time zone', 'interval']),
  new Set(['json', 'jsonb']),
  new Set(['inet', 'cidr']),
  new Set(['bit', 'bit varying', 'integer', 'bigint']),
  new Set(['integer', 'boolean']),
  new Set(['point', 'box', 'circle', 'polygon', 'lseg', 'path']),
];

/** The base type: without modifiers, array brackets and the schema of a user type. */
function base(type: string): { name: string; array: boolean; user: boolean } {
  const trimmed = type.trim().toLowerCase();
  const array = trimmed.endsWith('[]');
  const bare = trimmed
    .replace(/(\[\])+$/, '')
    .replace(/\(.*?\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  // format_type qualifies every type outside pg_catalog (search_path = '').
  const user = /^(?:"(?:[^"]|"")*"|[^".[\]\s]+)\./.test(bare);
  return { name: bare, array, user };
}

/** Whether a cast from `from` to `to` exists (PostgreSQL type names as format_type prints them). */
export function castKnown(from: string, to: string): boolean {
  const a = base(from);
  const b = base(to);
  if (a.array !== b.array) return STRING.has(a.name) || STRING.has(b.name);
  if (a.name === b.name) return true;
  if (a.user || b.user) return true; // through text
  if (STRING.has(a.name) || STRING.has(b.name)) return true;
  if (TEMPORAL.has(a.name) && a.name === 'timestamp with time zone' && b.name === 'time with time zone')
    return true;
  if (a.name.startsWith('timestamp') && b.name === 'time without time zone') return true;
  return FAMILIES.some((family) => family.has(a.name) && family.has(b.name));
}
