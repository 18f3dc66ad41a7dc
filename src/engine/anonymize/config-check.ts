// A config's rules checked against a connection's live schema (docs/contract.md §9.2), when the config is saved
// and again when a run starts: every table and column exists and may be written, each table has a
// key to write rows back by, each transformer fits its column, and keys that other tables reference
// take their rule along every foreign key into columns that can hold the transformed values.
import { findTable, rowKeys } from '../patch/rollback-key.ts';
import type { ColumnModel, SchemaModel, TableModel } from '../schema/model.ts';
import { tableKey } from '../schema/model.ts';
import { type ColumnShape, columnShape } from './column-type.ts';
import { keepsDistinct, outputLengthBound, transformerPurpose } from './compile.ts';
import { canonicalJson } from './keyed.ts';
import { addressKey, type PropagatedColumn, propagate } from './propagation.ts';
import { checkTransformer, type TransformerSpec } from './rules.ts';

export interface ConfigRule extends TransformerSpec {
  /** `schema.table` or a bare name (PostgreSQL: in `public`); stored as tableKey() writes it. */
  table: string;
  column: string;
}

export interface ConfigProblem {
  /** From the request body: `['rules', 2, 'options', 'ratio']`. */
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface CheckedRules {
  /** The rules with their tables named as the schema names them. */
  rules: ConfigRule[];
  /** The referencing columns that take a rule through a foreign key. */
  propagated: PropagatedColumn[];
}

interface Located {
  rule: ConfigRule;
  index: number;
  table: TableModel;
  column: ColumnModel;
  shape: ColumnShape;
}

/** What a rule does to values: equal for two rules that give every value the same replacement. */
const ruleIdentity = (rule: TransformerSpec) =>
  `${transformerPurpose(rule)}|${canonicalJson({ d: rule.options?.deterministic !== false })}`;

function shapeOf(column: ColumnModel): ColumnShape {
  return columnShape(column.type, column.nullable);
}

/** Why a referencing column cannot hold what the referenced column's rule writes, or null. */
function misfit(rule: TransformerSpec, referenced: ColumnShape, referencing: ColumnShape): string | null {
  if (referenced.family !== referencing.family)
    return `it is ${referencing.family}, the key ${referenced.family}`;
  const bound = outputLengthBound(rule, referenced);
  const longest = bound === null ? referenced.maxLength : bound;
  if (
    referencing.maxLength !== null &&
    longest !== 'input' &&
    (longest === null || longest > referencing.maxLength)
  )
    return `it holds ${referencing.maxLength} characters, the transformed key up to ${longest ?? 'unbounded'}`;
  if (
    referencing.min !== null &&
    referenced.min !== null &&
    (referenced.min < referencing.min || (referenced.max ?? 0n) > (referencing.max ?? 0n))
  )
    return 'its integer range is narrower than the key’s';
  return null;
}

/** Every problem of `rules` on `model`; when there are none, the rules as stored and their propagation. */
export function checkConfigRules(
  model: SchemaModel,
  rules: readonly ConfigRule[],
): { problems: ConfigProblem[]; checked: CheckedRules } {
  const problems: ConfigProblem[] = [];
  const located: Located[] = [];
  const byAddress = new Map<string, Located>();
  const keyless = new Set<string>();
  for (const [index, rule] of rules.entries()) {
    const at = (...path: (string | number)[]) => ['rules', index, ...path];
    const refuse = (loc: (string | number)[], msg: string, type: string) => problems.push({ loc, msg, type });
    const table = findTable(model, rule.table);
    if (!table) {
      refuse(at('table'), `Unknown table ${rule.table}`, 'unknown_table');
      continue;
    }
    const name = tableKey(table);
    const column = table.columns.find((c) => c.name === rule.column);
    if (!column) {
      refuse(at('column'), `Unknown column ${name}.${rule.column}`, 'unknown_column');
      continue;
    }
    if (column.generated || column.identity === 'always') {
      refuse(
        at('column'),
        column.generated
          ? `${name}.${column.name} is a generated column: the database computes it, a rule cannot write it`
          : `${name}.${column.name} is an identity column GENERATED ALWAYS: its values cannot be rewritten`,
        'generated_column',
      );
      continue;
    }
    if (rowKeys(table).length === 0 && !keyless.has(name)) {
      keyless.add(name);
      refuse(
        at('table'),
        `${name} has no primary key nor a unique key on NOT NULL columns: its rows cannot be matched to write them back`,
        'no_row_key',
      );
    }
    const address = addressKey({ table: name, column: column.name });
    if (byAddress.has(address)) {
      refuse(at('column'), `${name}.${column.name} has two rules`, 'duplicate_rule');
      continue;
    }
    const shape = shapeOf(column);
    for (const p of checkTransformer(rule, shape))
      problems.push({ loc: at(...p.path), msg: `${name}.${column.name}: ${p.msg}`, type: p.type });
    if (rule.options?.unique === true && !keepsDistinct(rule, shape))
      problems.push({
        loc: at('options', 'unique'),
        msg: `${name}.${column.name}: ${rule.transformer} cannot keep distinct values distinct`,
        type: 'unique_unsupported',
      });
    const entry = { rule: { ...rule, table: name }, index, table, column, shape };
    located.push(entry);
    byAddress.set(address, entry);
  }

  const propagated = propagate(
    model,
    located.map((l) => ({ table: tableKey(l.table), column: l.column.name })),
  );
  const kept: PropagatedColumn[] = [];
  const takenBy = new Map<string, Located>();
  for (const p of propagated) {
    const root = byAddress.get(addressKey(p.from)) as Located;
    const at = (...path: (string | number)[]) => ['rules', root.index, ...path];
    const name = `${p.from.table}.${p.from.column}`;
    if (root.rule.options?.deterministic === false || root.rule.transformer === 'shuffle') {
      problems.push({
        loc: at('transformer'),
        msg: `${name} is referenced by ${p.table}.${p.column} (${p.via}): a rule on it must be deterministic and not shuffle, so that references still match`,
        type: 'referenced_key',
      });
      continue;
    }
    const own = byAddress.get(addressKey(p));
    const previous = takenBy.get(addressKey(p));
    const other = own ?? previous;
    if (other && ruleIdentity(other.rule) !== ruleIdentity(root.rule)) {
      problems.push({
        loc: at('transformer'),
        msg: `${p.table}.${p.column} references ${name} (${p.via}) and so takes its rule, but it has another rule from ${other.rule.table}.${other.rule.column}`,
        type: 'conflicting_rule',
      });
      continue;
    }
    if (own || previous) continue;
    const table = model.tables.find((t) => tableKey(t) === p.table) as TableModel;
    const column = table.columns.find((c) => c.name === p.column) as ColumnModel;
    const why = column.generated
      ? 'it is a generated column'
      : misfit(root.rule, root.shape, shapeOf(column));
    const transformerProblems = checkTransformer(root.rule, shapeOf(column));
    if (why || transformerProblems.length > 0) {
      problems.push({
        loc: at('transformer'),
        msg: `${p.table}.${p.column} references ${name} (${p.via}) but cannot take its transformed values: ${why ?? transformerProblems[0]?.msg}`,
        type: 'referencing_column_mismatch',
      });
      continue;
    }
    takenBy.set(addressKey(p), root);
    kept.push(p);
  }
  return { problems, checked: { rules: located.map((l) => l.rule), propagated: kept } };
}
