// MySQL 8 / MariaDB DDL from migration operations. Names go through mysql2's identifier quoting and
// literals through its escaping; types, check and generated expressions and normalised defaults are
// rendered as the catalog printed them.
//
// The changes of one existing table (columns, primary key, indexes, checks, comment) are folded into
// one ALTER TABLE: MySQL copies the table for most ALTERs, so one statement is one copy instead of
// many, and some changes are only accepted together (an AUTO_INCREMENT column must be a key in the
// same statement). The steps of one column become one MODIFY COLUMN with its final definition.
// Foreign keys, tables and data copies stay statements of their own, and a fold never crosses one
// of them on the same table (a backup's copy must come before the column goes; a restore's UPDATE
// sits between adding a column back and making it NOT NULL).
import mysql from 'mysql2/promise';
import type { DdlRenderer, RenderedStatement } from '../../engine/migration/migration.ts';
import type { MigrationOperation, TableRef } from '../../engine/migration/operations.ts';
import type { ColumnModel, Flavor, IndexModel, TableModel, TableOptions } from '../../engine/schema/model.ts';
import { renderMysqlObject } from './mysql.ddl-objects.ts';

const id = (name: string) =>
  (mysql.escapeId as (value: string, forbidQualified: boolean) => string)(name, true);
const lit = (value: string) => mysql.escape(value);
const table = (t: TableRef) => (t.schema === null ? id(t.name) : `${id(t.schema)}.${id(t.name)}`);
const list = (names: string[]) => names.map(id).join(', ');

function collationName(name: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`Unexpected collation name: ${name}`);
  return name;
}

// A normalised default that MySQL takes as it is; anything else is an expression and needs parentheses.
const BARE_DEFAULT =
  /^(?:'(?:[^'\\]|''|\\.)*'|[+-]?\d+(?:\.\d+)?|true|false|null|current_timestamp(?:\(\d\))?|b'[01]*'|0x[0-9a-f]+)$/i;
const BLOB_TYPES =
  /^(tinytext|text|mediumtext|longtext|tinyblob|blob|mediumblob|longblob|json|geometry|point|linestring|polygon)\b/;

function defaultClause(column: ColumnModel, flavor: Flavor): string {
  const value = column.default_normalized;
  if (value === null) return '';
  // MySQL 8 accepts a default on TEXT/BLOB/JSON only as an expression; MariaDB takes the literal.
  if (!BARE_DEFAULT.test(value) || (flavor === 'mysql' && BLOB_TYPES.test(column.type)))
    return ` DEFAULT (${value})`;
  return ` DEFAULT ${value}`;
}

export function columnDefinition(column: ColumnModel, flavor: Flavor): string {
  let text = `${id(column.name)} ${column.type}`;
  if (column.collation !== null) text += ` COLLATE ${collationName(column.collation)}`;
  if (column.generated !== null) {
    text += ` GENERATED ALWAYS AS (${column.generated.expression}) ${column.generated.stored ? 'STORED' : 'VIRTUAL'}`;
    // MariaDB refuses NULL/NOT NULL on a generated column.
    if (flavor === 'mysql') text += column.nullable ? ' NULL' : ' NOT NULL';
  } else {
    text += column.nullable ? ' NULL' : ' NOT NULL';
    text += defaultClause(column, flavor);
    if (column.on_update !== null) text += ` ON UPDATE ${column.on_update}`;
    if (column.auto_increment) text += ' AUTO_INCREMENT';
  }
  if (column.invisible) text += ' INVISIBLE';
  if (column.comment !== null) text += ` COMMENT ${lit(column.comment)}`;
  if (column.check) text += ` CHECK (${column.check})`;
  return text;
}

/** `name`, `name(10)`, `(expression)`, each maybe followed by ` DESC`, as the model writes key parts. */
function keyPart(part: string): string {
  const match = /^(.*?)(\(\d+\))?( DESC)?$/.exec(part)!;
  const [, name = '', prefix = '', desc = ''] = match;
  if (part.startsWith('(')) return part;
  return `${id(name)}${prefix}${desc}`;
}

