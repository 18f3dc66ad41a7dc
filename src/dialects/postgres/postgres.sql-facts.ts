// libpg-query parse trees → the neutral statement facts lint and the rollback derivation use. Only
// the statements and ALTER TABLE subcommands a migration holds are told apart; anything else is an
// `other` fact naming the statement's node type, which no rule treats as safe or unsafe.
import type { ConstraintKind, StatementFact } from '../../engine/migration/facts.ts';
import type { TableRef } from '../../engine/migration/operations.ts';

type Node = Record<string, unknown>;

const obj = (value: unknown): Node | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** `{ String: { sval } }` nodes → their strings. */
const names = (value: unknown): string[] => arr(value).map((item) => str(obj(obj(item)?.String)?.sval) ?? '');

function rangeVar(value: unknown): TableRef {
  const node = obj(value) ?? {};
  return { schema: str(node.schemaname) ?? null, name: str(node.relname) ?? '' };
}

/** A qualified name list (`[schema, name]` or `[name]`) as a table. */
function qualifiedName(list: string[]): TableRef {
  return list.length > 1
    ? { schema: list[list.length - 2]!, name: list[list.length - 1]! }
    : { schema: null, name: list[0] ?? '' };
}

// pg_catalog's internal type names, as format_type() prints them (how the model holds types).
const CATALOG_TYPES: Record<string, string> = {
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  float4: 'real',
  float8: 'double precision',
  bool: 'boolean',
  varchar: 'character varying',
  bpchar: 'character',
  varbit: 'bit varying',
  timestamp: 'timestamp without time zone',
  timestamptz: 'timestamp with time zone',
  time: 'time without time zone',
  timetz: 'time with time zone',
};

/** A TypeName node as format_type() would print it, as far as the parse tree tells. */
export function typeName(value: unknown): string {
  const node = obj(value) ?? {};
  const parts = names(node.names);
  const modifiers = arr(node.typmods)
    .map((item) => obj(obj(obj(item)?.A_Const)?.ival)?.ival)
    .filter((n): n is number => typeof n === 'number');
  const suffix = modifiers.length > 0 ? `(${modifiers.join(',')})` : '';
  const arrays = '[]'.repeat(arr(node.arrayBounds).length);
  if (parts[0] === 'pg_catalog' && parts.length === 2) {
    const name = CATALOG_TYPES[parts[1]!] ?? parts[1]!;
    // Time types print their precision before "with/without time zone".
    const zone = / (with|without) time zone$/.exec(name);
    if (zone && suffix) return `${name.slice(0, zone.index)}${suffix}${zone[0]}${arrays}`;
    return `${name}${suffix}${arrays}`;
  }
  return `${parts.join('.')}${suffix}${arrays}`;
}

const VOLATILE = new Set([
  'nextval',
  'random',
  'gen_random_uuid',
  'uuid_generate_v1',
  'uuid_generate_v4',
  'clock_timestamp',
  'timeofday',
  'txid_current',
]);

/** Whether an expression calls a function whose value differs per row. */
function callsVolatile(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(callsVolatile);
  const node = obj(value);
  if (!node) return false;
  const call = obj(node.FuncCall);
  if (call) {
    const name = names(call.funcname).pop();
    if (name !== undefined && VOLATILE.has(name)) return true;
  }
  return Object.values(node).some(callsVolatile);
}

const CONSTRAINTS: Record<string, ConstraintKind> = {
  CONSTR_PRIMARY: 'primary_key',
  CONSTR_UNIQUE: 'unique',
  CONSTR_CHECK: 'check',
  CONSTR_FOREIGN: 'foreign_key',
  CONSTR_EXCLUSION: 'exclusion',
};

