// Lint of migration statements (docs/contract.md §8): each warning names its rule, a
// severity, the statement, the object, and says how to do the change safely. Rules look at the
// statements' facts (facts.ts), the target's schema and its table statistics (lint-context.ts).
//
// | rule                          | fires on                                                        |
// |-------------------------------|-----------------------------------------------------------------|
// | alter-column-type             | any type change of an existing column (narrowing, or no cast    |
// |                               | known between the types on PostgreSQL: error)                   |
// | add-not-null-without-default  | NOT NULL column without default added to a populated table      |
// | drop-column-with-foreign-key  | dropped column that a foreign key uses, on either side          |
// | costly-alter-on-large-table   | rewrite or full scan of a table above the size thresholds       |
// | set-not-null                  | existing column made NOT NULL (full scan)                       |
// | index-not-concurrent          | PostgreSQL index created/dropped without CONCURRENTLY           |
// | constraint-not-valid          | PostgreSQL foreign key or check added without NOT VALID         |
// | drop-table, drop-column       | irreversible drops (info when backed up by backup_drops)        |
// | rename                        | table or column renamed (breaks clients)                        |
// | unique-on-existing            | primary key / unique added to a populated table                 |
// | lock-timeout-missing          | exclusive-lock statement while no lock timeout is set           |
// | transaction-control           | BEGIN/COMMIT/ROLLBACK in the SQL (dbops runs the transaction)   |
// | parse-error                   | a statement that does not parse                                 |
// | partition-over-default        | PostgreSQL partition created beside a DEFAULT partition that    |
// |                               | may hold rows (full scan; refused if one falls in its bounds)   |
// | (objects: lint-objects.ts)    | views with dependents dropped, materialized views built,        |
// |                               | functions triggers call changed, partitions detached            |
//
// Tables created earlier in the same migration are empty: rules about populated or large tables
// stay quiet for them. A table known to be empty (statistics) only gets the rules that are not about
// data; without statistics "populated" is unknown and rules fire as warnings that say so.

import { type EngineTraits, traitsOf } from '../schema/engine-traits.ts';
import type { TableModel } from '../schema/model.ts';
import { castKnown } from './casts.ts';
import type { ConstraintKind, StatementFact } from './facts.ts';
import { type LintContext, type TableInfo, tableResolver } from './lint-context.ts';
import { costlyReason, describeTypeChange } from './lint-messages.ts';
import { createdViews, lintObjectFact } from './lint-objects.ts';
import type { TableRef } from './operations.ts';

export type LintSeverity = 'error' | 'warning' | 'info';

export interface LintWarning {
  rule: string;
  severity: LintSeverity;
  statement_index: number;
  object: string;
  message: string;
}

/** A planned statement (MigrationStatement) or an edited one (AnalyzedStatement) fits as it is. */
export interface LintInput {
  facts: StatementFact[] | null;
  /** The parser's message for a statement that does not parse. */
  parse_error?: string | null;
}

const keyOf = (table: TableRef) => JSON.stringify([table.schema, table.name]);

