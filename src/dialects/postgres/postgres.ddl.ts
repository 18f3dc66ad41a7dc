// PostgreSQL DDL from migration operations. Names (schemas, tables, columns, constraints, indexes,
// types, sequences) always go through pg's identifier quoting and literals through its literal
// quoting. Types, defaults, collations and the expressions of checks, indexes, exclusions and
// generated columns are rendered as the model holds them: the server printed them (format_type,
// pg_get_expr, quote_ident with search_path = ''), schema-qualified and quoted; they are never text a
// user typed. One operation per statement, except where one change needs several (a recreated enum
// (./postgres.ddl-enums.ts),
// an identity whose sequence must catch up with existing values).

import type { DdlRenderer, RenderedStatement } from '../../engine/migration/migration.ts';
import type { MigrationOperation, TableRef } from '../../engine/migration/operations.ts';
import { classifyTypeChange } from '../../engine/migration/type-change.ts';
import { traitsOf } from '../../engine/schema/engine-traits.ts';
import type { CheckConstraintModel, ColumnModel, ForeignKeyModel } from '../../engine/schema/model.ts';
import { renderBackupOperation } from './postgres.ddl-backups.ts';
import { checkToWrite } from './postgres.ddl-checks.ts';
import { renderEnumOperation } from './postgres.ddl-enums.ts';
import { indexTail, storageParameters, uniqueConstraintBody } from './postgres.ddl-indexes.ts';
import { id, isUserType, list, lit, named, table } from './postgres.ddl-names.ts';
import { commentOn, renderObjectOperation } from './postgres.ddl-objects.ts';
import {
  clampSequence,
  identityOptions,
  restartsSequence,
  sequenceOptions,
  syncSequence,
} from './postgres.ddl-sequences.ts';
import { rebuildTable, renderTableExtras, tableStorage } from './postgres.ddl-tables.ts';

function deferral(item: { deferrable: boolean; initially_deferred: boolean }): string {
  if (!item.deferrable) return '';
  return item.initially_deferred ? ' DEFERRABLE INITIALLY DEFERRED' : ' DEFERRABLE';
}

const identity = (kind: 'always' | 'by_default') => (kind === 'always' ? 'ALWAYS' : 'BY DEFAULT');

export function columnDefinition(column: ColumnModel): string {
  let text = `${id(column.name)} ${column.type}`;
  if (column.compression) text += ` COMPRESSION ${column.compression}`;
  if (column.collation !== null) text += ` COLLATE ${column.collation}`;
  if (column.generated !== null) text += ` GENERATED ALWAYS AS (${column.generated.expression}) STORED`;
  else if (column.identity !== null) {
    text += ` GENERATED ${identity(column.identity)} AS IDENTITY`;
    if (column.identity_options) text += ` (${identityOptions(column.identity_options, '').join(' ')})`;
  } else if (column.default !== null) text += ` DEFAULT ${column.default}`;
  if (!column.nullable) text += ' NOT NULL';
  return text;
}

function indexSql(
  t: TableRef,
  index: import('../../engine/schema/model.ts').IndexModel,
  concurrently: boolean,
) {
  let sql = `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${concurrently ? 'CONCURRENTLY ' : ''}${id(index.name)}`;
  sql += ` ON ${table(t)} USING ${id(index.method)} (${index.columns.join(', ')})`;
  return sql + indexTail(index);
}

function usingClause(column: string, before: ColumnModel, after: ColumnModel): string {
  const change = classifyTypeChange(before.type, after.type, traitsOf('postgresql'));
  if (change.direction === 'widening' || change.direction === 'narrowing' || change.direction === 'same')
    return '';
  const array = after.type.endsWith('[]') && before.type.endsWith('[]');
  // Between enums (or any user type) the way goes through text; built-in types cast directly.
  const via = isUserType(before.type) || isUserType(after.type) ? (array ? '::text[]' : '::text') : '';
  return ` USING ${id(column)}${via}::${after.type}`;
}

