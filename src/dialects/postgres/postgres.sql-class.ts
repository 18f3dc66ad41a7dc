// The class of a PostgreSQL statement for the schema-only rule of migrations (docs/contract.md §8), read from
// the node libpg-query parsed it into: an allow-list of definition statements, the `SET LOCAL`s
// that bound locks, and a named class for everything else. A definition that carries a data
// change inside it (a data-modifying WITH in CREATE TABLE … AS, GRANT inside CREATE SCHEMA) takes
// the class of what it carries.
import {
  ALLOWED_SETTING,
  DEFINITION,
  ROUTINE_DEFINITION,
  type StatementClass,
} from '../../engine/migration/statement-class.ts';

type Node = Record<string, unknown>;

/** Statements that define the schema's objects (docs/contract.md §6 kinds, their comments and indexes). */
const DEFINITIONS = new Set([
  'CreateStmt',
  'AlterTableStmt',
  'DropStmt',
  'IndexStmt',
  'ViewStmt',
  'CreateTableAsStmt',
  'CreateFunctionStmt',
  'AlterFunctionStmt',
  'CommentStmt',
  'CreateSeqStmt',
  'AlterSeqStmt',
  'CreateEnumStmt',
  'AlterEnumStmt',
  'CompositeTypeStmt',
  'CreateDomainStmt',
  'AlterDomainStmt',
  'CreateRangeStmt',
  'DefineStmt',
  'AlterTypeStmt',
  'AlterCollationStmt',
  'CreateExtensionStmt',
  'AlterExtensionStmt',
  'CreateSchemaStmt',
  'RenameStmt',
  'AlterObjectSchemaStmt',
  'CreateTrigStmt',
  'CreatePolicyStmt',
  'AlterPolicyStmt',
  'CreateStatsStmt',
  'AlterStatsStmt',
]);

/** Objects that are not the schema's own even when created or dropped like one (docs/contract.md §8). */
const OUTSIDE_OBJECTS: Record<string, string> = {
  OBJECT_FOREIGN_TABLE: 'FOREIGN TABLE',
  OBJECT_FOREIGN_SERVER: 'SERVER',
  OBJECT_FDW: 'SERVER',
  OBJECT_USER_MAPPING: 'SERVER',
  OBJECT_RULE: 'RULE',
  OBJECT_EVENT_TRIGGER: 'EVENT',
  OBJECT_ROLE: 'role statement',
  OBJECT_DATABASE: 'database',
  OBJECT_TABLESPACE: 'tablespace',
  OBJECT_PUBLICATION: 'publication',
  OBJECT_SUBSCRIPTION: 'subscription',
  OBJECT_LANGUAGE: 'language',
  OBJECT_ACCESS_METHOD: 'access method',
};

const REFUSED: Record<string, string> = {
  InsertStmt: 'data change (INSERT)',
  UpdateStmt: 'data change (UPDATE)',
  DeleteStmt: 'data change (DELETE)',
  MergeStmt: 'data change (MERGE)',
  TruncateStmt: 'data change (TRUNCATE)',
  CopyStmt: 'COPY',
  DoStmt: 'DO block',
  CallStmt: 'routine call (CALL …)',
  GrantRoleStmt: 'role statement (GRANT role)',
  CreateRoleStmt: 'role statement (CREATE ROLE)',
  AlterRoleStmt: 'role statement (ALTER ROLE)',
  AlterRoleSetStmt: 'role statement (ALTER ROLE … SET)',
  DropRoleStmt: 'role statement (DROP ROLE)',
  ReassignOwnedStmt: 'role statement (REASSIGN OWNED)',
  DropOwnedStmt: 'role statement (DROP OWNED)',
  AlterOwnerStmt: 'role statement (OWNER TO)',
  AlterDefaultPrivilegesStmt: 'privileges (ALTER DEFAULT PRIVILEGES)',
  AlterSystemStmt: 'ALTER SYSTEM',
  LoadStmt: 'LOAD',
  RuleStmt: 'RULE',
  CreateEventTrigStmt: 'EVENT',
  AlterEventTrigStmt: 'EVENT',
  CreateForeignServerStmt: 'SERVER',
  AlterForeignServerStmt: 'SERVER',
  CreateFdwStmt: 'SERVER',
  AlterFdwStmt: 'SERVER',
  CreateUserMappingStmt: 'SERVER',
  AlterUserMappingStmt: 'SERVER',
  DropUserMappingStmt: 'SERVER',
  CreateForeignTableStmt: 'FOREIGN TABLE',
  ImportForeignSchemaStmt: 'FOREIGN TABLE',
  TransactionStmt: 'transaction control',
  VariableShowStmt: 'query (SHOW)',
};

