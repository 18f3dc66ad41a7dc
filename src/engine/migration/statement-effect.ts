// Whether the live schema shows the effect of one migration statement: the classification of the
// statement a MySQL apply was running when its process died (docs/contract.md §8: the run reports which
// statements were applied). The statements before it took effect and those after it never started
// (the run's journal says so), and DDL is atomic on MySQL 8 and MariaDB 10.6+, so the schema is
// either just before or just after it. Two kinds of evidence, from the most direct:
//   1. its facts: a column it adds is there or not, an index or foreign key it drops by name is
//      gone or not, a type it changes from a known type is the new one or the old one;
//   2. the tables it touches, against the schema known before the first statement (when no earlier
//      statement touched the table) or after the last one (when no later statement does).
// When the evidence is silent or contradicts itself, the answer is null: the report says so
// rather than guess. Pure: the caller introspects.
import { diffSchemas, isEmptyDiff } from '../schema/diff.ts';
import type { SchemaModel, TableModel } from '../schema/model.ts';
import type { StatementFact } from './facts.ts';
import type { TableRef } from './operations.ts';

export interface StatementEffect {
  /** The live schema shows the statement's effect (true), shows it did not run (false), or cannot tell (null). */
  applied: boolean | null;
  /** What decided, for the run's report. */
  evidence: string;
}

export interface EffectInput {
  /** The statement in flight. */
  index: number;
  /** Facts of every statement of the run, in order; null where a statement's are unknown. */
  facts: (StatementFact[] | null)[];
  /** The schema now, after the session that ran the statement has ended. */
  live: SchemaModel;
  /** The schema before the first statement (the compare's target, for an apply). */
  before: SchemaModel;
  /** The schema the statements lead to (the source within the compare's scope, for an apply). */
  after: SchemaModel;
}

type Verdict = boolean | null;

function findTable(model: SchemaModel, ref: TableRef): TableModel | undefined {
  return model.tables.find((t) => t.name === ref.name && (ref.schema === null || ref.schema === t.schema));
}

function sameRef(a: TableRef, b: TableRef): boolean {
  return a.name === b.name && (a.schema === null || b.schema === null || a.schema === b.schema);
}

/** Whether a key or index of this name is on the table (MySQL keeps unique keys as indexes). */
function hasNamed(table: TableModel, name: string): boolean {
  return (
    table.indexes.some((i) => i.name === name) ||
    table.unique_constraints.some((c) => c.name === name) ||
    table.check_constraints.some((c) => c.name === name) ||
    table.foreign_keys.some((k) => k.name === name) ||
    table.exclusion_constraints.some((c) => c.name === name) ||
    table.primary_key?.name === name
  );
}

/** `present` when it should exist after the statement, as a verdict; null when the table is missing. */
function presence(table: TableModel | undefined, exists: (table: TableModel) => boolean, present: boolean) {
  if (!table) return null;
  return exists(table) === present;
}

/** What one fact says about the live schema. */
function factVerdict(fact: StatementFact, live: SchemaModel): Verdict {
  switch (fact.action) {
    case 'create_table':
      return findTable(live, fact.table) !== undefined;
    case 'drop_table':
      return findTable(live, fact.table) === undefined;
    case 'rename_table': {
      const from = findTable(live, fact.table) !== undefined;
      const to = findTable(live, { schema: fact.table.schema, name: fact.to }) !== undefined;
      return from === to ? null : to;
    }
    case 'add_column':
      return presence(
        findTable(live, fact.table),
        (t) => t.columns.some((c) => c.name === fact.column),
        true,
      );
    case 'drop_column':
      return presence(
        findTable(live, fact.table),
        (t) => t.columns.some((c) => c.name === fact.column),
        false,
      );
    case 'rename_column': {
      const table = findTable(live, fact.table);
      if (!table) return null;
      const from = table.columns.some((c) => c.name === fact.column);
      const to = table.columns.some((c) => c.name === fact.to);
      return from === to ? null : to;
    }
    case 'alter_column_type': {
      const column = findTable(live, fact.table)?.columns.find((c) => c.name === fact.column);
      // Only a change between two known, different types tells anything.
      if (!column || fact.from === null || fact.from === fact.to) return null;
      if (column.type === fact.to) return true;
      return column.type === fact.from ? false : null;
    }
    case 'add_constraint':
      if (fact.constraint === 'primary_key')
        return presence(findTable(live, fact.table), (t) => t.primary_key !== null, true);
      return fact.name === null
        ? null
        : presence(findTable(live, fact.table), (t) => hasNamed(t, fact.name!), true);
    case 'drop_constraint':
      if (fact.constraint === 'primary_key')
        return presence(findTable(live, fact.table), (t) => t.primary_key !== null, false);
      return fact.name === null
        ? null
        : presence(findTable(live, fact.table), (t) => hasNamed(t, fact.name!), false);
    case 'create_index':
      return fact.name === null
        ? null
        : presence(findTable(live, fact.table), (t) => hasNamed(t, fact.name!), true);
    case 'drop_index':
      return fact.table === null
        ? null
        : presence(findTable(live, fact.table), (t) => hasNamed(t, fact.name), false);
    case 'rename_index':
    case 'rename_constraint': {
      const table = fact.table === null ? undefined : findTable(live, fact.table);
      if (!table) return null;
      const from = hasNamed(table, fact.name);
      const to = hasNamed(table, fact.to);
      return from === to ? null : to;
    }
    default:
      // Types restated whole, defaults, data, objects beyond tables: the schema does not tell.
      return null;
  }
}