/** SET STORAGE for a created column whose storage is not its type's (CREATE takes it from 16 on). */
const columnStorage = (t: TableRef, column: ColumnModel) =>
  column.storage
    ? [`ALTER TABLE ${table(t)} ALTER COLUMN ${id(column.name)} SET STORAGE ${column.storage.toUpperCase()}`]
    : [];

/** SET STORAGE to the storage of the column's type, read from pg_type when the statement runs. */
function typeStorage(t: TableRef, column: string): string {
  const target = lit(table(t));
  return `DO $dbops$ BEGIN EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET STORAGE %s', ${target}, ${lit(column)},
  (SELECT CASE ty.typstorage WHEN 'p' THEN 'PLAIN' WHEN 'e' THEN 'EXTERNAL' WHEN 'x' THEN 'EXTENDED' ELSE 'MAIN' END
   FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid
   WHERE a.attrelid = ${target}::regclass AND a.attname = ${lit(column)})); END $dbops$`;
}

function alterColumn(op: Extract<MigrationOperation, { kind: 'alter_column' }>): string[] {
  const prefix = `ALTER TABLE ${table(op.table)} ALTER COLUMN ${id(op.after.name)}`;
  const { before, after } = op;
  switch (op.change) {
    case 'drop_identity':
      return [`${prefix} DROP IDENTITY`];
    case 'identity_kind':
      return [`${prefix} SET GENERATED ${identity(after.identity!)}`];
    case 'drop_default':
      return [`${prefix} DROP DEFAULT`];
    case 'set_default':
      return [`${prefix} SET DEFAULT ${after.default}`];
    case 'type': {
      const collation = after.collation ?? (before.collation !== null ? '"default"' : null);
      const collate = collation === null ? '' : ` COLLATE ${collation}`;
      // A new type resets the column's storage and compression to the type's: they are set again.
      return [
        `${prefix} TYPE ${after.type}${collate}${usingClause(after.name, before, after)}`,
        ...(after.storage ? [`${prefix} SET STORAGE ${after.storage.toUpperCase()}`] : []),
        ...(after.compression ? [`${prefix} SET COMPRESSION ${after.compression}`] : []),
      ];
    }
    case 'set_not_null':
      return [`${prefix} SET NOT NULL`];
    case 'drop_not_null':
      return [`${prefix} DROP NOT NULL`];
    case 'add_identity':
      return [
        `${prefix} ADD GENERATED ${identity(after.identity!)} AS IDENTITY${after.identity_options ? ` (${identityOptions(after.identity_options, '').join(' ')})` : ''}`,
        syncSequence(op.table, after.name, null),
      ];
    case 'drop_expression':
      return [`${prefix} DROP EXPRESSION`];
    case 'replace_generated':
      return [
        `ALTER TABLE ${table(op.table)} DROP COLUMN ${id(before.name)}, ADD COLUMN ${columnDefinition(after)}`,
      ];
    case 'comment':
      return [
        `COMMENT ON COLUMN ${table(op.table)}.${id(after.name)} IS ${after.comment === null ? 'NULL' : lit(after.comment)}`,
      ];
    case 'storage':
      if (after.storage) return [`${prefix} SET STORAGE ${after.storage.toUpperCase()}`];
      // Back to the type's own storage: SET STORAGE DEFAULT is PostgreSQL 16+, so it is looked up.
      return [typeStorage(op.table, after.name)];
    case 'compression':
      return [`${prefix} SET COMPRESSION ${after.compression ?? 'DEFAULT'}`];
    case 'on_update':
    case 'auto_increment':
      throw new Error(`PostgreSQL columns have no ${op.change}`);
  }
}

const checkSql = (c: CheckConstraintModel) =>
  `CONSTRAINT ${id(c.name)} CHECK (${checkToWrite(c.expression)})${c.no_inherit ? ' NO INHERIT' : ''}`;

