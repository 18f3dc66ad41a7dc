// MySQL/MariaDB partitioning as one clause, rebuilt from information_schema.PARTITIONS: the method,
// its expression or columns, and each partition with its bound (RANGE, LIST and their COLUMNS
// forms), or the partition count (HASH, KEY). The clause is what CREATE TABLE … PARTITION BY and
// ALTER TABLE … PARTITION BY take, and what the model compares. Subpartitions are not modelled.
import type { PartitionRow } from './mysql.catalog.ts';

const quoted = (name: string) => `\`${name.replace(/`/g, '``')}\``;

export function partitionClause(rows: PartitionRow[]): string | null {
  const first = rows[0];
  if (!first) return null;
  const method = first.method.toUpperCase();
  const expression = first.expression ?? '';
  if (/HASH|KEY/.test(method) && !/COLUMNS/.test(method)) {
    const names = rows.every((row, i) => row.name === `p${i}`);
    if (names) return `${method} (${expression}) PARTITIONS ${rows.length}`;
  }
  const bound = (row: PartitionRow) => {
    if (/^RANGE/.test(method))
      return row.description === 'MAXVALUE'
        ? ' VALUES LESS THAN MAXVALUE'
        : ` VALUES LESS THAN (${row.description})`;
    if (/^LIST/.test(method)) return ` VALUES IN (${row.description})`;
    return '';
  };
  const head = /COLUMNS/.test(method) ? `${method}(${expression})` : `${method} (${expression})`;
  return `${head} (${rows.map((row) => `PARTITION ${quoted(row.name)}${bound(row)}`).join(', ')})`;
}