/** The tables a fact changes the structure of; null when it may change anything. */
function factTables(fact: StatementFact): TableRef[] | null {
  switch (fact.action) {
    case 'set_lock_timeout':
    case 'transaction_control':
      return [];
    // Data and objects beyond tables: no table's structure tells whether they ran.
    case 'data_change':
    case 'schema_object':
    case 'other':
      return null;
    case 'rename_table':
      return [fact.table, { schema: fact.table.schema, name: fact.to }];
    default:
      return 'table' in fact && fact.table !== null ? [fact.table] : null;
  }
}

function statementTables(facts: StatementFact[] | null): TableRef[] | null {
  if (facts === null) return null;
  const tables: TableRef[] = [];
  for (const fact of facts) {
    const touched = factTables(fact);
    if (touched === null) return null;
    tables.push(...touched);
  }
  return tables;
}

/** Whether two versions of a table are the same to the diff (an absent table equals only an absent one). */
function sameTable(model: SchemaModel, a: TableModel | undefined, b: TableModel | undefined): boolean {
  if (!a || !b) return a === b;
  const only = (table: TableModel): SchemaModel => ({
    dialect: model.dialect,
    flavor: model.flavor,
    server_version: model.server_version,
    tables: [table],
    enums: [],
    sequences: [],
    unmanaged: [],
  });
  return isEmptyDiff(diffSchemas(only(a), only(b)));
}

/** What the touched tables say, against the schema before the first or after the last statement. */
function tableVerdicts(input: EffectInput, tables: TableRef[]): Verdict[] {
  const touchedBy = input.facts.map(statementTables);
  const touches = (index: number, table: TableRef) => {
    const list = touchedBy[index];
    return list === null || list === undefined || list.some((t) => sameRef(t, table));
  };
  return tables.map((table) => {
    const earlier = input.facts.slice(0, input.index).some((_, i) => touches(i, table));
    const later = input.facts.slice(input.index + 1).some((_, i) => touches(input.index + 1 + i, table));
    const now = findTable(input.live, table);
    const same = (other: SchemaModel) => sameTable(input.live, now, findTable(other, table));
    // Untouched before it: only this statement can have changed the table since the first one.
    if (!earlier) return !same(input.before);
    // Untouched after it: the table is as the last statement leaves it only if this one ran.
    if (!later) return same(input.after);
    return null;
  });
}

function agree(verdicts: Verdict[]): Verdict | 'conflict' {
  const known = verdicts.filter((v): v is boolean => v !== null);
  if (known.length === 0) return null;
  return known.every((v) => v === known[0]) ? known[0]! : 'conflict';
}

export function statementEffect(input: EffectInput): StatementEffect {
  const facts = input.facts[input.index] ?? null;
  if (facts !== null) {
    const byFacts = agree(facts.map((fact) => factVerdict(fact, input.live)));
    if (byFacts === 'conflict')
      return { applied: null, evidence: 'the live schema shows part of its effect only' };
    if (byFacts !== null)
      return {
        applied: byFacts,
        evidence: byFacts
          ? 'the live schema shows its effect'
          : 'the live schema shows the objects it changes as they were before it',
      };
  }
  const tables = statementTables(facts);
  if (tables === null || tables.length === 0)
    return { applied: null, evidence: 'its effect is not visible in the schema' };
  const byTables = agree(tableVerdicts(input, tables));
  if (byTables === null || byTables === 'conflict')
    return { applied: null, evidence: 'the tables it changes do not tell' };
  return {
    applied: byTables,
    evidence: byTables
      ? 'the tables it changes differ from before it'
      : 'the tables it changes are as they were before it',
  };
}
