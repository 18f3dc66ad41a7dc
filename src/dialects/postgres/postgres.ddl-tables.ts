// PostgreSQL DDL for a table's place and protection: partitions attached and detached,
// inheritance parents added and removed, row-level security and its policies. Bounds, policy
// expressions and commands are the server's own output (pg_get_expr); names go through pg's quoting.
import pg from 'pg';
import type { MigrationOperation, TableRef } from '../../engine/migration/operations.ts';

const id = (name: string) => pg.escapeIdentifier(name);
const table = (t: TableRef) => (t.schema === null ? id(t.name) : `${id(t.schema)}.${id(t.name)}`);
const one = (sql: string) => [sql];
const many = (sql: string[]) => sql;

/** The statements of one of these operations, or null when the operation is another kind. */
export function renderTableExtras(op: MigrationOperation): string[] | null {
  switch (op.kind) {
    case 'set_row_security': {
      const out: string[] = [];
      const t = table(op.table);
      if (op.before.enabled !== op.after.enabled)
        out.push(`ALTER TABLE ${t} ${op.after.enabled ? 'ENABLE' : 'DISABLE'} ROW LEVEL SECURITY`);
      if (op.before.forced !== op.after.forced)
        out.push(`ALTER TABLE ${t} ${op.after.forced ? 'FORCE' : 'NO FORCE'} ROW LEVEL SECURITY`);
      return many(out);
    }
    case 'create_policy': {
      const p = op.policy;
      const roles = p.roles.map((r) => (r === 'public' ? 'PUBLIC' : id(r))).join(', ');
      let sql = `CREATE POLICY ${id(p.name)} ON ${table(op.table)} AS ${p.permissive ? 'PERMISSIVE' : 'RESTRICTIVE'}`;
      sql += ` FOR ${p.command} TO ${roles}`;
      if (p.using !== null) sql += ` USING (${p.using})`;
      if (p.check !== null) sql += ` WITH CHECK (${p.check})`;
      return one(sql);
    }
    case 'drop_policy':
      return one(`DROP POLICY ${id(op.policy.name)} ON ${table(op.table)}`);
    case 'attach_partition':
      return one(`ALTER TABLE ${table(op.parent)} ATTACH PARTITION ${table(op.table)} ${op.bound}`);
    case 'detach_partition':
      return one(`ALTER TABLE ${table(op.parent)} DETACH PARTITION ${table(op.table)}`);
    case 'inherit':
      return one(`ALTER TABLE ${table(op.table)} INHERIT ${table(op.parent)}`);
    case 'no_inherit':
      return one(`ALTER TABLE ${table(op.table)} NO INHERIT ${table(op.parent)}`);
    default:
      return null;
  }
}
