// An index as the schema model holds it, on a table or a materialized view (./objects.ts).
export interface IndexModel {
  name: string;
  /**
   * Key parts in order, each a column name or an expression, followed by a non-default operator
   * class, `DESC`, `NULLS FIRST|LAST` (PostgreSQL) or a prefix length `(10)` (MySQL).
   */
  columns: string[];
  /** PostgreSQL INCLUDE columns. */
  include: string[];
  unique: boolean;
  /** `btree`, `hash`, `gist`, `gin`, … (PostgreSQL); `btree`, `hash`, `fulltext`, `spatial` (MySQL). */
  method: string;
  /** The WHERE clause of a partial index (PostgreSQL). */
  predicate: string | null;
  /** PostgreSQL NULLS NOT DISTINCT (15+); absent when nulls are distinct. */
  nulls_not_distinct?: boolean;
  /** PostgreSQL storage parameters (`fillfactor=70`) as the catalog stores them; absent when none. */
  options?: string[];
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
  /**
   * MariaDB IGNORED / MySQL 8 INVISIBLE: kept up to date but not used by the optimizer (how an index
   * is tried out before it is dropped); absent when it is used.
   */
  ignored?: boolean;
}
