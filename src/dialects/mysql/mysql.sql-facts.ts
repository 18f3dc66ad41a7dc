// node-sql-parser trees (MySQL grammar) → the neutral statement facts lint and the rollback
// derivation use. MODIFY/CHANGE COLUMN restate a whole column: they become a `modify_column` fact
// that lint compares with the target's column.
import type { ConstraintKind, StatementFact } from '../../engine/migration/facts.ts';
import type { TableRef } from '../../engine/migration/operations.ts';
import { canonicalType } from '../../engine/schema/normalize.ts';

type Node = Record<string, unknown>;

const obj = (value: unknown): Node | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** `{db, table}` → a table (MySQL: the database of the connection, so no schema). */
function tableOf(value: unknown): TableRef {
  return { schema: null, name: str(obj(value)?.table) ?? '' };
}

function columnName(value: unknown): string {
  const node = obj(value) ?? {};
  const column = node.column;
  // Newer grammars wrap names: { expr: { type: 'default', value: 'name' } }.
  return str(column) ?? str(obj(obj(column)?.expr)?.value) ?? '';
}

/** A column definition's type as the model writes it (`varchar(20)`, `int unsigned`, `enum('a','b')`). */
export function definitionType(value: unknown): string {
  const node = obj(value) ?? {};
  let type = (str(node.dataType) ?? '').toLowerCase();
  const values = arr(obj(node.expr)?.value).map((item) => str(obj(item)?.value) ?? '');
  if (values.length > 0) type += `(${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')})`;
  else if (typeof node.length === 'number')
    type += typeof node.scale === 'number' ? `(${node.length},${node.scale})` : `(${node.length})`;
  const suffix = arr(node.suffix).map((item) => String(item).toLowerCase());
  if (suffix.length > 0) type += ` ${suffix.join(' ')}`;
  return canonicalType(type, 'mysql');
}

function constraintKind(type: string): ConstraintKind | null {
  const t = type.toLowerCase();
  if (t === 'primary key') return 'primary_key';
  if (t.startsWith('unique')) return 'unique';
  if (t === 'foreign key') return 'foreign_key';
  if (t === 'check') return 'check';
  return null;
}

function alterFacts(statement: Node): StatementFact[] {
  const table = tableOf(arr(statement.table)[0]);
  return arr(statement.expr).flatMap((item): StatementFact[] => {
    const expr = obj(item) ?? {};
    const action = str(expr.action);
    const resource = str(expr.resource);
    const keyword = (str(expr.keyword) ?? '').toLowerCase();
    if (resource === 'column') {
      const column = columnName(expr.column);
      const notNull = str(obj(expr.nullable)?.type) === 'not null';
      if (action === 'add') {
        const generated = obj(expr.generated);
        return [
          {
            action: 'add_column',
            table,
            column,
            not_null: notNull,
            has_default: expr.default_val != null,
            volatile_default: false,
            computed: expr.auto_increment != null || str(generated?.storage_type) === 'stored',
          },
        ];
      }
      if (action === 'drop') return [{ action: 'drop_column', table, column, backed_up: false }];
      if (action === 'modify' || action === 'change') {
        // CHANGE renames too: the definition is told under the old name (the target's column), then
        // the rename, so that undoing runs the other way round (name back, then definition back).
        const old = action === 'change' ? columnName(expr.old_column) : column;
        const type = definitionType(expr.definition);
        const facts: StatementFact[] = [
          { action: 'modify_column', table, column: old, type, not_null: notNull },
        ];
        if (old !== column) facts.push({ action: 'rename_column', table, column: old, to: column });
        return facts;
      }
      if (action === 'rename')
        return [{ action: 'rename_column', table, column: columnName(expr.old_column), to: column }];
    }
    if (action === 'rename' && resource === 'table')
      return [{ action: 'rename_table', table, to: str(expr.table) ?? '' }];
    if (action === 'add' && resource === 'index')
      return [
        { action: 'create_index', table, name: str(expr.index) ?? null, unique: false, concurrently: false },
      ];
    if (action === 'add' && resource === 'constraint') {
      const definition = obj(expr.create_definitions) ?? {};
      const type = str(definition.constraint_type) ?? '';
      const kind = constraintKind(type);
      const columns = arr(definition.definition)
        .map(columnName)
        .filter((name) => name !== '');
      if (kind === 'unique' && type.toLowerCase() !== 'unique')
        return [
          {
            action: 'create_index',
            table,
            name: str(definition.index) ?? null,
            unique: true,
            concurrently: false,
          },
        ];
      if (kind !== null)
        return [
          {
            action: 'add_constraint',
            table,
            constraint: kind,
            name: str(definition.constraint) ?? str(definition.index) ?? null,
            columns,
            not_valid: false,
          },
        ];
    }
    if (action === 'drop' && resource === 'index')
      return [{ action: 'drop_index', table, name: str(expr.index) ?? '', concurrently: false }];
    if (action === 'drop' && resource === 'key') {
      if (keyword === 'primary key')
        return [{ action: 'drop_constraint', table, constraint: 'primary_key', name: 'PRIMARY' }];
      if (keyword === 'foreign key')
        return [{ action: 'drop_constraint', table, constraint: 'foreign_key', name: str(expr.key) ?? null }];
      return [{ action: 'drop_index', table, name: str(expr.key) ?? '', concurrently: false }];
    }
    if (action === 'drop' && resource === 'constraint')
      // DROP CHECK names a check; DROP CONSTRAINT any kind, looked up by name in the target.
      return [
        {
          action: 'drop_constraint',
          table,
          constraint: keyword === 'check' ? 'check' : null,
          name: str(expr.constraint) ?? null,
        },
      ];
    if (resource === 'comment') return [{ action: 'schema_object', object: 'comment' }];
    return [{ action: 'other', statement: `alter ${action ?? ''} ${resource ?? ''}`.trim() }];
  });
}