function foreignKeySql(k: ForeignKeyModel): string {
  const referenced = table({ schema: k.referenced_schema, name: k.referenced_table });
  return (
    `CONSTRAINT ${id(k.name)} FOREIGN KEY (${list(k.columns)})` +
    ` REFERENCES ${referenced} (${list(k.referenced_columns)})${k.match_full ? ' MATCH FULL' : ''}` +
    ` ON UPDATE ${k.on_update.toUpperCase()} ON DELETE ${k.on_delete.toUpperCase()}${deferral(k)}`
  );
}

/** COMMENT ON a constraint or index created with a comment (none: nothing to say). */
function commentOf(
  type: 'constraint' | 'index' | 'sequence' | 'type',
  schema: string | null,
  name: string,
  comment: string | null | undefined,
  onTable: string | null = null,
): string[] {
  return comment ? [commentOn({ type, schema, name, table: onTable }, comment)] : [];
}

const constraintComment = (t: TableRef, item: { name: string; comment?: string | null }) =>
  commentOf('constraint', t.schema, item.name, item.comment, t.name);
const indexComment = (t: TableRef, index: { name: string; comment?: string | null }) =>
  commentOf('index', t.schema, index.name, index.comment);

function createTable(t: import('../../engine/schema/model.ts').TableModel): string[] {
  const ref = { schema: t.schema, name: t.name };
  const partition = t.partitioning?.parent ? t.partitioning : null;
  // Columns a partition or child inherits come from its parent; NOT VALID checks are added after.
  const parts = t.columns.filter((c) => c.inherited !== true).map(columnDefinition);
  if (t.primary_key)
    parts.push(
      `CONSTRAINT ${id(t.primary_key.name)} PRIMARY KEY (${list(t.primary_key.columns)})${deferral(t.primary_key)}`,
    );
  for (const u of t.unique_constraints)
    parts.push(`CONSTRAINT ${id(u.name)} ${uniqueConstraintBody(u, list(u.columns))}${deferral(u)}`);
  for (const c of t.check_constraints) if (!c.not_valid) parts.push(checkSql(c));
  // pg_get_constraintdef prints DEFERRABLE itself.
  for (const x of t.exclusion_constraints) parts.push(`CONSTRAINT ${id(x.name)} ${x.definition}`);
  let head = `CREATE ${t.table_storage?.unlogged ? 'UNLOGGED ' : ''}TABLE ${table(ref)}`;
  if (partition) head += ` PARTITION OF ${table(partition.parent!)}`;
  let sql = parts.length === 0 ? (partition ? head : `${head} ()`) : `${head} (\n  ${parts.join(',\n  ')}\n)`;
  if (partition) sql += ` ${partition.bound}`;
  else if (t.inherits && t.inherits.length > 0) sql += ` INHERITS (${t.inherits.map(table).join(', ')})`;
  if (t.partitioning?.key) sql += ` PARTITION BY ${t.partitioning.key}`;
  sql += storageParameters(t.table_storage?.parameters);
  const out = [sql];
  for (const c of t.check_constraints)
    if (c.not_valid) out.push(`ALTER TABLE ${table(ref)} ADD ${checkSql(c)} NOT VALID`);
  for (const index of t.indexes) out.push(indexSql(ref, index, false));
  // After the indexes: REPLICA IDENTITY USING INDEX and CLUSTER ON name one of them.
  if (t.table_storage && (t.table_storage.replica_identity !== 'default' || t.table_storage.cluster_on))
    out.push(...tableStorage(table(ref), null, { ...t.table_storage, parameters: [], unlogged: false }));
  for (const column of t.columns) if (column.inherited !== true) out.push(...columnStorage(ref, column));
  for (const item of [
    ...(t.primary_key ? [t.primary_key] : []),
    ...t.unique_constraints,
    ...t.check_constraints,
    ...t.exclusion_constraints,
  ])
    out.push(...constraintComment(ref, item));
  for (const index of t.indexes) out.push(...indexComment(ref, index));
  if (t.comment !== null) out.push(`COMMENT ON TABLE ${table(ref)} IS ${lit(t.comment)}`);
  for (const column of t.columns)
    if (column.comment !== null)
      out.push(`COMMENT ON COLUMN ${table(ref)}.${id(column.name)} IS ${lit(column.comment)}`);
  return out;
}

