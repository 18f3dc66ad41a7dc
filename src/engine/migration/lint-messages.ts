// The wording of the type-change and cost rules: what the change does to the data and to the table,
// and the safe way to do it instead. Kept apart from the rules so the rules read as decisions.
import type { StatementFact } from './facts.ts';
import { describeSize, type TableInfo } from './lint-context.ts';
import { classifyTypeChange } from './type-change.ts';

const squash = (type: string) => type.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * What changing `from` to `to` does, or null when it is no change. `recreated`: the column's enum
 * type is recreated under the same name (values removed or reordered).
 */
export function describeTypeChange(
  from: string | null,
  to: string,
  pg: boolean,
  recreated = false,
): { text: string; narrowing: boolean; rewrite: boolean } | null {
  if (recreated)
    return {
      text: `The column's enum type ${to} is recreated with other values: every row is cast again and the statement fails on a value that no longer exists.`,
      narrowing: true,
      rewrite: true,
    };
  if (from === null)
    return {
      text: `The column's type changes to ${to} (its former type is unknown).`,
      narrowing: false,
      rewrite: true,
    };
  if (squash(from) === squash(to)) return null;
  const change = classifyTypeChange(from, to, pg ? 'postgresql' : 'mysql');
  const effect =
    change.direction === 'narrowing'
      ? 'It narrows the type: values that do not fit make the statement fail or are cut.'
      : change.direction === 'widening'
        ? 'It widens the type: every value fits.'
        : 'It changes the kind of type: every value is cast, and one that does not convert fails the statement.';
  const table = change.rewrite
    ? pg
      ? ' The table is rewritten under an ACCESS EXCLUSIVE lock (even int → bigint does).'
      : ' The table is copied while writes wait.'
    : ' No rewrite is needed.';
  return {
    text: `${from} → ${to}. ${effect}${table}`,
    narrowing: change.direction === 'narrowing',
    rewrite: change.rewrite,
  };
}

/** Why a statement rewrites or scans a whole table, or null when it does not. */
export function costlyReason(
  fact: StatementFact,
  pg: boolean,
  table: TableInfo,
  from: string | null,
): string | null {
  const size = describeSize(table);
  const on = `${table.key}${size ? ` (${size})` : ''}`;
  switch (fact.action) {
    case 'alter_column_type': {
      const change = describeTypeChange(from, fact.to, pg, fact.from !== null && fact.from === fact.to);
      if (change === null || !change.rewrite) return null;
      return `Changing the type of ${fact.column} rewrites ${on} while ${pg ? 'every query on it waits' : 'writes wait'}. Do it in a maintenance window, or add a new column and backfill it in batches${pg ? '' : ', or use an online schema change tool (gh-ost, pt-online-schema-change)'}.`;
    }
    case 'set_not_null':
      return pg
        ? `SET NOT NULL scans all of ${on} under an ACCESS EXCLUSIVE lock. Add a CHECK (… IS NOT NULL) NOT VALID constraint, validate it separately, then SET NOT NULL.`
        : `Making ${fact.column} NOT NULL rebuilds ${on}. Use an online schema change tool, or a maintenance window.`;
    case 'add_column':
      if (pg && (fact.volatile_default || fact.computed))
        return `Adding ${fact.column} with a value computed for every row (a volatile default, an identity or a stored generated column) rewrites ${on}. Add it without that default, then fill it in batches.`;
      if (!pg && fact.computed)
        return `Adding the computed column ${fact.column} copies ${on}. Use an online schema change tool, or a maintenance window.`;
      return null;
    case 'create_index':
      if (pg && !fact.concurrently)
        return `Building the index reads all of ${on} while writes wait. Use CREATE INDEX CONCURRENTLY.`;
      if (!pg)
        return `Building the index reads all of ${on}. Add ALGORITHM=INPLACE, LOCK=NONE so writes continue.`;
      return null;
    case 'add_constraint':
      if (
        fact.constraint === 'primary_key' ||
        fact.constraint === 'unique' ||
        fact.constraint === 'exclusion'
      )
        return `Adding the ${fact.constraint.replace('_', ' ')} builds an index over all of ${on} while writes wait.${pg ? ' Build a unique index CONCURRENTLY first, then add the constraint USING INDEX.' : ''}`;
      if (pg && !fact.not_valid)
        return `Adding the constraint checks every row of ${on} while writes wait. Add it NOT VALID and VALIDATE it in a later migration.`;
      if (!pg) return `Adding the constraint checks every row of ${on}. Use a maintenance window.`;
      return null;
    default:
      return null;
  }
}