function indexDefinition(index: IndexModel, flavor: Flavor): string {
  // MariaDB reports a SPATIAL key part with a length (32) that it refuses when it is written back.
  const columns =
    index.method === 'spatial' ? index.columns.map((part) => part.replace(/\(\d+\)$/, '')) : index.columns;
  const parts = `(${columns.map(keyPart).join(', ')})`;
  const ignored = !index.ignored ? '' : flavor === 'mysql' ? ' INVISIBLE' : ' IGNORED';
  if (index.method === 'fulltext') return `FULLTEXT INDEX ${id(index.name)} ${parts}${ignored}`;
  if (index.method === 'spatial') return `SPATIAL INDEX ${id(index.name)} ${parts}${ignored}`;
  const using = index.method === 'hash' ? ' USING HASH' : '';
  return `${index.unique ? 'UNIQUE ' : ''}INDEX ${id(index.name)} ${parts}${using}${ignored}`;
}

/** ENGINE, character set and collation, ROW_FORMAT; names from the catalog, checked. */
function tableOptions(o: TableOptions): string {
  const engine = collationName(o.engine);
  const collation = collationName(o.collation);
  const charset = collation.split('_')[0]!;
  return `ENGINE=${engine} DEFAULT CHARSET=${charset} COLLATE=${collation} ROW_FORMAT=${o.row_format === null ? 'DEFAULT' : collationName(o.row_format)}`;
}

function createTable(t: TableModel, flavor: Flavor): string {
  const parts = t.columns.map((column) => columnDefinition(column, flavor));
  if (t.primary_key) parts.push(`PRIMARY KEY (${t.primary_key.columns.map(keyPart).join(', ')})`);
  for (const index of t.indexes) parts.push(indexDefinition(index, flavor));
  for (const check of t.check_constraints)
    parts.push(`CONSTRAINT ${id(check.name)} CHECK (${check.expression})`);
  const comment = t.comment === null ? '' : ` COMMENT=${lit(t.comment)}`;
  const options = t.table_options ? ` ${tableOptions(t.table_options)}` : '';
  const versioning = t.table_options?.system_versioning ? ' WITH SYSTEM VERSIONING' : '';
  const partitions = t.partitioning?.key ? ` PARTITION BY ${t.partitioning.key}` : '';
  return `CREATE TABLE ${table({ schema: t.schema, name: t.name })} (\n  ${parts.join(',\n  ')}\n)${options}${comment}${versioning}${partitions}`;
}

/** Where an added column goes: after the named column, FIRST (null), or at the end (undefined). */
const position = (after: string | null | undefined) =>
  after === undefined ? '' : after === null ? ' FIRST' : ` AFTER ${id(after)}`;

/** One change inside a folded ALTER TABLE, or null for an operation that is a statement of its own. */
function alterPart(op: MigrationOperation, flavor: Flavor): string | null {
  switch (op.kind) {
    case 'add_column':
      return `ADD COLUMN ${columnDefinition(op.column, flavor)}${position(op.after)}`;
    case 'drop_column':
      return `DROP COLUMN ${id(op.column.name)}`;
    case 'alter_column':
      if (op.change === 'replace_generated')
        return `DROP COLUMN ${id(op.before.name)}, ADD COLUMN ${columnDefinition(op.after, flavor)}`;
      return `MODIFY COLUMN ${columnDefinition(op.after, flavor)}`;
    case 'drop_index':
      return `DROP INDEX ${id(op.index.name)}`;
    case 'create_index':
      return `ADD ${indexDefinition(op.index, flavor)}`;
    case 'rename_index':
      return `RENAME INDEX ${id(op.from)} TO ${id(op.to)}`;
    case 'drop_primary_key':
      return 'DROP PRIMARY KEY';
    case 'add_primary_key':
      return `ADD PRIMARY KEY (${op.key.columns.map(keyPart).join(', ')})`;
    case 'add_check':
      return `ADD CONSTRAINT ${id(op.constraint.name)} CHECK (${op.constraint.expression})`;
    case 'drop_check':
      // DROP CONSTRAINT: MariaDB 10.2+ and MySQL 8.0.19+ (MySQL's DROP CHECK is not MariaDB's).
      return `DROP CONSTRAINT ${id(op.constraint.name)}`;
    case 'set_table_comment':
      return `COMMENT = ${lit(op.after ?? '')}`;
    default:
      return null;
  }
}