export function lintStatements(statements: LintInput[], context: LintContext): LintWarning[] {
  const resolve = tableResolver(context);
  const engine = traitsOf(context.dialect);
  const warnings: LintWarning[] = [];
  const seen = new Set<string>();
  const created = new Set<string>();
  const droppedKeys = new Set<string>();
  let lockTimeoutSet = context.lock_timeout_ms !== undefined && context.lock_timeout_ms !== null;
  const recreated = createdViews(statements);

  statements.forEach((statement, index) => {
    const warn = (rule: string, severity: LintSeverity, object: string, message: string) => {
      const id = JSON.stringify([rule, index, object]);
      if (seen.has(id)) return;
      seen.add(id);
      warnings.push({ rule, severity, statement_index: index, object, message });
    };
    if (statement.facts === null) {
      warn(
        'parse-error',
        'error',
        `statement ${index + 1}`,
        `The statement does not parse: ${statement.parse_error ?? 'syntax error'}. Fix it before applying.`,
      );
      return;
    }
    let longLock: string | null = null;
    for (const fact of statement.facts) {
      if (fact.action === 'set_lock_timeout') lockTimeoutSet = true;
      if (fact.action === 'transaction_control')
        warn(
          'transaction-control',
          'error',
          `statement ${index + 1}`,
          'BEGIN, COMMIT and ROLLBACK are not allowed in migration SQL: dbops runs the migration in its own transaction (PostgreSQL). Remove them.',
        );
      if (fact.action === 'schema_object') lintObjectFact(fact, warn, context.target ?? null, recreated);
      if (!('table' in fact) || fact.table === null) continue;
      const table = resolve(fact.table);
      const isNew = created.has(keyOf(fact.table)) || (context.target != null && table.model === null);
      if (fact.action === 'create_table') {
        created.add(keyOf(fact.table));
        if (fact.partition_of) lintPartitionOverDefault(fact.partition_of, context, resolve, warn);
        continue;
      }
      if (isNew) continue;
      if (
        fact.action !== 'data_change' &&
        !(fact.action === 'create_index' && fact.concurrently) &&
        !(fact.action === 'drop_index' && fact.concurrently)
      )
        longLock ??= table.key;
      lintFact(fact, table, { warn, engine, droppedKeys, tables: context.target?.tables ?? [] });
    }
    if (longLock !== null && !lockTimeoutSet)
      warn(
        'lock-timeout-missing',
        'warning',
        longLock,
        `No lock timeout is set: this statement waits behind any long transaction on ${longLock} and every query on it queues behind the statement. Apply with a lock timeout (or SET lock_timeout / lock_wait_timeout first) and retry when it expires.`,
      );
  });
  return warnings;
}

/**
 * A bounded partition created beside a DEFAULT partition: PostgreSQL scans the default partition
 * (under an exclusive lock) and refuses the new partition when one of its rows falls inside the
 * bounds. Quiet when the default partition is known to be empty.
 */
function lintPartitionOverDefault(
  parent: TableRef,
  context: LintContext,
  resolve: (table: TableRef) => TableInfo,
  warn: RuleHelpers['warn'],
): void {
  const fallback = (context.target?.tables ?? []).find(
    (t) =>
      t.partitioning?.parent?.name === parent.name &&
      (t.partitioning.parent.schema === parent.schema || parent.schema === null) &&
      t.partitioning.bound?.toUpperCase() === 'DEFAULT',
  );
  if (!fallback) return;
  const info = resolve({ schema: fallback.schema, name: fallback.name });
  if (info.populated === false) return;
  warn(
    'partition-over-default',
    'warning',
    info.key,
    `A new partition of ${parent.schema === null ? parent.name : `${parent.schema}.${parent.name}`} is checked against every row of its default partition ${info.key}, which is locked meanwhile; PostgreSQL refuses the partition if one of those rows falls inside its bounds${unknownRows(info)}. Move such rows out of the default partition first (detach it, create the partition, move the rows, attach it again).`,
  );
}

interface RuleHelpers {
  warn: (rule: string, severity: LintSeverity, object: string, message: string) => void;
  engine: EngineTraits;
  /** Foreign keys (`table.name`) dropped by earlier statements. */
  droppedKeys: Set<string>;
  /** The target's tables (who references whom). */
  tables: TableModel[];
}

const unknownRows = (table: TableInfo) =>
  table.populated === null ? ' (no statistics were given: whether it holds rows is unknown)' : '';

/** A MySQL MODIFY restates the column: what actually changes against the target's column. */
function expandModify(
  fact: Extract<StatementFact, { action: 'modify_column' }>,
  table: TableInfo,
): StatementFact[] {
  const column = table.model?.columns.find((c) => c.name === fact.column);
  const { table: ref, column: name } = fact;
  if (!column) return [{ action: 'alter_column_type', table: ref, column: name, from: null, to: fact.type }];
  const facts: StatementFact[] = [];
  if (column.type !== fact.type)
    facts.push({ action: 'alter_column_type', table: ref, column: name, from: column.type, to: fact.type });
  if (column.nullable && fact.not_null) facts.push({ action: 'set_not_null', table: ref, column: name });
  return facts;
}

