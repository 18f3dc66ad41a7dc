// PostgreSQL DDL for enums: created, a value added (outside the transaction: a value added in one
// cannot be used before it commits), recreated when values are removed or reordered (the old type
// renamed away, the new one created, every column moved over through text), dropped.
import type { EnumUse, MigrationOperation } from '../../engine/migration/operations.ts';
import type { EnumModel } from '../../engine/schema/model.ts';
import { id, lit, named, table } from './postgres.ddl-names.ts';
import { commentOn } from './postgres.ddl-objects.ts';

const typeComment = (e: EnumModel) =>
  e.comment ? [commentOn({ type: 'type', schema: e.schema, name: e.name, table: null }, e.comment)] : [];

function recreateEnum(op: Extract<MigrationOperation, { kind: 'recreate_enum' }>): string[] {
  const { schema, name } = op.enum;
  const old = `${name}__dbops_old`.slice(0, 63);
  const out = [
    `ALTER TYPE ${named(schema, name)} RENAME TO ${id(old)}`,
    `CREATE TYPE ${named(schema, name)} AS ENUM (${op.values.map(lit).join(', ')})`,
  ];
  const prefix = (use: EnumUse) => `ALTER TABLE ${table(use.table)} ALTER COLUMN ${id(use.column.name)}`;
  // Defaults still name the old type: every one goes first (a partition's own too, or retyping its
  // parent fails on it) and comes back re-read under the new type.
  for (const use of op.uses) if (use.column.default !== null) out.push(`${prefix(use)} DROP DEFAULT`);
  // An inherited column (a partition's, a child's) is retyped by its parent's ALTER, never alone.
  for (const use of op.uses.filter((u) => u.column.inherited !== true)) {
    const via = use.column.type.endsWith('[]') ? '::text[]' : '::text';
    out.push(`${prefix(use)} TYPE ${use.column.type} USING ${id(use.column.name)}${via}::${use.column.type}`);
  }
  for (const use of op.uses) {
    const restored = use.default_after === undefined ? use.column.default : use.default_after;
    if (restored !== null) out.push(`${prefix(use)} SET DEFAULT ${restored}`);
  }
  out.push(`DROP TYPE ${named(schema, old)}`);
  out.push(...typeComment(op.enum));
  return out;
}

/** The statements of an enum operation and whether they may run in a transaction; null for others. */
export function renderEnumOperation(
  op: MigrationOperation,
): { sql: string[]; transactional: boolean } | null {
  switch (op.kind) {
    case 'create_enum':
      return {
        sql: [
          `CREATE TYPE ${named(op.enum.schema, op.enum.name)} AS ENUM (${op.enum.values.map(lit).join(', ')})`,
          ...typeComment(op.enum),
        ],
        transactional: true,
      };
    case 'add_enum_value': {
      const position =
        op.after !== null ? ` AFTER ${lit(op.after)}` : op.before !== null ? ` BEFORE ${lit(op.before)}` : '';
      return {
        sql: [`ALTER TYPE ${named(op.enum.schema, op.enum.name)} ADD VALUE ${lit(op.value)}${position}`],
        transactional: false,
      };
    }
    case 'recreate_enum':
      return { sql: recreateEnum(op), transactional: true };
    case 'drop_enum':
      return { sql: [`DROP TYPE ${named(op.enum.schema, op.enum.name)}`], transactional: true };
    default:
      return null;
  }
}
