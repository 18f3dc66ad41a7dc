// A patch's dry-run as reads only (docs/contract.md §9): for each statement, SELECTs that count the rows it
// would change, sample them before and after, and look for the constraint violations a read can
// see (NOT NULL, CHECK, unique and primary keys, foreign keys), run in a read-only transaction so that nothing
// the statements or the routines they call could do is kept.
//
// Each statement is computed over its tables as the earlier statements leave them: a table an
// earlier statement changed is read through a derived relation (its rows with the earlier UPDATEs
// applied as CASE WHEN, the DELETEd ones filtered out, the INSERTed ones appended with UNION ALL)
// wherever the later statement names it (dry-run-pieces.ts rewrites the references).
//
// Values only a write would produce are null and said in a note: numbers a sequence, identity or
// AUTO_INCREMENT would give an inserted row, ON UPDATE columns, what triggers and cascading
// foreign keys would do. Generated columns are recomputed from their expressions. Pure.
import type {
  ColumnModel,
  DialectName,
  Flavor,
  ForeignKeyModel,
  SchemaModel,
  TableModel,
} from '../schema/model.ts';
import { schemaObjects } from '../schema/objects.ts';
import { type StatementPieces, statementPieces, type TableName } from './dry-run-pieces.ts';
import { findTable } from './rollback-key.ts';

export const SAMPLE_ROWS = 20;

export interface StatementPlan {
  index: number;
  kind: StatementPieces['kind'];
  /**
   * One row: `affected`, and for each of `written` (in order) `n<i>`, the changed rows where it is
   * null, and for each of `checks` `c<j>`, the changed rows the check refuses. Reading it
   * evaluates every new value once, so a value that cannot be computed fails here.
   */
  summarySql: string;
  written: { name: string; notNull: boolean }[];
  checks: string[];
  /** A query answering a row when the statement would leave two rows with one key. */
  uniqueChecks: { name: string; columns: string[]; sql: string }[];
  /** A query answering a row when the statement would leave a reference without its row. */
  foreignKeyChecks: { message: string; sql: string }[];
  /** Up to SAMPLE_ROWS changed rows: `o<i>` before and `a<i>` after, for column i of `columns`. */
  sampleSql: string;
  columns: string[];
  notes: string[];
}

/** A statement the plan cannot compute by reads; its index and why. */
export class PlanRefused extends Error {
  readonly index: number;
  constructor(index: number, message: string) {
    super(message);
    this.index = index;
  }
}

interface Quoting {
  quoteIdent(name: string): string;
}

const HIT = '__dbops_hit';

