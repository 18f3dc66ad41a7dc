// Lint rules for the objects beyond tables, on the facts their statements carry (facts-objects.ts)
// and the target's schema (who depends on what):
//
// | rule                        | fires on                                                          |
// |-----------------------------|-------------------------------------------------------------------|
// | drop-view-with-dependents   | a view dropped while other views read it (warning; info when the  |
// |                             | migration creates it again, as a plan does around a column change)|
// | materialized-view-rebuilt   | a materialized view created: its query runs in full, under lock   |
// | function-used-by-trigger    | a function replaced or dropped while triggers call it             |
// | detach-partition            | a partition detached: its rows leave the partitioned table        |
// | rls-disabled                | row-level security switched off on a table                        |
import type { SchemaModel } from '../schema/model.ts';
import { objectKey } from '../schema/objects.ts';
import type { StatementFact } from './facts.ts';

type Warn = (rule: string, severity: 'error' | 'warning' | 'info', object: string, message: string) => void;
type ObjectFact = Extract<StatementFact, { action: 'schema_object' }>;

/** Keys of the views the statements create (a dropped view that comes back is stepping aside). */
export function createdViews(statements: { facts: StatementFact[] | null }[]): Set<string> {
  const out = new Set<string>();
  for (const statement of statements)
    for (const fact of statement.facts ?? [])
      if (
        fact.action === 'schema_object' &&
        fact.key !== undefined &&
        /^(materialized )?view /.test(fact.object) &&
        (fact.change === undefined || fact.change === 'create_materialized_view')
      )
        out.add(fact.key);
  return out;
}

export function lintObjectFact(
  fact: ObjectFact,
  warn: Warn,
  target: SchemaModel | null,
  recreated: Set<string>,
): void {
  const key = fact.key;
  if (fact.change === undefined || key === undefined) return;
  switch (fact.change) {
    case 'drop_view':
    case 'drop_materialized_view': {
      const readers = (target?.views ?? [])
        .filter((v) =>
          v.depends_on.some((d) => d.kind !== 'routine' && d.kind !== 'type' && objectKey(d) === key),
        )
        .map(objectKey);
      if (readers.length === 0) return;
      const back = recreated.has(key);
      warn(
        'drop-view-with-dependents',
        back ? 'info' : 'warning',
        key,
        back
          ? `The view steps aside while what it reads changes, with the views that read it (${readers.join(', ')}); all are created again later in the migration.`
          : `Other views read it (${readers.join(', ')}): they must be dropped first, and queries on them fail from now on.`,
      );
      return;
    }
    case 'create_materialized_view':
      warn(
        'materialized-view-rebuilt',
        'info',
        key,
        'The materialized view is built inside the migration: its whole query runs while the migration holds its locks. On a large data set, create it WITH NO DATA and REFRESH it after.',
      );
      return;
    case 'replace_routine':
    case 'drop_routine': {
      const triggers = (target?.triggers ?? [])
        .filter((t) => t.depends_on.some((d) => d.kind === 'routine' && objectKey(d) === key))
        .map((t) => `${t.name} on ${objectKey({ schema: t.schema, name: t.table })}`);
      if (triggers.length === 0) return;
      warn(
        'function-used-by-trigger',
        'warning',
        key,
        fact.change === 'replace_routine'
          ? `Triggers call this routine (${triggers.join(', ')}): every write to their tables runs the new body once the migration has replaced it.`
          : `Triggers call this routine (${triggers.join(', ')}): they must go first (PostgreSQL refuses the drop; MySQL and MariaDB allow it, and every write to their tables then fails).`,
      );
      return;
    }
    case 'disable_row_security':
      warn(
        'rls-disabled',
        'warning',
        key,
        'Row-level security is switched off: every role that can read the table sees every row, whatever its policies say.',
      );
      return;
    case 'detach_partition':
      warn(
        'detach-partition',
        'warning',
        key,
        'Its rows leave the partitioned table: queries on the parent no longer see them. DETACH locks the parent (ACCESS EXCLUSIVE; PostgreSQL 14+ has DETACH … CONCURRENTLY, outside a transaction).',
      );
      return;
  }
}
