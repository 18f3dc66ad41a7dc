// Edited migration SQL (docs/contract.md §8, PATCH /migrations/{id}): the text re-parsed into statements by the
// dialect's parser, each annotated like a planned statement, with its rollback regenerated where it
// can be. A statement left as the planner wrote it (the same statement whatever its spacing,
// comments or keyword case) keeps the planned annotations and rollback, which are exact (the plan
// knows backups and former types). Any other statement gets its rollback derived from its facts and
// the target's schema (derive.ts). The whole rollback is null as soon as one statement has none.
import type { SchemaModel } from '../schema/model.ts';
import { deriveInverse } from './derive.ts';
import type { StatementFact } from './facts.ts';
import {
  type DdlRenderer,
  joinSql,
  type Migration,
  type MigrationStatement,
  migrationRollback,
  type RollbackStatement,
  renderRollback,
} from './migration.ts';
import type { SqlParser } from './parsed.ts';
import { plannedClass, type StatementClass } from './statement-class.ts';

export interface AnalyzedStatement extends Omit<MigrationStatement, 'facts' | 'part_of'> {
  /** Null when the statement does not parse. */
  facts: StatementFact[] | null;
  parse_error: string | null;
  /** The index of the planned statement this one is, unchanged; null for a new or edited one. */
  planned_index: number | null;
  /** A planned statement left unchanged keeps the plan's class; any other is classed as written. */
  class: StatementClass;
}

export interface AnalyzedSql {
  statements: AnalyzedStatement[];
  rollback: RollbackStatement[] | null;
  rollback_sql: string | null;
}

export interface AnalyzeOptions {
  /** The dialect: its parser splits and reads the text, its renderer writes derived rollbacks. */
  dialect: SqlParser & DdlRenderer;
  /** The target as it was when the migration was compared (former definitions for rollbacks). */
  target: SchemaModel | null;
  /** The planned migration, whose statements keep their annotations when left unchanged. */
  plan?: Migration | null;
}

const DESTRUCTIVE = new Set(['drop_table', 'drop_column']);

/** Parses, annotates and derives the rollback of edited migration SQL. Never throws on bad SQL. */
export async function analyzeSql(text: string, options: AnalyzeOptions): Promise<AnalyzedSql> {
  const { dialect, target } = options;
  const parsed = await dialect.parseSql(text);
  const planned = await plannedByKey(options);
  const used = new Set<number>();
  const matches = parsed.map((statement) => {
    const candidates = planned.get(statement.key) ?? [];
    const match = candidates.find((candidate) => !used.has(candidate.index)) ?? null;
    if (match) used.add(match.index);
    return match;
  });
  const context = { flavor: target?.flavor ?? dialect.name };

  const statements = parsed.map((statement, index): AnalyzedStatement => {
    const match = matches[index] ?? null;
    // A statement that is part of a planned operation keeps "nothing to undo" only if the
    // statement that undoes the whole operation is still there.
    if (match && (match.part_of === null || used.has(match.part_of))) {
      const { part_of: _partOf, ...annotations } = match;
      return {
        ...annotations,
        index,
        sql: statement.sql,
        parse_error: null,
        planned_index: match.index,
        class: plannedClass(statement.class),
      };
    }
    const facts = statement.facts;
    const inverse = facts === null ? null : deriveInverse(facts, target);
    const rollback =
      inverse === null
        ? null
        : inverse.operations.length === 0
          ? []
          : renderRollback(dialect, inverse.operations, context);
    const first = facts?.find((fact) => fact.action !== 'other') ?? facts?.[0];
    return {
      index,
      sql: statement.sql,
      kind: facts === null ? 'unparsed' : (first?.action ?? 'other'),
      object: first ? factObject(first) : '',
      destructive: facts?.some((fact) => DESTRUCTIVE.has(fact.action)) ?? false,
      transactional: statement.transactional,
      reversible: rollback !== null,
      lossy: inverse?.lossy != null,
      lossy_reason: inverse?.lossy ?? null,
      rollback,
      rollback_sql: rollback === null ? null : joinSql(rollback),
      facts,
      backup: null,
      parse_error: statement.error,
      planned_index: null,
      // Still the plan's text (a part of an operation whose first statement the edit removed).
      class: match ? plannedClass(statement.class) : statement.class,
    };
  });
  const rollback = migrationRollback(statements);
  return { statements, rollback, rollback_sql: rollback === null ? null : joinSql(rollback) };
}

/** The planned statements by their parsed key (the same statement however it is spaced). */
async function plannedByKey(options: AnalyzeOptions): Promise<Map<string, MigrationStatement[]>> {
  const byKey = new Map<string, MigrationStatement[]>();
  const plan = options.plan;
  if (!plan || plan.statements.length === 0) return byKey;
  const parsed = await options.dialect.parseSql(plan.sql);
  // The plan's own text splits back into its statements; if it ever did not, match by text.
  const keys =
    parsed.length === plan.statements.length
      ? parsed.map((statement) => statement.key)
      : plan.statements.map((statement) => statement.sql.trim());
  plan.statements.forEach((statement, index) => {
    const key = keys[index]!;
    byKey.set(key, [...(byKey.get(key) ?? []), statement]);
  });
  return byKey;
}

/** How a fact names its object, as planned statements do. */
export function factObject(fact: StatementFact): string {
  const table = 'table' in fact && fact.table !== null ? fact.table : null;
  const prefix = table === null ? '' : table.schema === null ? table.name : `${table.schema}.${table.name}`;
  const withName = (name: string | null) => (name === null ? prefix : prefix ? `${prefix}.${name}` : name);
  switch (fact.action) {
    case 'add_column':
    case 'drop_column':
    case 'rename_column':
    case 'alter_column_type':
    case 'modify_column':
    case 'set_not_null':
    case 'drop_not_null':
    case 'set_default':
    case 'drop_default':
    case 'alter_column_other':
      return withName(fact.column);
    case 'add_constraint':
    case 'drop_constraint':
    case 'create_index':
      return withName(fact.name);
    case 'drop_index':
    case 'rename_index':
    case 'rename_constraint':
    case 'validate_constraint':
      return withName(fact.name);
    case 'schema_object':
      return fact.object;
    case 'other':
      return fact.statement;
    default:
      return prefix;
  }
}