/** Whether a column's value on INSERT comes from a sequence or identity (only a write draws it). */
function numberedOnWrite(column: ColumnModel): boolean {
  return column.identity !== null || column.auto_increment || /\bnextval\s*\(/i.test(column.default ?? '');
}

/** How each engine's SQL says what the plan's reads need: a new engine is one more entry. */
interface DryRunSql {
  /**
   * An UPDATE's SET assigns left to right, each expression seeing the columns already assigned;
   * without, every expression reads the old row.
   */
  assignsLeftToRight: boolean;
  /** A value takes its column's type on assignment, which a read says with a CAST; without, as it is. */
  castsOnAssignment: boolean;
  /** A derived table names its columns after its alias (`AS a(c1, c2)`); without, a WITH inside it does. */
  namesDerivedColumns: boolean;
}

const DRY_RUN_SQL: Record<DialectName, DryRunSql> = {
  postgresql: { assignsLeftToRight: false, castsOnAssignment: true, namesDerivedColumns: true },
  mysql: { assignsLeftToRight: true, castsOnAssignment: false, namesDerivedColumns: false },
};

/** The catalog prints a literal column default bare (MySQL 8); the others print an expression. */
const BARE_LITERAL_DEFAULTS: Record<Flavor, boolean> = { postgresql: false, mariadb: false, mysql: true };

/** A column default as an expression. */
function defaultExpression(flavor: Flavor, column: ColumnModel): string | null {
  const text = column.default;
  if (text === null) return null;
  if (BARE_LITERAL_DEFAULTS[flavor] && !/^(current_timestamp|now|[a-z_]+\(|null$|-?\d)/i.test(text))
    return `'${text.replaceAll("'", "''")}'`;
  return text;
}

export async function planDryRun(
  dialect: DialectName,
  writer: Quoting,
  model: SchemaModel,
  statements: { index: number; sql: string }[],
): Promise<StatementPlan[]> {
  const q = (name: string) => writer.quoteIdent(name);
  const engine = DRY_RUN_SQL[dialect];
  const tableSql = (table: TableModel) =>
    table.schema === null ? q(table.name) : `${q(table.schema)}.${q(table.name)}`;
  /** Each changed table's rows as the statements so far leave them, as a SELECT of its columns. */
  const state = new Map<TableModel, string>();
  const relationOf = (name: TableName) => {
    const table = findTable(model, name.schema === null ? name.name : `${name.schema}.${name.name}`);
    return table ? (state.get(table) ?? null) : null;
  };
  const triggers = schemaObjects(model).triggers;
  const plans: StatementPlan[] = [];

  for (const statement of statements) {
    let pieces: StatementPieces;
    try {
      pieces = await statementPieces(dialect, statement.sql, relationOf);
    } catch (error) {
      throw new PlanRefused(statement.index, error instanceof Error ? error.message : String(error));
    }
    const named =
      pieces.target.schema === null ? pieces.target.name : `${pieces.target.schema}.${pieces.target.name}`;
    const table = findTable(model, named);
    if (!table) throw new PlanRefused(statement.index, `table ${named} does not exist`);
    const current = state.get(table);
    const relation = current === undefined ? tableSql(table) : `(${current})`;
    const a = q(pieces.alias);
    const columns = table.columns.map((c) => c.name);
    const byName = new Map(table.columns.map((c) => [c.name, c]));
    const notes: string[] = [];
    const note = (text: string) => notes.includes(text) || notes.push(text);
    if (pieces.unsupported) note(pieces.unsupported);
    /** What a column is set to when a statement says DEFAULT or leaves it out; null (and a note) when only a write knows. */
    const valueByDefault = (column: ColumnModel): string => {
      if (numberedOnWrite(column)) {
        note(`${table.name}.${column.name} is numbered by the server on write; shown as null`);
        return 'NULL';
      }
      if (column.generated) return 'NULL';
      return defaultExpression(model.flavor, column) ?? 'NULL';
    };
    /** A value as the column stores it (PostgreSQL converts on assignment; MySQL's union types suffice). */
    const assigned = (column: ColumnModel, value: string) =>
      engine.castsOnAssignment ? `CAST((${value}) AS ${column.type})` : `(${value})`;
    /** Generated columns recomputed from the other columns of `from` (aliased `a`). */
    const withGenerated = (from: string, extra: string[] = []) =>
      `SELECT ${[
        ...extra.map((e) => `${a}.${q(e)}`),
        ...table.columns.map((c) =>
          c.generated ? `${assigned(c, c.generated.expression)} AS ${q(c.name)}` : `${a}.${q(c.name)}`,
        ),
      ].join(', ')} FROM (${from}) AS ${a}`;
    const hasGenerated = table.columns.some((c) => c.generated);
    const olds = columns.map((c, i) => `${a}.${q(c)} AS ${q(`__dbops_old_${i}`)}`);
    const oldNames = columns.map((_, i) => `__dbops_old_${i}`);

    // The rows the statement changes (`changed`, the new values under the column names, `o<i>` the
    // old ones), and the table as it leaves it (`after`).
    let changed: string;
    let after: string;
    let written: string[];
    if (pieces.kind === 'insert') {
      const listed = pieces.insertColumns ?? columns;
      const source = pieces.source;
      const rowOf = (value: (name: string) => string | null | undefined) =>
        table.columns.map((column) => {
          const given = value(column.name);
          return `${assigned(column, given === undefined || given === null ? valueByDefault(column) : given)} AS ${q(column.name)}`;
        });
      let rows: string;
      if (source?.kind === 'values')
        rows = source.rows
          .map(
            (row) =>
              `SELECT ${rowOf((name) => (listed.includes(name) ? row[listed.indexOf(name)] : undefined)).join(', ')}`,
          )
          .join(' UNION ALL ');
      else if (source?.kind === 'query') {
        const inner = listed.map((_, i) => `__dbops_c${i}`);
        const from = engine.namesDerivedColumns
          ? `(${source.sql}) AS ${a}(${inner.map(q).join(', ')})`
          : `(WITH ${q('__dbops_q')}(${inner.map(q).join(', ')}) AS (${source.sql}) SELECT * FROM ${q('__dbops_q')}) AS ${a}`;
        rows = `SELECT ${rowOf((name) => (listed.includes(name) ? `${a}.${q(inner[listed.indexOf(name)]!)}` : undefined)).join(', ')} FROM ${from}`;
      } else rows = `SELECT ${rowOf(() => undefined).join(', ')}`;
      const inserted = hasGenerated ? withGenerated(rows) : rows;
      changed = `SELECT ${[...columns.map((_, i) => `NULL AS ${q(oldNames[i]!)}`), ...columns.map((c) => `${a}.${q(c)}`)].join(', ')} FROM (${inserted}) AS ${a}`;
      after = `SELECT ${columns.map(q).join(', ')} FROM ${relation} AS ${a} UNION ALL SELECT ${columns.map((c) => `${a}.${q(c)}`).join(', ')} FROM (${inserted}) AS ${a}`;
      written = columns.filter((c) => !numberedOnWrite(byName.get(c)!) && !byName.get(c)!.generated);
      if (pieces.upsert)
        note(
          'Rows that would update an existing row on conflict are shown as inserted rows, and keys are not checked',
        );
    } else {
      const marked = `SELECT ${[...columns.map((c) => `${a}.${q(c)}`), ...olds, `(${pieces.where ?? 'TRUE'}) AS ${q(HIT)}`].join(', ')} FROM ${relation} AS ${a}`;
      if (pieces.kind === 'delete') {
        changed = `SELECT * FROM (${marked}) AS ${a} WHERE ${a}.${q(HIT)}`;
        after = `SELECT ${columns.map((c) => `${a}.${q(c)}`).join(', ')} FROM (${marked}) AS ${a} WHERE ${a}.${q(HIT)} IS NOT TRUE`;
        written = [];
      } else {
        // PostgreSQL evaluates every SET expression over the old row; MySQL assigns left to right,
        // each later expression seeing the columns already assigned.
        const layers = engine.assignsLeftToRight ? pieces.assignments.map((x) => [x]) : [pieces.assignments];
        let layered = marked;
        for (const layer of layers) {
          const set = new Map(layer.map((x) => [x.column, x.value]));
          for (const column of set.keys())
            if (!byName.has(column))
              throw new PlanRefused(statement.index, `column ${column} of ${table.name} does not exist`);
          const values = columns.map((c) => {
            const column = byName.get(c)!;
            if (!set.has(c)) return `${a}.${q(c)}`;
            const value = set.get(c);
            const newValue = assigned(
              column,
              value === null || value === undefined ? valueByDefault(column) : value,
            );
            return `CASE WHEN ${a}.${q(HIT)} THEN ${newValue} ELSE ${a}.${q(c)} END AS ${q(c)}`;
          });
          layered = `SELECT ${[...values, ...oldNames.map((o) => `${a}.${q(o)}`), `${a}.${q(HIT)}`].join(', ')} FROM (${layered}) AS ${a}`;
        }
        const assignedNames = new Set(pieces.assignments.map((x) => x.column));
        for (const column of table.columns)
          if (column.on_update && !assignedNames.has(column.name)) {
            note(
              `${table.name}.${column.name} takes ON UPDATE ${column.on_update} on write; shown as before`,
            );
          }
        const full = hasGenerated ? withGenerated(layered, [...oldNames, HIT]) : layered;
        changed = `SELECT * FROM (${full}) AS ${a} WHERE ${a}.${q(HIT)}`;
        after = `SELECT ${columns.map((c) => `${a}.${q(c)}`).join(', ')} FROM (${full}) AS ${a}`;
        written = columns.filter((c) => assignedNames.has(c) || byName.get(c)!.generated);
      }
    }

    // What a read cannot do: triggers and cascading foreign keys.
    const fired = triggers.filter(
      (t) => t.table === table.name && t.schema === table.schema && t.state !== 'D',
    );
    if (fired.length > 0)
      note(
        `Triggers on ${table.name} (${fired.map((t) => t.name).join(', ')}) run on write; what they would change is not shown`,
      );
    if (pieces.kind !== 'insert')
      for (const other of model.tables)
        for (const fk of other.foreign_keys) {
          if (fk.referenced_table !== table.name || (fk.referenced_schema ?? null) !== table.schema) continue;
          const action = pieces.kind === 'delete' ? fk.on_delete : fk.on_update;
          const touchesKey =
            pieces.kind === 'delete' || fk.referenced_columns.some((c) => written.includes(c));
          if (touchesKey && action !== 'no action' && action !== 'restrict')
            note(
              `${pieces.kind === 'delete' ? 'Deleting' : 'Updating'} rows of ${table.name} goes on to ${other.name} (ON ${pieces.kind.toUpperCase()} ${action.toUpperCase()}); not shown`,
            );
        }

    const checks = [
      ...table.check_constraints.map((c) => ({ name: c.name, expression: c.expression })),
      ...table.columns.filter((c) => c.check).map((c) => ({ name: c.name, expression: c.check! })),
    ];
    const checkExpression = (text: string) =>
      text.replace(/^\s*CHECK\s*/i, '').replace(/\s+NOT VALID\s*$/i, '');
    const summary = [
      'count(*) AS affected',
      // Counting every written value evaluates it, so a value that cannot be computed fails here.
      ...written.map((c, i) => `count(CASE WHEN ${a}.${q(c)} IS NULL THEN 1 END) AS ${q(`n${i}`)}`),
      ...(pieces.kind === 'delete'
        ? []
        : checks.map(
            (c, j) => `count(CASE WHEN NOT (${checkExpression(c.expression)}) THEN 1 END) AS ${q(`c${j}`)}`,
          )),
    ];
    const uniqueChecks =
      pieces.kind === 'delete' || pieces.upsert
        ? []
        : uniqueKeys(table)
            .filter((key) => key.columns.some((c) => written.includes(c)) || pieces.kind === 'insert')
            .filter((key) => key.columns.every((c) => !numberedOnWrite(byName.get(c)!)))
            .map((key) => ({
              ...key,
              sql:
                `SELECT 1 AS duplicate FROM (${after}) AS ${a} WHERE ${key.columns.map((c) => `${a}.${q(c)} IS NOT NULL`).join(' AND ')} ` +
                `GROUP BY ${key.columns.map((c) => `${a}.${q(c)}`).join(', ')} HAVING count(*) > 1 LIMIT 1`,
            }));
    const foreignKeyChecks = referenceChecks({
      model,
      table,
      kind: pieces.kind,
      written,
      columns,
      changed,
      relationAfter: (other) =>
        other === table ? `(${after})` : state.has(other) ? `(${state.get(other)})` : tableSql(other),
      q,
      a,
    });
    plans.push({
      index: statement.index,
      kind: pieces.kind,
      summarySql: `SELECT ${summary.join(', ')} FROM (${changed}) AS ${a}`,
      written: written.map((name) => ({ name, notNull: byName.get(name)!.nullable === false })),
      checks: pieces.kind === 'delete' ? [] : checks.map((c) => c.name),
      uniqueChecks,
      foreignKeyChecks,
      sampleSql: `SELECT ${[
        ...oldNames.map((o, i) => `${a}.${q(o)} AS ${q(`o${i}`)}`),
        ...columns.map((c, i) => `${a}.${q(c)} AS ${q(`a${i}`)}`),
      ].join(', ')} FROM (${changed}) AS ${a} LIMIT ${SAMPLE_ROWS}`,
      columns,
      notes,
    });
    state.set(table, after);
  }
  return plans;
}

/**
 * References a NO ACTION / RESTRICT foreign key would refuse: a written reference without its row,
 * or a removed (or re-keyed) row still referenced. Cascading actions are noted by the plan.
 */
function referenceChecks(args: {
  model: SchemaModel;
  table: TableModel;
  kind: StatementPieces['kind'];
  written: string[];
  columns: string[];
  /** The changed rows (new values under the column names, the old ones as `__dbops_old_<i>`). */
  changed: string;
  /** A table's rows as the statements so far, this one included, leave them. */
  relationAfter: (table: TableModel) => string;
  q: (name: string) => string;
  /** The quoted alias of the changed rows. */
  a: string;
}): StatementPlan['foreignKeyChecks'] {
  const { model, table, kind, written, columns, changed, relationAfter, q, a } = args;
  const referencedTable = (fk: ForeignKeyModel, owner: TableModel) =>
    model.tables.find(
      (t) => t.name === fk.referenced_table && t.schema === (fk.referenced_schema ?? owner.schema),
    );
  const foreignKeyChecks: StatementPlan['foreignKeyChecks'] = [];
  if (kind !== 'delete')
    for (const fk of table.foreign_keys) {
      const parent = referencedTable(fk, table);
      if (!parent || !fk.columns.some((c) => written.includes(c))) continue;
      foreignKeyChecks.push({
        message: `insert or update on table "${table.name}" violates foreign key constraint "${fk.name}"`,
        sql:
          `SELECT 1 AS missing FROM (${changed}) AS ${a} WHERE ${fk.columns.map((c) => `${a}.${q(c)} IS NOT NULL`).join(' AND ')} ` +
          `AND NOT EXISTS (SELECT 1 FROM ${relationAfter(parent)} AS ${q('__dbops_parent')} WHERE ${fk.referenced_columns.map((r, i) => `${q('__dbops_parent')}.${q(r)} = ${a}.${q(fk.columns[i]!)}`).join(' AND ')}) LIMIT 1`,
      });
    }
  if (kind !== 'insert')
    for (const child of model.tables)
      for (const fk of child.foreign_keys) {
        if (referencedTable(fk, child) !== table) continue;
        const action = kind === 'delete' ? fk.on_delete : fk.on_update;
        if (action !== 'no action' && action !== 'restrict') continue;
        const old = (column: string) => `${a}.${q(`__dbops_old_${columns.indexOf(column)}`)}`;
        const moved =
          kind === 'delete'
            ? 'TRUE'
            : fk.referenced_columns.some((c) => written.includes(c))
              ? `NOT (${fk.referenced_columns.map((c) => `${a}.${q(c)} = ${old(c)}`).join(' AND ')})`
              : null;
        if (moved === null) continue;
        foreignKeyChecks.push({
          message: `update or delete on table "${table.name}" violates foreign key constraint "${fk.name}" on table "${child.name}"`,
          sql:
            `SELECT 1 AS referenced FROM (${changed}) AS ${a} WHERE ${moved} AND EXISTS (SELECT 1 FROM ${relationAfter(child)} AS ${q('__dbops_child')} ` +
            `WHERE ${fk.columns.map((c, i) => `${q('__dbops_child')}.${q(c)} = ${old(fk.referenced_columns[i]!)}`).join(' AND ')}) LIMIT 1`,
        });
      }
  return foreignKeyChecks;
}

/** The keys no two rows may share: the primary key, unique constraints, unique indexes on plain columns. */
function uniqueKeys(table: TableModel): { name: string; columns: string[] }[] {
  const names = new Set(table.columns.map((c) => c.name));
  return [
    ...(table.primary_key ? [{ name: table.primary_key.name, columns: table.primary_key.columns }] : []),
    ...table.unique_constraints.map((u) => ({ name: u.name, columns: u.columns })),
    ...table.indexes
      .filter((i) => i.unique && i.predicate === null)
      .map((i) => ({ name: i.name, columns: i.columns })),
  ].filter((key) => key.columns.length > 0 && key.columns.every((c) => names.has(c)));
}
