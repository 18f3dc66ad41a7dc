// SQL statements one after the other, as a migration's apply and rollback show them: those that
// destroy data marked, those that commit by themselves said, and what each statement has beside it.
import type { ReactNode } from 'react';

interface ListedStatement {
  sql: string;
  destructive: boolean;
  transactional: boolean;
}

export function StatementList<S extends ListedStatement>({
  statements,
  label,
  beside,
}: {
  statements: S[];
  /** The list's accessible name. */
  label: string;
  beside?: (statement: S, index: number) => ReactNode;
}) {
  return (
    <ol className="statements" aria-label={label}>
      {statements.map((statement, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the statements are a fixed list, in order
        <li key={index} className={statement.destructive ? 'destructive' : ''}>
          <code>{statement.sql}</code>
          {statement.destructive && <span className="tag danger">destroys data</span>}
          {!statement.transactional && <span className="tag">commits by itself</span>}
          {beside?.(statement, index)}
        </li>
      ))}
    </ol>
  );
}