function columnFact(table: TableRef, value: unknown): StatementFact {
  const column = obj(value) ?? {};
  const constraints = arr(column.constraints).map((item) => obj(obj(item)?.Constraint) ?? {});
  const has = (type: string) => constraints.some((c) => c.contype === type);
  const serial = /^(small|big)?serial$|^serial[248]$/.test(typeName(column.typeName));
  const defaults = constraints.filter((c) => c.contype === 'CONSTR_DEFAULT');
  return {
    action: 'add_column',
    table,
    column: str(column.colname) ?? '',
    not_null: has('CONSTR_NOTNULL') || has('CONSTR_PRIMARY'),
    has_default: defaults.length > 0 || serial,
    volatile_default: serial || defaults.some((c) => callsVolatile(c.raw_expr)),
    computed:
      serial ||
      has('CONSTR_IDENTITY') ||
      constraints.some((c) => c.contype === 'CONSTR_GENERATED' && c.generated_kind === 's'),
  };
}

function alterTableFacts(statement: Node): StatementFact[] {
  const table = rangeVar(statement.relation);
  if (statement.objtype !== 'OBJECT_TABLE') return [{ action: 'other', statement: 'AlterTableStmt' }];
  return arr(statement.cmds).map((item): StatementFact => {
    const cmd = obj(obj(item)?.AlterTableCmd) ?? {};
    const column = str(cmd.name) ?? '';
    switch (cmd.subtype) {
      case 'AT_AddColumn':
        return columnFact(table, obj(cmd.def)?.ColumnDef);
      case 'AT_DropColumn':
        return { action: 'drop_column', table, column, backed_up: false };
      case 'AT_AlterColumnType': {
        const def = obj(obj(cmd.def)?.ColumnDef);
        return {
          action: 'alter_column_type',
          table,
          column,
          from: null,
          to: typeName(def?.typeName),
          ...(isCustomUsing(def?.raw_default, column) ? { custom_using: true } : {}),
        };
      }
      case 'AT_SetNotNull':
        return { action: 'set_not_null', table, column };
      case 'AT_DropNotNull':
        return { action: 'drop_not_null', table, column };
      case 'AT_ColumnDefault':
        return cmd.def === undefined
          ? { action: 'drop_default', table, column }
          : { action: 'set_default', table, column, volatile: callsVolatile(cmd.def) };
      case 'AT_AddConstraint': {
        const constraint = obj(obj(cmd.def)?.Constraint) ?? {};
        const kind = CONSTRAINTS[str(constraint.contype) ?? ''];
        if (!kind) return { action: 'other', statement: 'AlterTableStmt' };
        return {
          action: 'add_constraint',
          table,
          constraint: kind,
          name: str(constraint.conname) ?? null,
          columns: names(kind === 'foreign_key' ? constraint.fk_attrs : constraint.keys),
          // USING INDEX reuses an index built beforehand (CONCURRENTLY): nothing to build or scan.
          not_valid: constraint.skip_validation === true || constraint.indexname !== undefined,
        };
      }
      case 'AT_DropConstraint':
        return { action: 'drop_constraint', table, constraint: null, name: str(cmd.name) ?? null };
      case 'AT_ValidateConstraint':
        return { action: 'validate_constraint', table, name: column };
      case 'AT_AddIdentity':
      case 'AT_DropIdentity':
      case 'AT_SetIdentity':
      case 'AT_DropExpression':
      case 'AT_SetExpression':
        return {
          action: 'alter_column_other',
          table,
          column,
          what: String(cmd.subtype).slice(3).toLowerCase(),
        };
      default:
        return { action: 'other', statement: `AlterTableStmt ${String(cmd.subtype)}` };
    }
  });
}

