// Locking a table's writes out for the rest of a transaction while other sessions may still read
// it (an in-place anonymization streams a table out through a second session while the first holds
// the lock). Per engine, as the row pipeline's other engine differences are:
// PostgreSQL: `LOCK TABLE … IN EXCLUSIVE MODE` (blocks every write, not plain reads or COPY TO).
// MySQL/MariaDB: `LOCK TABLES` would commit the transaction, so every row is locked with a locking
// read instead; under InnoDB's default REPEATABLE READ the full scan's next-key locks also close
// the gaps, so new rows wait too. Plain (consistent) reads of other sessions are not blocked.
// Each answers the table's row count (`n`), the run's progress total.
import type { DialectName } from '../engine/schema/model.ts';

export const writeLocks: Record<DialectName, (table: string) => string[]> = {
  postgresql: (table) => [`LOCK TABLE ${table} IN EXCLUSIVE MODE`, `SELECT COUNT(*) AS n FROM ${table}`],
  // Not inside a derived table: MariaDB may read one without the locks asked of it.
  mysql: (table) => [`SELECT COUNT(*) AS n FROM ${table} FOR UPDATE`],
};
