// The dry run of a patch (docs/contract.md §9): nothing is changed, whatever the SQL. The patch is checked
// again on the target as it is now (patch-safety.ts: tables whose engine keeps no transaction,
// code that reaches outside the database), then every statement is computed by reads alone
// (engine/patch/dry-run-plan.ts: each over the rows as the earlier statements leave them) inside
// a read-only transaction, under a statement timeout: the server itself refuses any write, even
// one a routine called by the statement would make. For each statement it reports the rows
// affected and up to SAMPLE_ROWS of them before and after, and refuses the constraint violations
// a read can see (NOT NULL, CHECK, unique and foreign keys) as the statement's failure. Values only a write
// would produce are null and named in `notes`.
import type { TargetHandle, TargetTransaction } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { PlanRefused, planDryRun, type StatementPlan } from '../../engine/patch/dry-run-plan.ts';
import type { StoredPatchStatement } from '../../store/tables.ts';
import { introspectSafe } from './patch-safety.ts';

/** A statement of the patch failed on the target (bad column, constraint, timeout): the SQL's fault. */
export class PatchStatementFailed extends Error {
  readonly index: number;
  constructor(index: number, message: string) {
    super(message);
    this.index = index;
  }
}

export interface DryRunStatement {
  index: number;
  affected_rows: number;
  sample_before: Record<string, unknown>[];
  sample_after: Record<string, unknown>[];
}

export interface DryRunNote {
  statement_index: number;
  text: string;
}

export interface DryRunResult {
  statements: DryRunStatement[];
  total_affected_rows: number;
  notes: DryRunNote[];
}

/** Runs one read of `plan`; an error of the SQL (not of the connection) is the statement's failure. */
async function read(tx: TargetTransaction, plan: StatementPlan, sql: string) {
  try {
    return (await tx.query(sql)).rows;
  } catch (error) {
    if (error instanceof TargetError && (error.cause === 'other' || error.cause === 'timeout'))
      throw new PatchStatementFailed(plan.index, error.message);
    throw error;
  }
}

async function computeStatement(
  tx: TargetTransaction,
  plan: StatementPlan,
  table: string,
): Promise<DryRunStatement> {
  const [summary = {}] = await read(tx, plan, plan.summarySql);
  const count = (name: string) => Number(summary[name] ?? 0);
  for (const [i, column] of plan.written.entries())
    if (column.notNull && count(`n${i}`) > 0)
      throw new PatchStatementFailed(
        plan.index,
        `null value in column "${column.name}" of relation "${table}" violates not-null constraint`,
      );
  for (const [j, check] of plan.checks.entries())
    if (count(`c${j}`) > 0)
      throw new PatchStatementFailed(
        plan.index,
        `new row for relation "${table}" violates check constraint "${check}"`,
      );
  for (const key of plan.uniqueChecks)
    if ((await read(tx, plan, key.sql)).length > 0)
      throw new PatchStatementFailed(
        plan.index,
        `duplicate key value violates unique constraint "${key.name}" (${key.columns.join(', ')})`,
      );
  for (const reference of plan.foreignKeyChecks)
    if ((await read(tx, plan, reference.sql)).length > 0)
      throw new PatchStatementFailed(plan.index, reference.message);
  const samples = await read(tx, plan, plan.sampleSql);
  const rowOf = (row: Record<string, unknown>, prefix: string) =>
    Object.fromEntries(plan.columns.map((column, i) => [column, row[`${prefix}${i}`] ?? null]));
  return {
    index: plan.index,
    affected_rows: count('affected'),
    sample_before: plan.kind === 'insert' ? [] : samples.map((row) => rowOf(row, 'o')),
    sample_after: plan.kind === 'delete' ? [] : samples.map((row) => rowOf(row, 'a')),
  };
}

/** Computes what the statements would do on `handle`, by reads in a read-only transaction. */
export async function dryRunPatch(
  handle: TargetHandle,
  statements: StoredPatchStatement[],
  options: { statementTimeoutMs: number },
): Promise<DryRunResult> {
  const model = await introspectSafe(handle, statements);
  let plans: StatementPlan[];
  try {
    plans = await planDryRun(handle.dialect, handle.sql, model, statements);
  } catch (error) {
    if (error instanceof PlanRefused) throw new PatchStatementFailed(error.index, error.message);
    throw error;
  }
  const tableOf = new Map(statements.map((s) => [s.index, s.table]));
  const results = await handle.transaction(
    async (tx) => {
      const out: DryRunStatement[] = [];
      for (const plan of plans) out.push(await computeStatement(tx, plan, tableOf.get(plan.index) ?? ''));
      return out;
    },
    { commit: false, readOnly: true, statementTimeoutMs: options.statementTimeoutMs },
  );
  return {
    statements: results,
    total_affected_rows: results.reduce((sum, s) => sum + s.affected_rows, 0),
    notes: plans.flatMap((plan) => plan.notes.map((text) => ({ statement_index: plan.index, text }))),
  };
}