function lintFact(fact: StatementFact, table: TableInfo, helpers: RuleHelpers): void {
  if (fact.action === 'modify_column') {
    for (const expanded of expandModify(fact, table)) lintFact(expanded, table, helpers);
    return;
  }
  const { warn, engine, droppedKeys } = helpers;
  const object = (column?: string | null) => (column ? `${table.key}.${column}` : table.key);
  const maybePopulated = table.populated !== false;
  const from =
    fact.action === 'alter_column_type'
      ? (fact.from ?? table.model?.columns.find((c) => c.name === fact.column)?.type ?? null)
      : null;
  const costly = costlyReason(fact, engine, table, from);
  if (costly !== null && table.large === true)
    warn('costly-alter-on-large-table', 'warning', 'column' in fact ? object(fact.column) : object(), costly);

  switch (fact.action) {
    case 'alter_column_type': {
      const change = describeTypeChange(from, fact.to, engine, fact.from !== null && fact.from === fact.to);
      if (change === null) return;
      if (
        engine.typeChangeCasts &&
        from !== null &&
        fact.custom_using !== true &&
        !castKnown(from, fact.to)
      ) {
        warn(
          'alter-column-type',
          'error',
          object(fact.column),
          `${from} → ${fact.to}: PostgreSQL has no cast between these types, so no safe conversion of the stored values is known and the statement would fail. Edit the statement's USING expression to say how a value converts (for example to_timestamp(column) for epoch seconds).`,
        );
        return;
      }
      // A widening done in place (a longer varchar, varchar → text) only takes a brief lock:
      // nothing to recommend instead of it.
      const inPlace = !change.rewrite && !change.narrowing;
      const severity = !maybePopulated || inPlace ? 'info' : change.narrowing ? 'error' : 'warning';
      warn(
        'alter-column-type',
        severity,
        object(fact.column),
        inPlace
          ? change.text
          : `${change.text}${unknownRows(table)} Safer: add a column of the new type, backfill it in batches, move readers and writers over, then drop the old column.`,
      );
      return;
    }
    case 'add_column':
      if (fact.not_null && !fact.has_default && !fact.computed && maybePopulated) {
        const what = engine.refusesNotNullWithoutDefault
          ? 'PostgreSQL refuses it: the existing rows would hold NULL'
          : 'MySQL/MariaDB fill the existing rows with 0 or an empty string, silently';
        warn(
          'add-not-null-without-default',
          engine.refusesNotNullWithoutDefault && table.populated ? 'error' : 'warning',
          object(fact.column),
          `NOT NULL column without a default added to a table with rows${unknownRows(table)}: ${what}. Add it nullable (or with a DEFAULT), backfill it, then make it NOT NULL.`,
        );
      }
      return;
    case 'drop_column':
      lintDropColumn(fact, table, helpers);
      warn(
        'drop-column',
        fact.backed_up ? 'info' : 'warning',
        object(fact.column),
        fact.backed_up
          ? 'The column is dropped; its values were backed up first, and the rollback restores them.'
          : 'The column and its values are dropped: this cannot be undone. Compare with backup_drops to keep a copy, or stop using the column first and drop it in a later migration.',
      );
      return;
    case 'drop_table':
      warn(
        'drop-table',
        fact.backed_up ? 'info' : 'warning',
        object(),
        fact.backed_up
          ? 'The table is dropped; its rows were backed up first, and the rollback restores them.'
          : 'The table and its rows are dropped: this cannot be undone. Compare with backup_drops to keep a copy, or rename it away first and drop it in a later migration.',
      );
      return;
    case 'rename_table':
    case 'rename_column':
      warn(
        'rename',
        'warning',
        fact.action === 'rename_column' ? object(fact.column) : object(),
        `Renaming ${fact.action === 'rename_column' ? 'a column' : 'a table'} breaks every client that uses the old name. Add the new name alongside (a view or a generated column), move clients over, then remove the old one.`,
      );
      return;
    case 'set_not_null':
      if (maybePopulated)
        warn(
          'set-not-null',
          'warning',
          object(fact.column),
          engine.deferredValidation
            ? `SET NOT NULL scans the whole table under an ACCESS EXCLUSIVE lock${unknownRows(table)}. Safer: ADD CONSTRAINT … CHECK (column IS NOT NULL) NOT VALID, VALIDATE CONSTRAINT in a later migration, then SET NOT NULL (PostgreSQL 12+ skips the scan) and drop the check.`
            : `Making the column NOT NULL rebuilds the table and fails on existing NULLs${unknownRows(table)}. Backfill the NULLs first, then change it.`,
        );
      return;
    case 'create_index':
    case 'drop_index':
      if (fact.action === 'create_index' && fact.unique && maybePopulated)
        uniqueOnExisting(warn, object(fact.name), table, engine);
      if (engine.concurrentIndexes && !fact.concurrently && maybePopulated)
        warn(
          'index-not-concurrent',
          'warning',
          object(fact.name),
          `${fact.action === 'create_index' ? 'CREATE' : 'DROP'} INDEX without CONCURRENTLY blocks writes to the table while it runs${unknownRows(table)}. Use CONCURRENTLY; it cannot run in a transaction, so dbops runs such statements after the migration's transaction.`,
        );
      return;
    case 'add_constraint':
      if ((fact.constraint === 'primary_key' || fact.constraint === 'unique') && maybePopulated)
        uniqueOnExisting(warn, object(fact.name), table, engine);
      if (
        engine.deferredValidation &&
        !fact.not_valid &&
        (fact.constraint === 'foreign_key' || fact.constraint === 'check') &&
        maybePopulated
      )
        warn(
          'constraint-not-valid',
          'warning',
          object(fact.name),
          `Adding a ${constraintName(fact.constraint)} checks every row while holding a lock that blocks writes${unknownRows(table)}. Add it with NOT VALID, then VALIDATE CONSTRAINT in a later migration (a lighter lock).`,
        );
      return;
    case 'drop_constraint':
      if (fact.constraint === 'foreign_key' || fact.constraint === null)
        droppedKeys.add(`${table.key}.${fact.name}`);
      return;
    default:
      return;
  }
}