/**
 * A table's options changed: its engine, collation and row format in one ALTER; Aria's own options
 * reset after a move away from it (in the same statement they are kept); system versioning added or
 * dropped in a statement of its own (dropping it deletes the history).
 */
function tableOptionStatements(op: Extract<MigrationOperation, { kind: 'set_table_options' }>): string[] {
  const { before, after } = op;
  const out: string[] = [];
  const plain = (o: TableOptions) => tableOptions({ ...o, system_versioning: false });
  if (plain(before) !== plain(after)) out.push(`ALTER TABLE ${table(op.table)} ${tableOptions(after)}`);
  if (before.engine.toLowerCase() === 'aria' && after.engine.toLowerCase() !== 'aria')
    out.push(`ALTER TABLE ${table(op.table)} PAGE_CHECKSUM=DEFAULT TRANSACTIONAL=DEFAULT`);
  if (Boolean(before.system_versioning) !== Boolean(after.system_versioning))
    out.push(`ALTER TABLE ${table(op.table)} ${after.system_versioning ? 'ADD' : 'DROP'} SYSTEM VERSIONING`);
  return out;
}

/** A statement of its own. */
function statement(op: MigrationOperation, flavor: Flavor): { sql: string; transactional: boolean } | null {
  const ddl = (sql: string) => ({ sql, transactional: false });
  switch (op.kind) {
    case 'ensure_backup_schema':
      return null; // backups are tables of the same database
    case 'create_table':
      return ddl(createTable(op.table, flavor));
    case 'drop_table':
      return ddl(`DROP TABLE ${table(op.table)}`);
    case 'add_foreign_key': {
      const k = op.key;
      const referenced = table({ schema: k.referenced_schema, name: k.referenced_table });
      return ddl(
        `ALTER TABLE ${table(op.table)} ADD CONSTRAINT ${id(k.name)} FOREIGN KEY (${list(k.columns)})` +
          ` REFERENCES ${referenced} (${list(k.referenced_columns)})` +
          ` ON UPDATE ${k.on_update.toUpperCase()} ON DELETE ${k.on_delete.toUpperCase()}`,
      );
    }
    case 'drop_foreign_key':
      return ddl(`ALTER TABLE ${table(op.table)} DROP FOREIGN KEY ${id(op.key.name)}`);
    case 'move_column':
      return ddl(
        `ALTER TABLE ${table(op.table)} MODIFY COLUMN ${columnDefinition(op.column, flavor)}${position(op.after)}`,
      );
    case 'set_partitioning':
      return ddl(
        op.after === null
          ? `ALTER TABLE ${table(op.table)} REMOVE PARTITIONING`
          : `ALTER TABLE ${table(op.table)} PARTITION BY ${op.after}`,
      );
    case 'rename_table':
      return ddl(`RENAME TABLE ${table(op.table)} TO ${table({ schema: op.table.schema, name: op.to })}`);
    case 'rename_column':
      // RENAME COLUMN: MySQL 8.0+ and MariaDB 10.5.2+.
      return ddl(`ALTER TABLE ${table(op.table)} RENAME COLUMN ${id(op.from)} TO ${id(op.to)}`);
    case 'backup_column':
      return ddl(
        `CREATE TABLE ${id(op.backup)} AS SELECT ${list([...op.key, op.column].map((c) => c.name))} FROM ${table(op.table)}`,
      );
    case 'drop_backup':
      return ddl(`DROP TABLE ${id(op.backup)}`);
    case 'backup_table':
      return ddl(`CREATE TABLE ${id(op.backup)} AS SELECT * FROM ${table(op.table)}`);
    case 'restore_column': {
      const match = op.key.map((k) => `t.${id(k.name)} = b.${id(k.name)}`).join(' AND ');
      // Columns with ON UPDATE would take the time of the restore: they are set to themselves.
      const keep = op.onUpdateColumns.map((name) => `, t.${id(name)} = t.${id(name)}`).join('');
      return {
        sql: `UPDATE ${table(op.table)} AS t JOIN ${id(op.backup)} AS b ON ${match} SET t.${id(op.column.name)} = b.${id(op.column.name)}${keep}`,
        transactional: true,
      };
    }
    case 'restore_table': {
      const columns = list(op.table.columns.filter((c) => c.generated === null).map((c) => c.name));
      return {
        sql: `INSERT INTO ${table(op.table)} (${columns}) SELECT ${columns} FROM ${id(op.backup)}`,
        transactional: true,
      };
    }
    default:
      // Enums, sequences and extensions are PostgreSQL objects; the planner never asks for them here.
      throw new Error(`MySQL has no ${op.kind}`);
  }
}

