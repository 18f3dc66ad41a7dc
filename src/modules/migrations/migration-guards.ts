// What the server checks before a migration's run is created (docs/contract.md §8), the same whichever client
// asks: the SQL carries schema only and reaches nothing outside the database (at edit, and again at
// apply for SQL stored before the rule), no stored lint error stands, and a run that destroys data
// (apply or rollback) carries the double confirmation. Messages number statements from 1.
import { conflict, invalid } from '../../core/errors.ts';
import { describeRefused, refusedStatements, type StatementClass } from '../../engine/migration/index.ts';
import { outsideCalls, outsideCallsInBody } from '../../engine/outside-calls.ts';
import type { DialectName } from '../../engine/schema/model.ts';
import type { Connection, StoredRollbackStatement } from '../../store/tables.ts';
import { lintErrors } from './migration-states.ts';
import type { ApplyBody } from './migrations.schemas.ts';

/** 422 naming each statement that is not schema, or that calls outside the database. */
export function requireSchemaOnly(
  statements: { sql: string; class: StatementClass }[],
  dialect: DialectName,
  loc: string[],
): void {
  const refused = refusedStatements(statements, (sql, holdsCode) =>
    holdsCode ? outsideCallsInBody(sql, dialect) : outsideCalls(sql, dialect),
  );
  if (refused.length === 0) return;
  throw invalid(
    loc,
    `A migration carries schema only (${describeRefused(refused)}): change data with a patch`,
    'schema_only',
  );
}

/** 409 while a lint warning of severity `error` stands: the SQL must be edited first. */
export function requireNoLintErrors(warnings: unknown[]): void {
  const errors = lintErrors(warnings);
  if (errors.length === 0) return;
  const list = errors.map((e) => `${e.rule} at statement ${e.statement_index + 1} (${e.message})`).join('; ');
  throw conflict(`Lint errors block apply until the SQL is edited: ${list}`);
}

/** A statement that destroys data, as the confirmation message names it. */
export interface Destroying {
  statement_index: number;
  /** `drops column people.email`. */
  what: string;
}

/** 422 unless a run that destroys data has `confirm_irreversible: true` and the target's name. */
export function requireConfirmation(destroying: Destroying[], body: ApplyBody, target: Connection): void {
  if (destroying.length === 0) return;
  if (body.confirm_irreversible === true && body.confirmation === target.name) return;
  const list = destroying.map((d) => `statement ${d.statement_index + 1} ${d.what}`).join('; ');
  throw invalid(
    ['body', 'confirmation'],
    `Irreversible statements (${list}) need confirm_irreversible: true and confirmation equal to the target connection's name`,
    'confirmation_required',
  );
}

/**
 * The rollback statements that destroy data. A rollback stored before its statements were
 * annotated counts every statement as destroying: nothing says otherwise.
 */
export function destroyingRollback(rollback: StoredRollbackStatement[]): Destroying[] {
  const out: Destroying[] = [];
  rollback.forEach((statement, index) => {
    if (!(statement.destructive ?? true)) return;
    const destroys = statement.destroys ?? [];
    out.push({
      statement_index: index,
      what:
        destroys.length > 0
          ? `drops ${destroys.join(', ')}`
          : 'may destroy data (stored before it was annotated)',
    });
  });
  return out;
}