export function mysqlFacts(node: Node): StatementFact[] {
  const type = str(node.type);
  const keyword = (str(node.keyword) ?? '').toLowerCase();
  switch (type) {
    case 'create':
      if (keyword === 'table')
        return arr(node.table).map((t) => ({ action: 'create_table', table: tableOf(t) }));
      if (keyword === 'index')
        return [
          {
            action: 'create_index',
            table: tableOf(node.table),
            name: str(node.index) ?? null,
            unique: str(node.index_type) === 'unique',
            concurrently: false,
          },
        ];
      return [{ action: 'schema_object', object: `create ${keyword}` }];
    case 'drop':
      if (keyword === 'table')
        return arr(node.name).map((t) => ({ action: 'drop_table', table: tableOf(t), backed_up: false }));
      if (keyword === 'index')
        return [
          {
            action: 'drop_index',
            table: tableOf(node.table),
            name: columnName(node.name),
            concurrently: false,
          },
        ];
      return [{ action: 'schema_object', object: `drop ${keyword}` }];
    case 'rename':
      return arr(node.table).map((pair) => {
        const [from, to] = arr(pair);
        return { action: 'rename_table', table: tableOf(from), to: tableOf(to).name };
      });
    case 'alter':
      return alterFacts(node);
    case 'insert':
    case 'update':
    case 'delete':
    case 'replace':
      return [{ action: 'data_change', table: tableOf(arr(node.table)[0]) }];
    case 'set': {
      const variables = arr(node.expr).map((item) => str(obj(obj(item)?.left)?.name)?.toLowerCase());
      return variables.some((name) => name === 'lock_wait_timeout' || name === 'innodb_lock_wait_timeout')
        ? [{ action: 'set_lock_timeout' }]
        : [{ action: 'other', statement: 'set' }];
    }
    case 'transaction':
      return [{ action: 'transaction_control' }];
    default:
      return [{ action: 'other', statement: type ?? 'unknown' }];
  }
}

/** DDL commits by itself on MySQL/MariaDB; only data changes belong to a transaction. */
export function mysqlTransactional(node: Node): boolean {
  return ['insert', 'update', 'delete', 'replace', 'select'].includes(str(node.type) ?? '');
}
