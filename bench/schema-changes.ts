// The scripted changes of the schema bench (bench/schema.ts), applied to the generated schema
// (schema-fixture.ts) as DDL: a few hundred columns added, dropped and retyped, defaults, NOT NULL,
// indexes, foreign keys, unique and check constraints, comments, tables added and dropped; each with
// the diff entry it must produce.
import type { DialectName } from '../src/engine/schema/model.ts';
import { type Quote, type TableSpec, tableName } from './schema-fixture.ts';

export interface ExpectedChange {
  /** The table's name (without schema). */
  table: string;
  kind: string;
  /** The changed object's name as the diff reports it; the table's for table-level entries. */
  object: string;
}

export interface ScriptedChanges {
  /** Statements per engine, in order, batched like the DDL. */
  pg: string[];
  mysql: string[];
  expected: ExpectedChange[];
}

/** How many tables each kind of change touches in a 1,000-table schema (scaled to other sizes). */
const CHANGE_COUNTS = {
  table_removed: 10,
  table_added: 10,
  column_added: 60,
  column_removed: 40,
  column_type_changed: 40,
  column_default_changed: 40,
  column_not_null_added: 30,
  index_added: 40,
  index_removed: 20,
  foreign_key_added: 20,
  check_constraint_added: 10,
  unique_constraint_added: 10,
  table_comment_changed: 10,
} as const;

type ChangeKind = keyof typeof CHANGE_COUNTS;

/**
 * `tables` changed tables in all (each kind of change touches its own tables; an added table counts
 * as changed), shared between the kinds in the proportions of CHANGE_COUNTS, at least one each:
 * largest remainders, so the counts add up to exactly `tables` (13 or more).
 */
export function changeCounts(tables: number): Record<ChangeKind, number> {
  const kinds = Object.keys(CHANGE_COUNTS) as ChangeKind[];
  const total = kinds.reduce((sum, kind) => sum + CHANGE_COUNTS[kind], 0);
  const wanted = Math.max(kinds.length, Math.round(tables));
  const share = kinds.map((kind) => (CHANGE_COUNTS[kind] * wanted) / total);
  const counts = share.map((x) => Math.max(1, Math.floor(x)));
  let left = wanted - counts.reduce((a, b) => a + b, 0);
  const byRemainder = kinds
    .map((_, i) => i)
    .sort((a, b) => share[b]! - counts[b]! - (share[a]! - counts[a]!));
  for (let k = 0; left > 0; k = (k + 1) % kinds.length, left--) counts[byRemainder[k]!]! += 1;
  for (let i = kinds.length - 1; left < 0; i = (i + kinds.length - 1) % kinds.length) {
    const at = byRemainder[i]!;
    if (counts[at]! > 1) {
      counts[at]! -= 1;
      left++;
    }
  }
  return Object.fromEntries(kinds.map((kind, i) => [kind, counts[i]!])) as Record<ChangeKind, number>;
}

/**
 * The scripted changes: each kind on its own tables (so no two changes touch the same object and
 * each produces exactly one diff entry), spread over the schema by a fixed permutation.
 */