/** The settings a migration may bound its locks with, as `SET LOCAL` (docs/contract.md §8). */
const LOCAL_SETTINGS = new Set(['lock_timeout', 'statement_timeout', 'check_function_bodies']);

const DATA_CHANGES: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
};

/** The first data change or privilege statement anywhere inside a node, as its class. */
function carried(node: unknown): string | null {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = carried(item);
      if (found) return found;
    }
    return null;
  }
  if (node === null || typeof node !== 'object') return null;
  for (const [key, value] of Object.entries(node)) {
    if (key in DATA_CHANGES) return `data change (${DATA_CHANGES[key]})`;
    if (key === 'GrantStmt') return 'privileges (GRANT)';
    if (key === 'GrantRoleStmt') return 'role statement (GRANT role)';
    if (key === 'intoClause') return 'data change (SELECT … INTO)';
    const found = carried(value);
    if (found) return found;
  }
  return null;
}

function hasCall(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasCall);
  if (node === null || typeof node !== 'object') return false;
  return Object.entries(node).some(([key, value]) => key === 'FuncCall' || hasCall(value));
}

function refused(name: string): StatementClass {
  return { schema_only: false, name };
}

/** The words a statement starts with, for a class this file does not name itself. */
function leadingWords(sql: string): string {
  const words = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '').match(/^[A-Za-z]+(\s+[A-Za-z]+)?/);
  return words ? words[0].replace(/\s+/g, ' ').toUpperCase() : 'statement';
}

function objectTypes(body: Node): string[] {
  return ['objtype', 'removeType', 'renameType', 'objectType', 'relationType']
    .map((key) => body[key])
    .filter((value): value is string => typeof value === 'string');
}

/** The class of one parsed statement (`{ CreateStmt: … }`); `sql` is its text. */
export function postgresStatementClass(node: Node, sql: string): StatementClass {
  const [type, body] = Object.entries(node)[0] ?? ['', {}];
  const fields = (body ?? {}) as Node;
  if (type === 'VariableSetStmt') {
    const name = typeof fields.name === 'string' ? fields.name : '';
    if (name === 'role') return refused('role statement (SET ROLE)');
    if (name === 'session_authorization') return refused('role statement (SET SESSION AUTHORIZATION)');
    if (fields.kind === 'VAR_SET_VALUE' && fields.is_local === true && LOCAL_SETTINGS.has(name))
      return ALLOWED_SETTING;
    const verb = String(fields.kind).startsWith('VAR_RESET') ? 'RESET' : 'SET';
    return refused(name === '' ? `setting (${leadingWords(sql)})` : `setting (${verb} ${name})`);
  }
  if (type === 'SelectStmt') {
    if (fields.intoClause) return refused('data change (SELECT … INTO)');
    const inner = carried(fields);
    if (inner) return refused(inner);
    return refused(hasCall(fields) ? 'routine call (SELECT …)' : 'query (SELECT)');
  }
  if (type === 'GrantStmt')
    return refused(fields.is_grant === false ? 'privileges (REVOKE)' : 'privileges (GRANT)');
  if (type in REFUSED) return refused(REFUSED[type]!);
  if (!DEFINITIONS.has(type)) return refused(leadingWords(sql));
  const outside = objectTypes(fields).find((kind) => kind in OUTSIDE_OBJECTS);
  if (outside) return refused(OUTSIDE_OBJECTS[outside]!);
  if (type === 'AlterTableStmt') {
    const commands = (fields.cmds ?? []) as { AlterTableCmd?: { subtype?: string } }[];
    if (commands.some((command) => command.AlterTableCmd?.subtype === 'AT_ChangeOwner'))
      return refused('role statement (OWNER TO)');
  }
  // A routine's body is its definition (docs/contract.md §8): what it would do when called is not run now.
  if (type === 'CreateFunctionStmt') return ROUTINE_DEFINITION;
  const inner = carried(fields);
  return inner ? refused(inner) : DEFINITION;
}
