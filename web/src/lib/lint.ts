import type { LintWarning, MigrationStatement } from '../api/types.ts';

export interface ReviewedStatement {
  index: number;
  statement: MigrationStatement;
  warnings: LintWarning[];
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Each statement with the lint warnings that name it, most severe first (for the review beside the SQL). */
export function warningsByStatement(
  statements: MigrationStatement[],
  warnings: LintWarning[],
): ReviewedStatement[] {
  return statements.map((statement, index) => ({
    index,
    statement,
    warnings: warnings
      .filter((warning) => warning.statement_index === index)
      .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]),
  }));
}

/** Warnings that block apply (severity error): the SQL must be edited first. */
export function blockingWarnings(warnings: LintWarning[]): LintWarning[] {
  return warnings.filter((warning) => warning.severity === 'error');
}

/** The statements that destroy data and ask for the double confirmation. */
export function destructiveStatements(statements: MigrationStatement[]): MigrationStatement[] {
  return statements.filter((statement) => statement.destructive);
}