/** The facts of one parsed statement (`{ NodeType: {...} }`). */
export function postgresFacts(node: Node): StatementFact[] {
  const [type, value] = Object.entries(node)[0] ?? ['', {}];
  const statement = obj(value) ?? {};
  switch (type) {
    case 'CreateStmt':
      return [{ action: 'create_table', table: rangeVar(statement.relation) }];
    case 'CreateTableAsStmt':
      return [{ action: 'create_table', table: rangeVar(obj(statement.into)?.rel) }];
    case 'AlterTableStmt':
      return alterTableFacts(statement);
    case 'IndexStmt':
      return [
        {
          action: 'create_index',
          table: rangeVar(statement.relation),
          name: str(statement.idxname) ?? null,
          unique: statement.unique === true,
          concurrently: statement.concurrent === true,
        },
      ];
    case 'DropStmt':
      return arr(statement.objects).map((item): StatementFact => {
        const list = names(obj(obj(item)?.List)?.items);
        const target = qualifiedName(list);
        switch (statement.removeType) {
          case 'OBJECT_TABLE':
            return { action: 'drop_table', table: target, backed_up: false };
          case 'OBJECT_INDEX':
            return {
              action: 'drop_index',
              table: null,
              name: target.name,
              concurrently: statement.concurrent === true,
            };
          default:
            return { action: 'schema_object', object: `${String(statement.removeType)} ${list.join('.')}` };
        }
      });
    case 'RenameStmt': {
      const table = rangeVar(statement.relation);
      const to = str(statement.newname) ?? '';
      switch (statement.renameType) {
        case 'OBJECT_TABLE':
          return [{ action: 'rename_table', table, to }];
        case 'OBJECT_COLUMN':
          return [{ action: 'rename_column', table, column: str(statement.subname) ?? '', to }];
        case 'OBJECT_INDEX':
          return [{ action: 'rename_index', table: null, name: table.name, to }];
        case 'OBJECT_TABCONSTRAINT':
          return [{ action: 'rename_constraint', table, name: str(statement.subname) ?? '', to }];
        default:
          return [{ action: 'schema_object', object: String(statement.renameType) }];
      }
    }
    case 'VariableSetStmt':
      return str(statement.name) === 'lock_timeout'
        ? [{ action: 'set_lock_timeout' }]
        : [{ action: 'other', statement: type }];
    case 'TransactionStmt':
      return [{ action: 'transaction_control' }];
    case 'InsertStmt':
    case 'UpdateStmt':
    case 'DeleteStmt':
      return [{ action: 'data_change', table: rangeVar(statement.relation) }];
    case 'CreateEnumStmt':
    case 'AlterEnumStmt':
    case 'CreateSeqStmt':
    case 'AlterSeqStmt':
    case 'CreateExtensionStmt':
    case 'CreateSchemaStmt':
    case 'CommentStmt':
      return [{ action: 'schema_object', object: type }];
    default:
      return [{ action: 'other', statement: type }];
  }
}

/** Statements PostgreSQL refuses inside a transaction block (and ADD VALUE, whose value a later statement may need committed). */
export function postgresTransactional(node: Node): boolean {
  const [type, value] = Object.entries(node)[0] ?? ['', {}];
  const statement = obj(value) ?? {};
  switch (type) {
    case 'IndexStmt':
    case 'DropStmt':
      return statement.concurrent !== true;
    case 'ReindexStmt':
      return !arr(statement.params).some((p) => obj(obj(p)?.DefElem)?.defname === 'concurrently');
    case 'AlterEnumStmt':
      // ADD VALUE (RENAME VALUE names an old value too).
      return !(statement.newVal !== undefined && statement.oldVal === undefined);
    case 'VacuumStmt':
    case 'CreatedbStmt':
    case 'DropdbStmt':
    case 'AlterSystemStmt':
    case 'CreateTableSpaceStmt':
    case 'DropTableSpaceStmt':
    case 'TransactionStmt':
      return false;
    default:
      return true;
  }
}

/**
 * Whether ALTER COLUMN TYPE's USING expression is more than casts of the column itself (a
 * conversion a person wrote, such as to_timestamp(c)): lint then trusts it.
 */
function isCustomUsing(expression: unknown, column: string): boolean {
  let node = obj(expression);
  if (node === undefined) return false;
  while (obj(node.TypeCast) !== undefined) node = obj(obj(node.TypeCast)?.arg) ?? {};
  const fields = obj(node.ColumnRef)?.fields;
  if (!Array.isArray(fields) || fields.length !== 1) return true;
  return str(obj(obj(fields[0])?.String)?.sval) !== column;
}