function constraintName(kind: ConstraintKind): string {
  return kind === 'foreign_key'
    ? 'foreign key'
    : kind === 'primary_key'
      ? 'primary key'
      : `${kind} constraint`;
}

function uniqueOnExisting(
  warn: RuleHelpers['warn'],
  object: string,
  table: TableInfo,
  engine: EngineTraits,
): void {
  warn(
    'unique-on-existing',
    'warning',
    object,
    `A unique index on a table with rows${unknownRows(table)} fails if two rows share a value, and is built while writes wait. Check for duplicates first; ${engine.concurrentIndexes ? 'on PostgreSQL build the unique index CONCURRENTLY, then ADD CONSTRAINT … USING INDEX.' : 'build it with ALGORITHM=INPLACE, LOCK=NONE.'}`,
  );
}

function lintDropColumn(
  fact: Extract<StatementFact, { action: 'drop_column' }>,
  table: TableInfo,
  { warn, engine, droppedKeys, tables }: RuleHelpers,
): void {
  const model = table.model;
  if (model === null) return;
  const object = `${table.key}.${fact.column}`;
  const keys = model.foreign_keys
    .filter((key) => key.columns.includes(fact.column))
    .map((key) => ({ name: `${table.key}.${key.name}`, referencing: true }));
  for (const other of tables) {
    for (const key of other.foreign_keys) {
      const referenced =
        key.referenced_table === model.name && (key.referenced_schema ?? other.schema) === model.schema;
      if (referenced && key.referenced_columns.includes(fact.column))
        keys.push({
          name: `${other.schema === null ? other.name : `${other.schema}.${other.name}`}.${key.name}`,
          referencing: false,
        });
    }
  }
  for (const key of keys) {
    const dropped = droppedKeys.has(key.name);
    let severity: LintSeverity = 'warning';
    let what: string;
    if (dropped)
      what = `the foreign key ${key.name} that uses it is dropped earlier in this migration: make sure nothing relies on that relationship`;
    else if (!engine.dropsReferencingKeysWithColumn) {
      severity = 'error';
      what = `MySQL/MariaDB refuse to drop it while the foreign key ${key.name} uses it`;
    } else if (key.referencing) what = `PostgreSQL silently drops the foreign key ${key.name} with it`;
    else {
      severity = 'error';
      what = `PostgreSQL refuses to drop it while the foreign key ${key.name} references it (unless CASCADE, which drops that key)`;
    }
    warn(
      'drop-column-with-foreign-key',
      severity,
      object,
      `The column takes part in a foreign key: ${what}. Drop the foreign key in its own statement first, deploy clients that no longer use it, then drop the column.`,
    );
  }
}