export function scriptChanges(specs: TableSpec[], q: Quote, changedTables?: number): ScriptedChanges {
  const n = specs.length;
  const counts = changedTables === undefined ? undefined : changeCounts(changedTables);
  const scale = (kind: ChangeKind) =>
    counts?.[kind] ?? Math.max(1, Math.round((CHANGE_COUNTS[kind] * n) / 1000));
  const referenced = new Set(specs.flatMap((t) => t.foreignKeys.map((fk) => fk.references)));
  const used = new Set<number>([0]); // t_0000 stays as it is: the added foreign keys point to it.
  // 379 is prime to 1,000 (and to most sizes): the order visits every table once.
  const step = [379, 383, 389, 397].find((p) => n % p !== 0)!;
  const order = Array.from({ length: n }, (_, j) => (j * step) % n);
  const pick = (count: number, fits: (t: TableSpec) => boolean) => {
    const chosen: TableSpec[] = [];
    for (const i of order) {
      if (chosen.length === count) break;
      const t = specs[i]!;
      if (!used.has(i) && fits(t)) {
        used.add(i);
        chosen.push(t);
      }
    }
    return chosen;
  };
  const pg: string[] = [];
  const mysql: string[] = [];
  const expected: ExpectedChange[] = [];
  const expect = (table: string, kind: string, object: string) => expected.push({ table, kind, object });
  const pgT = (t: { name: string }) => `public.${q(t.name)}`;
  const both = (t: TableSpec, kind: string, object: string, pgSql: string, mySql: string) => {
    pg.push(pgSql);
    mysql.push(mySql);
    expect(t.name, kind, object);
  };

  for (const t of pick(scale('table_removed'), (t) => !referenced.has(t.name))) {
    both(t, 'table_removed', t.name, `drop table ${pgT(t)};`, `drop table ${q(t.name)};`);
  }
  for (let k = 1; k <= scale('table_added'); k++) {
    const name = `t_added_${String(k).padStart(2, '0')}`;
    const ref = `constraint ${q(`fk_${name}_ref`)} foreign key (${q('t_ref')})`;
    pg.push(
      `create table public.${q(name)} (${q('id')} bigint primary key, ${q('t_ref')} bigint, ${q('label')} varchar(40), ${ref} references public.${q(tableName(0))} (${q('id')}));`,
    );
    mysql.push(
      `create table ${q(name)} (${q('id')} bigint primary key, ${q('t_ref')} bigint, ${q('label')} varchar(40), ${ref} references ${q(tableName(0))} (${q('id')}));`,
    );
    expect(name, 'table_added', name);
  }
  for (const t of pick(scale('column_added'), () => true)) {
    const sql = (table: string) => `alter table ${table} add column ${q('extra_note')} varchar(64);`;
    both(t, 'column_added', 'extra_note', sql(pgT(t)), sql(q(t.name)));
  }
  for (const t of pick(scale('column_removed'), () => true)) {
    // The table's last column: a palette column in no index, constraint or generated expression.
    const column = t.columns.at(-1)!.name;
    const sql = (table: string) => `alter table ${table} drop column ${q(column)};`;
    both(t, 'column_removed', column, sql(pgT(t)), sql(q(t.name)));
  }
  for (const t of pick(scale('column_type_changed'), () => true)) {
    both(
      t,
      'column_type_changed',
      'email',
      `alter table ${pgT(t)} alter column ${q('email')} type varchar(320);`,
      // MODIFY restates the whole column; email has no default and no comment to lose.
      `alter table ${q(t.name)} modify column ${q('email')} varchar(320) null;`,
    );
  }
  for (const t of pick(scale('column_default_changed'), () => true)) {
    const sql = (table: string) => `alter table ${table} alter column ${q('status')} set default 'pending';`;
    both(t, 'column_default_changed', 'status', sql(pgT(t)), sql(q(t.name)));
  }
  for (const t of pick(scale('column_not_null_added'), () => true)) {
    both(
      t,
      'column_not_null_added',
      'email',
      `alter table ${pgT(t)} alter column ${q('email')} set not null;`,
      `alter table ${q(t.name)} modify column ${q('email')} varchar(255) not null;`,
    );
  }
  for (const t of pick(scale('index_added'), () => true)) {
    const name = `ix_${t.name}_created`;
    both(
      t,
      'index_added',
      name,
      `create index ${q(name)} on ${pgT(t)} (${q('created_at')});`,
      `create index ${q(name)} on ${q(t.name)} (${q('created_at')});`,
    );
  }
  for (const t of pick(scale('index_removed'), () => true)) {
    const name = t.indexes[1]!.name;
    both(t, 'index_removed', name, `drop index public.${q(name)};`, `drop index ${q(name)} on ${q(t.name)};`);
  }
  for (const t of pick(
    scale('foreign_key_added'),
    (t) => !t.foreignKeys.some((fk) => fk.column === 'ref_b_id'),
  )) {
    const name = `fk_${t.name}_ref_b`;
    const sql = (table: string, target: string) =>
      `alter table ${table} add constraint ${q(name)} foreign key (${q('ref_b_id')}) references ${target} (${q('id')});`;
    // On MySQL InnoDB adds an index for the key; the diff knows that is not drift.
    both(
      t,
      'foreign_key_added',
      name,
      sql(pgT(t), `public.${q(tableName(0))}`),
      sql(q(t.name), q(tableName(0))),
    );
  }
  for (const t of pick(scale('check_constraint_added'), () => true)) {
    const name = `ck_${t.name}_name_len`;
    const sql = (table: string) =>
      `alter table ${table} add constraint ${q(name)} check (char_length(${q('name')}) < 500);`;
    both(t, 'check_constraint_added', name, sql(pgT(t)), sql(q(t.name)));
  }
  for (const t of pick(scale('unique_constraint_added'), (t) => t.uniques.length === 0)) {
    const name = `uq_${t.name}_email`;
    const sql = (table: string) => `alter table ${table} add constraint ${q(name)} unique (${q('email')});`;
    pg.push(sql(pgT(t)));
    mysql.push(sql(q(t.name)));
    // MySQL has no unique constraints in the model: a UNIQUE KEY is an index.
    expected.push({ table: t.name, kind: 'unique_constraint_added', object: name });
  }
  for (const t of pick(scale('table_comment_changed'), () => true)) {
    both(
      t,
      'table_comment_changed',
      t.name,
      `comment on table ${pgT(t)} is 'Changed by the bench';`,
      `alter table ${q(t.name)} comment = 'Changed by the bench';`,
    );
  }
  const batches = (statements: string[]) => {
    const out: string[] = [];
    for (let i = 0; i < statements.length; i += 50) out.push(statements.slice(i, i + 50).join('\n'));
    return out;
  };
  return { pg: batches(pg), mysql: batches(mysql), expected };
}

/** The expected entry as the diff of `dialect` names it. */
export function expectedFor(change: ExpectedChange, dialect: DialectName): ExpectedChange {
  if (dialect === 'mysql' && change.kind === 'unique_constraint_added')
    return { ...change, kind: 'index_added' };
  return change;
}