/** The statements of one operation, and whether they may run inside a transaction. */
function render(op: MigrationOperation): { sql: string[]; transactional: boolean; kind: string } {
  const one = (sql: string, transactional = true) => ({ sql: [sql], transactional, kind: op.kind });
  const many = (sql: string[]) => ({ sql, transactional: true, kind: op.kind });
  const enumSql = renderEnumOperation(op);
  if (enumSql) return { ...enumSql, kind: op.kind };
  const backupSql = renderBackupOperation(op);
  if (backupSql) return many(backupSql);
  switch (op.kind) {
    case 'drop_extension':
      return one(`DROP EXTENSION ${id(op.name)}`);
    case 'create_sequence':
      return many([
        `CREATE SEQUENCE ${named(op.sequence.schema, op.sequence.name)} ${sequenceOptions(op.sequence)}`,
        ...commentOf('sequence', op.sequence.schema, op.sequence.name, op.sequence.comment),
      ]);
    case 'alter_sequence': {
      const name = named(op.after.schema, op.after.name);
      return many([
        ...clampSequence(`${lit(name)}::regclass`, op.before, op.after),
        `ALTER SEQUENCE ${name} ${sequenceOptions(op.after)}${restartsSequence(op.before, op.after) ? ' RESTART' : ''}`,
      ]);
    }
    case 'set_sequence_owner': {
      const owner = op.after;
      const target =
        owner === null ? 'NONE' : `${table({ schema: owner.schema, name: owner.table })}.${id(owner.column)}`;
      return one(`ALTER SEQUENCE ${named(op.sequence.schema, op.sequence.name)} OWNED BY ${target}`);
    }
    case 'drop_sequence':
      return one(`DROP SEQUENCE ${named(op.sequence.schema, op.sequence.name)}`);
    case 'create_table':
      return many(createTable(op.table));
    case 'rebuild_table':
      return many(rebuildTable(op, createTable));
    case 'drop_table':
      return one(`DROP TABLE ${table(op.table)}`);
    case 'add_column':
      return many([
        `ALTER TABLE ${table(op.table)} ADD COLUMN ${columnDefinition(op.column)}`,
        ...columnStorage(op.table, op.column),
      ]);
    case 'drop_column':
      return one(`ALTER TABLE ${op.only ? 'ONLY ' : ''}${table(op.table)} DROP COLUMN ${id(op.column.name)}`);
    case 'alter_column':
      return { sql: alterColumn(op), transactional: true, kind: `alter_column_${op.change}` };
    case 'add_primary_key':
      return many([
        `ALTER TABLE ${table(op.table)} ADD CONSTRAINT ${id(op.key.name)} PRIMARY KEY (${list(op.key.columns)})${deferral(op.key)}`,
        ...constraintComment(op.table, op.key),
      ]);
    case 'add_unique':
      return many([
        `ALTER TABLE ${table(op.table)} ADD CONSTRAINT ${id(op.constraint.name)} ${uniqueConstraintBody(op.constraint, list(op.constraint.columns))}${deferral(op.constraint)}`,
        ...constraintComment(op.table, op.constraint),
      ]);
    case 'add_check':
      return many([
        `ALTER TABLE ${table(op.table)} ADD ${checkSql(op.constraint)}${op.constraint.not_valid ? ' NOT VALID' : ''}`,
        ...constraintComment(op.table, op.constraint),
      ]);
    case 'add_exclusion':
      return many([
        `ALTER TABLE ${table(op.table)} ADD CONSTRAINT ${id(op.constraint.name)} ${op.constraint.definition}`,
        ...constraintComment(op.table, op.constraint),
      ]);
    case 'add_foreign_key':
      return many([
        `ALTER TABLE ${table(op.table)} ADD ${foreignKeySql(op.key)}${op.key.not_valid ? ' NOT VALID' : ''}`,
        ...constraintComment(op.table, op.key),
      ]);
    case 'validate_constraint': {
      const name = op.constraint.kind === 'check' ? op.constraint.check.name : op.constraint.key.name;
      return one(`ALTER TABLE ${table(op.table)} VALIDATE CONSTRAINT ${id(name)}`);
    }
    case 'alter_identity':
      return many([
        ...clampSequence(
          `pg_get_serial_sequence(${lit(table(op.table))}, ${lit(op.column)})::regclass`,
          op.before,
          op.after,
        ),
        `ALTER TABLE ${table(op.table)} ALTER COLUMN ${id(op.column)} ${identityOptions(op.after, 'SET ').join(' ')}${restartsSequence(op.before, op.after) ? ' RESTART' : ''}`,
      ]);
    case 'create_extension':
      return one(
        `CREATE EXTENSION IF NOT EXISTS ${id(op.name)}${op.schema === null ? '' : ` SCHEMA ${id(op.schema)}`}` +
          `${op.version ? ` VERSION ${lit(op.version)}` : ''}`,
      );
    case 'drop_primary_key':
    case 'drop_foreign_key':
      return one(`ALTER TABLE ${table(op.table)} DROP CONSTRAINT ${id(op.key.name)}`);
    case 'drop_unique':
    case 'drop_check':
    case 'drop_exclusion':
      return one(`ALTER TABLE ${table(op.table)} DROP CONSTRAINT ${id(op.constraint.name)}`);
    case 'create_index':
      return {
        sql: [indexSql(op.table, op.index, op.concurrently), ...indexComment(op.table, op.index)],
        transactional: !op.concurrently,
        kind: op.kind,
      };
    case 'drop_index': {
      // Concurrent drops run after the transaction, when a dropped column may have taken the index along.
      const how = op.concurrently ? 'CONCURRENTLY IF EXISTS ' : '';
      return one(`DROP INDEX ${how}${named(op.table.schema ?? 'public', op.index.name)}`, !op.concurrently);
    }
    case 'rename_index':
      return one(`ALTER INDEX ${named(op.table.schema ?? 'public', op.from)} RENAME TO ${id(op.to)}`);
    case 'rename_constraint':
      return one(`ALTER TABLE ${table(op.table)} RENAME CONSTRAINT ${id(op.from)} TO ${id(op.to)}`);
    case 'rename_table':
      return one(`ALTER TABLE ${table(op.table)} RENAME TO ${id(op.to)}`);
    case 'rename_column':
      return one(`ALTER TABLE ${table(op.table)} RENAME COLUMN ${id(op.from)} TO ${id(op.to)}`);
    case 'outside_transaction': {
      const inner = render(op.op);
      return { ...inner, transactional: false };
    }
    case 'set_table_comment':
      return one(`COMMENT ON TABLE ${table(op.table)} IS ${op.after === null ? 'NULL' : lit(op.after)}`);
    default: {
      const sql = renderTableExtras(op) ?? renderObjectOperation(op);
      if (sql === null) throw new Error(`PostgreSQL cannot render ${op.kind}`);
      return many(sql);
    }
  }
}

export const postgresDdl: DdlRenderer = {
  name: 'postgresql',
  renderDdl(operations) {
    const out: RenderedStatement[] = [];
    operations.forEach((op, index) => {
      const { sql, transactional, kind } = render(op);
      for (const text of sql) out.push({ sql: text, transactional, kind, operations: [index] });
    });
    return out;
  },
};
