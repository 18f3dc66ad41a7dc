// How an in-place run (anonymize-run.ts) stages a table's transformed rows and writes them back.
// The stage is a session-private table with the rows' key and transformed columns, plus a copy of each row's
// original key when the key itself is transformed (the row is found by what it held), plus the
// row's rank when a transformed column belongs to a unique key (engine/anonymize/unique-swap.ts:
// such columns pass through temporary values made from the rank, so no row collides with another
// mid-UPDATE). The write-back is set-based: one UPDATE … FROM the stage joined on the key, or two
// when columns are swapped (all to temporary values, then all to their final values).
import { ownEntry } from '../../core/own.ts';
import type { MigrationDialect, RowSession } from '../../dialects/dialect.ts';
import { columnShape } from '../../engine/anonymize/column-type.ts';
import {
  columnsToSwap,
  integerTemporaries,
  markerFits,
  TEXT_MARKERS,
} from '../../engine/anonymize/unique-swap.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';
import type { TableModel } from '../../engine/schema/model.ts';
import type { RowExtras } from './transform-pool.ts';

const RANK = 'dbops_rank';
const keyCopy = (i: number) => `dbops_key_${i}`;

export interface Stage {
  /** Unquoted: the row stream writes into it by name. */
  name: string;
  /** What the row stream writes, in order: the key and transformed columns (in the table's order), then the key copies and the rank. */
  columns: string[];
  kinds: ValueKind[];
  /** The fields appended to each streamed row: its original key (when transformed), then its rank (when swapping). */
  extras: RowExtras;
  createSql: string;
  /** Transformed columns of a unique key: written through temporary values. */
  swap: string[];
  keyTransformed: boolean;
}

export function planStage(
  dialect: MigrationDialect,
  table: { model: TableModel; qualified: string },
  columns: string[],
  kinds: ValueKind[],
  key: string[],
  transformed: string[],
  name: string,
): Stage {
  const q = (n: string) => dialect.quoteIdent(n);
  const keyTransformed = key.some((k) => transformed.includes(k));
  const swap = columnsToSwap(table.model, transformed);
  const keyAt = key.map((k) => columns.indexOf(k));
  const select = [
    ...columns.map(q),
    ...(keyTransformed ? key.map((k, i) => `${q(k)} AS ${q(keyCopy(i))}`) : []),
    ...(swap.length > 0 ? [`0 AS ${q(RANK)}`] : []),
  ];
  return {
    name,
    columns: [
      ...columns,
      ...(keyTransformed ? key.map((_, i) => keyCopy(i)) : []),
      ...(swap.length > 0 ? [RANK] : []),
    ],
    kinds: [
      ...kinds,
      ...(keyTransformed ? keyAt.map((i) => kinds[i] as ValueKind) : []),
      ...(swap.length > 0 ? (['integer'] as ValueKind[]) : []),
    ],
    extras: { keyAt: keyTransformed ? keyAt : [], rank: swap.length > 0 },
    // Built from a SELECT (not LIKE): the extra columns take their types from it, in both engines,
    // and a MySQL TEMPORARY table made so commits nothing. Session-private; dropped after the write.
    createSql: `CREATE TEMPORARY TABLE ${q(name)} AS SELECT ${select.join(', ')} FROM ${table.qualified} WHERE 1 = 0`,
    swap,
    keyTransformed,
  };
}

/**
 * The expression of a swapped column's temporary value over the stage's alias `s`, or null when
 * none fits (the column is then written in one step, and a collision fails the group, rolled back).
 */
async function temporaryOf(
  session: RowSession,
  dialect: MigrationDialect,
  column: { name: string; type: string },
  tables: { target: string; stage: string },
  rows: number,
): Promise<string | null> {
  const q = (n: string) => dialect.quoteIdent(n);
  const shape = columnShape(column.type);
  const c = q(column.name);
  if (shape.family === 'integer') {
    // Two queries: MySQL cannot open a TEMPORARY table twice in one statement.
    let low: bigint | null = null;
    let high: bigint | null = null;
    for (const from of [tables.target, tables.stage]) {
      const { rows: found } = await session.query(`SELECT MIN(${c}) AS low, MAX(${c}) AS high FROM ${from}`);
      const row = found[0] as { low: unknown; high: unknown };
      if (row.low !== null) {
        const l = BigInt(String(row.low));
        const h = BigInt(String(row.high));
        low = low === null || l < low ? l : low;
        high = high === null || h > high ? h : high;
      }
    }
    if (low === null || high === null) return null;
    const plan = integerTemporaries(shape, { low, high }, rows);
    if (!plan) return null;
    return `(${plan.base} ${plan.step === 1n ? '+' : '-'} s.${q(RANK)})`;
  }
  if (shape.family === 'text')
    for (const marker of TEXT_MARKERS) {
      if (!markerFits(shape, marker, rows)) continue;
      let used = false;
      for (const from of [tables.target, tables.stage]) {
        // The markers are constants of this file, free of LIKE's wildcards and of quotes.
        const { rows: hit } = await session.query(
          `SELECT 1 AS hit FROM ${from} WHERE ${c} LIKE '${marker}%' LIMIT 1`,
        );
        used ||= hit.length > 0;
      }
      if (!used) return `CONCAT('${marker}', s.${q(RANK)})`;
    }
  return null;
}

/** Writes the stage's transformed columns back into the table, joined on `key`; then drops the stage. */
export async function writeBack(
  session: RowSession,
  dialect: MigrationDialect,
  table: { model: TableModel; qualified: string },
  stage: Stage,
  key: string[],
  transformed: string[],
  rows: number,
): Promise<void> {
  const q = (n: string) => dialect.quoteIdent(n);
  const target = { table: table.qualified, alias: 't' };
  const staged = { table: q(stage.name), alias: 's' };
  const original = (k: string, i: number) => (stage.keyTransformed ? `s.${q(keyCopy(i))}` : `s.${q(k)}`);
  let on = key.map((k, i) => `t.${q(k)} = ${original(k, i)}`).join(' AND ');
  if (stage.swap.length > 0 && rows > 0) {
    const temporaries: Record<string, string> = {};
    for (const name of stage.swap) {
      const column = table.model.columns.find((c) => c.name === name) as { name: string; type: string };
      const expression = await temporaryOf(
        session,
        dialect,
        column,
        { target: table.qualified, stage: staged.table },
        rows,
      );
      if (expression) temporaries[name] = expression;
    }
    const swapped = Object.keys(temporaries);
    if (swapped.length > 0) {
      await session.query(dialect.updateFrom(target, staged, on, swapped, temporaries));
      // A swapped key column now holds its temporary value: the rows are found by it.
      // Own entries only: a key column named `constructor` or `toString` has no temporary.
      on = key.map((k, i) => `t.${q(k)} = ${ownEntry(temporaries, k) ?? original(k, i)}`).join(' AND ');
    }
  }
  await session.query(dialect.updateFrom(target, staged, on, transformed));
  await session.query(
    `DROP ${dialect.capabilities.transactionalDdl ? '' : 'TEMPORARY '}TABLE ${staged.table}`,
  );
}
