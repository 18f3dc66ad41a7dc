// Lookups keyed by text a caller chose (a SCIM filter's attribute, a PATCH path, a column name):
// `table[name]` on a plain object also finds what every object inherits, so `constructor`,
// `__proto__` or `toString` would name Object's own members and reach code as if they were entries.
// Only the object's own entries count here.

/** The entry `name` of `table` if it is the table's own, else undefined. */
export function ownEntry<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}
