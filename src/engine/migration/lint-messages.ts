// The wording of the type-change and cost rules: what the change does to the data and to the table,
// and the safe way to do it instead. Kept apart from the rules so the rules read as decisions.
import type { EngineTraits } from '../schema/engine-traits.ts';
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
  engine: EngineTraits,
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
  const change = classifyTypeChange(from, to, engine);
  const effect =
    change.direction === 'narrowing'
      ? 'It narrows the type: values that do not fit make the statement fail or are cut.'
      : change.direction === 'widening'
        ? 'It widens the type: every value fits.'
        : 'It changes the kind of type: every value is cast, and one that does not convert fails the statement.';
  const table = change.rewrite ? ` ${engine.rewriteWords.rewrite}` : ' No rewrite is needed.';
  return {
    text: `${from} → ${to}. ${effect}${table}`,
    narrowing: change.direction === 'narrowing',
    rewrite: change.rewrite,
  };
}

/** Why a statement rewrites or scans a whole table, or null when it does not. */
export function costlyReason(
  fact: StatementFact,
  engine: EngineTraits,
  table: TableInfo,
  from: string | null,
): string | null {
  const size = describeSize(table);
  const on = `${table.key}${size ? ` (${size})` : ''}`;
  switch (fact.action) {
    case 'alter_column_type': {
      const change = describeTypeChange(from, fact.to, engine, fact.from !== null && fact.from === fact.to);
      if (change === null || !change.rewrite) return null;
      return `Changing the type of ${fact.column} rewrites ${on} while ${engine.rewriteWords.waiting}. Do it in a maintenance window, or add a new column and backfill it in batches${engine.rewriteWords.alternative}.`;
    }
    case 'set_not_null':
      return engine.deferredValidation
        ? `SET NOT NULL scans all of ${on} under an ACCESS EXCLUSIVE lock. Add a CHECK (… IS NOT NULL) NOT VALID constraint, validate it separately, then SET NOT NULL.`
        : `Making ${fact.column} NOT NULL rebuilds ${on}. Use an online schema change tool, or a maintenance window.`;
    case 'add_column':
      if (engine.volatileDefaultsRewrite && (fact.volatile_default || fact.computed))
        return `Adding ${fact.column} with a value computed for every row (a volatile default, an identity or a stored generated column) rewrites ${on}. Add it without that default, then fill it in batches.`;
      if (!engine.volatileDefaultsRewrite && fact.computed)
        return `Adding the computed column ${fact.column} copies ${on}. Use an online schema change tool, or a maintenance window.`;
      return null;
    case 'create_index':
      if (engine.concurrentIndexes && !fact.concurrently)
        return `Building the index reads all of ${on} while writes wait. Use CREATE INDEX CONCURRENTLY.`;
      if (!engine.concurrentIndexes)
        return `Building the index reads all of ${on}. Add ALGORITHM=INPLACE, LOCK=NONE so writes continue.`;
      return null;
    case 'add_constraint':
      if (
        fact.constraint === 'primary_key' ||
        fact.constraint === 'unique' ||
        fact.constraint === 'exclusion'
      )
        return `Adding the ${fact.constraint.replace('_', ' ')} builds an index over all of ${on} while writes wait.${engine.concurrentIndexes ? ' Build a unique index CONCURRENTLY first, then add the constraint USING INDEX.' : ''}`;
      if (engine.deferredValidation && !fact.not_valid)
        return `Adding the constraint checks every row of ${on} while writes wait. Add it NOT VALID and VALIDATE it in a later migration.`;
      if (!engine.deferredValidation)
        return `Adding the constraint checks every row of ${on}. Use a maintenance window.`;
      return null;
    default:
      return null;
  }
}