interface OpenAlter {
  statement: RenderedStatement;
  table: TableRef;
  parts: string[];
  /** Where each column's part is, and whether the column is added by this statement. */
  columns: Map<string, { at: number; added: boolean }>;
}

export const mysqlDdl: DdlRenderer = {
  name: 'mysql',
  renderDdl(operations, { flavor }) {
    const out: RenderedStatement[] = [];
    const open = new Map<string, OpenAlter>();
    const keyOf = (t: TableRef) => JSON.stringify([t.schema, t.name]);
    const addedAt = new Map<string, string>();
    operations.forEach((op, index) => {
      const part = alterPart(op, flavor);
      const target = 'table' in op ? op.table : null;
      if (part === null) {
        // A statement of its own on a table closes that table's fold: later changes come after it.
        if (target !== null) open.delete(keyOf(target));
        const objectSql = renderMysqlObject(op);
        if (objectSql !== null) {
          for (const sql of objectSql)
            out.push({ sql, transactional: false, kind: op.kind, operations: [index] });
          return;
        }
        const own =
          op.kind === 'set_table_options'
            ? tableOptionStatements(op)
            : [statement(op, flavor)?.sql].filter((sql) => sql !== undefined);
        for (const sql of own) out.push({ sql, transactional: false, kind: op.kind, operations: [index] });
        return;
      }
      const tableRef = target as TableRef;
      let alter = open.get(keyOf(tableRef));
      if (!alter) {
        alter = {
          statement: { sql: '', transactional: false, kind: op.kind, operations: [] },
          table: tableRef,
          parts: [],
          columns: new Map(),
        };
        open.set(keyOf(tableRef), alter);
        out.push(alter.statement);
      }
      alter.statement.operations.push(index);
      if (alter.statement.operations.length > 1) alter.statement.kind = 'alter_table';
      const column =
        op.kind === 'add_column' ? op.column.name : op.kind === 'alter_column' ? op.after.name : null;
      const known = column === null ? undefined : alter.columns.get(column);
      if (known && op.kind === 'alter_column' && op.change !== 'replace_generated') {
        // Later steps of a column replace its earlier part: only the final definition counts.
        const definition = columnDefinition(op.after, flavor);
        alter.parts[known.at] = known.added
          ? `ADD COLUMN ${definition}${addedAt.get(`${keyOf(tableRef)}.${column}`) ?? ''}`
          : `MODIFY COLUMN ${definition}`;
      } else {
        alter.parts.push(part);
        if (column !== null)
          alter.columns.set(column, { at: alter.parts.length - 1, added: op.kind === 'add_column' });
        if (op.kind === 'add_column') addedAt.set(`${keyOf(tableRef)}.${op.column.name}`, position(op.after));
      }
      alter.statement.sql = `ALTER TABLE ${table(alter.table)} ${alter.parts.join(', ')}`;
    });
    return out;
  },
};
