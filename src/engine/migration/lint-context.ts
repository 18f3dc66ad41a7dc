// What lint knows about the target beyond the statements: its schema (foreign keys, current column
// types) and its tables' statistics, which decide "populated" and "large" (docs/contract.md §8: from the target's
// real statistics; thresholds configurable, default large = 1,000,000 rows or 1 GiB).
import { traitsOf } from '../schema/engine-traits.ts';
import { type DialectName, type SchemaModel, type TableModel, tableKey } from '../schema/model.ts';
import type { TableRef } from './operations.ts';

export interface TableStats {
  schema: string | null;
  name: string;
  /** The planner's row estimate (PostgreSQL reltuples, InnoDB TABLE_ROWS); null when unknown. */
  rows: number | null;
  /** Table, index and TOAST bytes. */
  bytes: number | null;
  /** Whether the table holds at least one row (asked of the table when the estimate is 0 or unknown). */
  populated: boolean;
}

export interface LintThresholds {
  large_rows: number;
  large_bytes: number;
}

export const DEFAULT_LINT_THRESHOLDS: LintThresholds = { large_rows: 1_000_000, large_bytes: 1024 ** 3 };

export interface LintContext {
  dialect: DialectName;
  /** The target as introspected; without it foreign keys and former column types are unknown. */
  target?: SchemaModel | null;
  /** The target's table statistics; without them "populated" and "large" are unknown. */
  stats?: TableStats[] | null;
  thresholds?: Partial<LintThresholds>;
  /**
   * The lock timeout the apply will set. When it sets none (null), statements that take an
   * exclusive lock on an existing table are flagged `lock-timeout-missing`.
   */
  lock_timeout_ms?: number | null;
}

/** What lint knows of one table a statement touches. */
export interface TableInfo {
  key: string;
  model: TableModel | null;
  /** Null when no statistics were given for it. */
  populated: boolean | null;
  large: boolean | null;
  rows: number | null;
  bytes: number | null;
}

export function tableResolver(context: LintContext): (table: TableRef) => TableInfo {
  const thresholds = { ...DEFAULT_LINT_THRESHOLDS, ...context.thresholds };
  const tables = context.target?.tables ?? [];
  const stats = context.stats ?? null;
  const schemas = traitsOf(context.dialect).schemas;
  return (table) => {
    // An unqualified PostgreSQL name (edited SQL) is taken as the table of that name, public first.
    const pick = <T extends { schema: string | null; name: string }>(list: T[]): T | null => {
      const found = list.filter(
        (t) => t.name === table.name && (!schemas || table.schema === null || t.schema === table.schema),
      );
      return found.find((t) => t.schema === 'public') ?? found[0] ?? null;
    };
    const model = pick(tables);
    const stat = stats === null ? null : pick(stats);
    const key = model
      ? tableKey(model)
      : table.schema === null
        ? table.name
        : `${table.schema}.${table.name}`;
    if (stats === null) return { key, model, populated: null, large: null, rows: null, bytes: null };
    if (stat === null)
      return { key, model, populated: model === null ? false : null, large: null, rows: null, bytes: null };
    const large =
      (stat.rows !== null && stat.rows >= thresholds.large_rows) ||
      (stat.bytes !== null && stat.bytes >= thresholds.large_bytes);
    return { key, model, populated: stat.populated, large, rows: stat.rows, bytes: stat.bytes };
  };
}

/** `about 1.2M rows, 3.4 GiB` for messages. */
export function describeSize(info: TableInfo): string {
  const parts: string[] = [];
  if (info.rows !== null) parts.push(`about ${compact(info.rows)} rows`);
  if (info.bytes !== null) parts.push(bytes(info.bytes));
  return parts.join(', ');
}

function compact(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
