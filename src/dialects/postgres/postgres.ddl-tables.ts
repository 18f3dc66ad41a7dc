// PostgreSQL DDL for a table's place and protection: partitions attached and detached,
// inheritance parents added and removed, a table rebuilt with another partitioning, row-level
// security and its policies. Bounds, policy
// expressions and commands are the server's own output (pg_get_expr); names go through pg's quoting.
import type { MigrationOperation, TableRef } from '../../engine/migration/operations.ts';
import type { TableModel, TableStorage } from '../../engine/schema/model.ts';
import { storageParameters } from './postgres.ddl-indexes.ts';
import { id, lit, table } from './postgres.ddl-names.ts';

const one = (sql: string) => [sql];

/**
 * DETACH, and then drop what the partition had only as a copy of its parent's (indexes, keys,
 * foreign keys, checks): a detached partition keeps them as its own, which would make it differ
 * from a table that never was a partition (and the model does not count them as the partition's).
 * Their names are the server's, so they are read from the catalog in the same statement.
 */
function detachPartition(parent: TableRef, child: TableRef): string {
  const target = lit(table(child));
  return `DO $dbops$
DECLARE
  copied text[];
  item text;
BEGIN
  SELECT coalesce(array_agg(name), '{}') INTO copied FROM (
    SELECT 'c:' || con.conname AS name FROM pg_constraint con
    WHERE con.conrelid = ${target}::regclass
      AND (con.conparentid <> 0 OR (con.contype = 'c' AND NOT con.conislocal))
    UNION ALL
    SELECT 'i:' || ic.relname FROM pg_index x
    JOIN pg_class ic ON ic.oid = x.indexrelid
    JOIN pg_inherits ih ON ih.inhrelid = x.indexrelid
    WHERE x.indrelid = ${target}::regclass
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c2 WHERE c2.conindid = x.indexrelid AND c2.conrelid = x.indrelid)
  ) AS copies;
  ALTER TABLE ${table(parent)} DETACH PARTITION ${table(child)};
  FOREACH item IN ARRAY copied LOOP
    IF left(item, 2) = 'c:' THEN
      EXECUTE format('ALTER TABLE %s DROP CONSTRAINT IF EXISTS %I', ${target}, substr(item, 3));
    ELSE
      EXECUTE format('DROP INDEX IF EXISTS %I.%I', ${lit(child.schema ?? 'public')}, substr(item, 3));
    END IF;
  END LOOP;
END
$dbops$`;
}
const many = (sql: string[]) => sql;

/** The statements of one of these operations, or null when the operation is another kind. */
export function renderTableExtras(op: MigrationOperation): string[] | null {
  switch (op.kind) {
    case 'set_table_storage':
      return many(tableStorage(table(op.table), op.before, op.after));
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
      return one(detachPartition(op.parent, op.table));
    case 'inherit':
      return one(`ALTER TABLE ${table(op.table)} INHERIT ${table(op.parent)}`);
    case 'no_inherit':
      return one(`ALTER TABLE ${table(op.table)} NO INHERIT ${table(op.parent)}`);
    default:
      return null;
  }
}

/**
 * A table rebuilt with another partitioning: the old one and its indexes renamed away (index names
 * are per schema, and the new table's take the same names), the new one created, the old one's own
 * rows copied (ONLY: its children keep theirs and are attached or re-parented by their own steps),
 * identities moved past the copied values, owned sequences handed over, the old one dropped.
 */
export function rebuildTable(
  op: Extract<MigrationOperation, { kind: 'rebuild_table' }>,
  createTable: (t: TableModel) => string[],
): string[] {
  const { before, after } = op;
  const schema = before.schema ?? 'public';
  const away = (name: string) => `${name.slice(0, 50)}__dbops_old`;
  const oldTable = { schema: before.schema, name: away(before.name) };
  const out = [`ALTER TABLE ${table(before)} RENAME TO ${id(oldTable.name)}`];
  const indexNames = [
    ...(before.primary_key ? [before.primary_key.name] : []),
    ...before.unique_constraints.map((u) => u.name),
    ...before.exclusion_constraints.map((x) => x.name),
    ...before.indexes.map((i) => i.name),
  ];
  for (const name of indexNames)
    out.push(`ALTER INDEX ${id(schema)}.${id(name)} RENAME TO ${id(away(name))}`);
  out.push(...createTable(after));
  const kept = new Set(before.columns.filter((c) => c.generated === null).map((c) => c.name));
  const columns = after.columns
    .filter((c) => c.generated === null && kept.has(c.name))
    .map((c) => id(c.name));
  if (columns.length > 0)
    out.push(
      `INSERT INTO ${table(after)} (${columns.join(', ')}) OVERRIDING SYSTEM VALUE SELECT ${columns.join(', ')} FROM ONLY ${table(oldTable)}`,
    );
  for (const column of after.columns)
    if (column.identity !== null)
      out.push(
        `SELECT setval(pg_get_serial_sequence(${lit(table(after))}, ${lit(column.name)}), max(${id(column.name)})) FROM ${table(after)}`,
      );
  for (const sequence of op.sequences)
    if (sequence.owned_by !== null && after.columns.some((c) => c.name === sequence.owned_by!.column))
      out.push(
        `ALTER SEQUENCE ${id(sequence.schema)}.${id(sequence.name)} OWNED BY ${table(after)}.${id(sequence.owned_by.column)}`,
      );
  out.push(`DROP TABLE ${table(oldTable)}`);
  return out;
}

const NO_STORAGE: TableStorage = { parameters: [], unlogged: false, replica_identity: 'default' };

/** The ALTERs from one table storage to another: parameters set and reset, LOGGED, REPLICA IDENTITY. */
export function tableStorage(target: string, from: TableStorage | null, to: TableStorage | null): string[] {
  const [a, b] = [from ?? NO_STORAGE, to ?? NO_STORAGE];
  const out: string[] = [];
  const names = (parameters: string[]) => new Set(parameters.map((p) => p.split('=')[0]!));
  const kept = names(b.parameters);
  const reset = [...names(a.parameters)].filter((name) => !kept.has(name));
  if (reset.length > 0) out.push(`ALTER TABLE ${target} RESET (${reset.join(', ')})`);
  // All of them, in the source's order, when any differs: SET appends, so the order ends up the same.
  const changed = b.parameters.some((p) => !a.parameters.includes(p)) || reset.length > 0;
  const set = changed ? b.parameters : [];
  if (set.length > 0) out.push(`ALTER TABLE ${target}${storageParameters(set).replace(' WITH', ' SET')}`);
  if (a.unlogged !== b.unlogged) out.push(`ALTER TABLE ${target} SET ${b.unlogged ? 'UNLOGGED' : 'LOGGED'}`);
  if (a.replica_identity !== b.replica_identity) {
    const identity = b.replica_identity.startsWith('index ')
      ? `USING INDEX ${id(b.replica_identity.slice('index '.length))}`
      : b.replica_identity.toUpperCase();
    out.push(`ALTER TABLE ${target} REPLICA IDENTITY ${identity}`);
  }
  if ((a.cluster_on ?? null) !== (b.cluster_on ?? null))
    out.push(
      b.cluster_on
        ? `ALTER TABLE ${target} CLUSTER ON ${id(b.cluster_on)}`
        : `ALTER TABLE ${target} SET WITHOUT CLUSTER`,
    );
  return out;
}
