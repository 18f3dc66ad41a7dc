// PostgreSQL DDL for domains and composite types: created whole, changed in place (ALTER DOMAIN
// for the default, NOT NULL and checks; ALTER TYPE for attributes), commented. Base types,
// defaults, checks and attribute types are the server's own output (format_type, pg_get_expr,
// pg_get_constraintdef), rendered as they are.

import type { UserTypeModel } from '../../engine/schema/objects.ts';
import { checkToWrite } from './postgres.ddl-checks.ts';
import { id, lit } from './postgres.ddl-names.ts';

const named = (t: UserTypeModel) => `${id(t.schema)}.${id(t.name)}`;
const keyword = (t: UserTypeModel) => (t.kind === 'domain' ? 'DOMAIN' : 'TYPE');

function comment(t: UserTypeModel): string {
  return `COMMENT ON ${keyword(t)} ${named(t)} IS ${t.comment === null ? 'NULL' : lit(t.comment)}`;
}

export function createUserType(t: UserTypeModel): string[] {
  let sql: string;
  if (t.kind === 'composite') {
    sql = `CREATE TYPE ${named(t)} AS (${t.attributes.map((a) => `${id(a.name)} ${a.type}`).join(', ')})`;
  } else {
    sql = `CREATE DOMAIN ${named(t)} AS ${t.base}`;
    if (t.collation !== null) sql += ` COLLATE ${t.collation}`;
    if (t.default !== null) sql += ` DEFAULT ${t.default}`;
    if (t.not_null) sql += ' NOT NULL';
    for (const check of t.checks) sql += ` CONSTRAINT ${id(check.name)} ${checkToWrite(check.definition)}`;
  }
  return t.comment === null ? [sql] : [sql, comment(t)];
}

export function dropUserType(t: UserTypeModel): string[] {
  return [`DROP ${keyword(t)} ${named(t)}`];
}

/** The statements from one version of a type to another of the same kind and base. */
export function alterUserType(before: UserTypeModel, after: UserTypeModel): string[] {
  const out: string[] = [];
  if (after.kind === 'domain') {
    const prefix = `ALTER DOMAIN ${named(after)}`;
    const kept = new Map(after.checks.map((c) => [c.name, c.definition]));
    const had = new Map(before.checks.map((c) => [c.name, c.definition]));
    for (const check of before.checks)
      if (kept.get(check.name) !== check.definition) out.push(`${prefix} DROP CONSTRAINT ${id(check.name)}`);
    if (before.default !== after.default)
      out.push(after.default === null ? `${prefix} DROP DEFAULT` : `${prefix} SET DEFAULT ${after.default}`);
    if (before.not_null !== after.not_null) out.push(`${prefix} ${after.not_null ? 'SET' : 'DROP'} NOT NULL`);
    for (const check of after.checks)
      if (had.get(check.name) !== check.definition)
        out.push(`${prefix} ADD CONSTRAINT ${id(check.name)} ${checkToWrite(check.definition)}`);
  } else {
    const prefix = `ALTER TYPE ${named(after)}`;
    const wanted = new Map(after.attributes.map((a) => [a.name, a.type]));
    const existing = new Map(before.attributes.map((a) => [a.name, a.type]));
    for (const a of before.attributes)
      if (!wanted.has(a.name)) out.push(`${prefix} DROP ATTRIBUTE ${id(a.name)}`);
    for (const a of after.attributes) {
      const type = existing.get(a.name);
      if (type === undefined) out.push(`${prefix} ADD ATTRIBUTE ${id(a.name)} ${a.type}`);
      else if (type !== a.type) out.push(`${prefix} ALTER ATTRIBUTE ${id(a.name)} TYPE ${a.type}`);
    }
  }
  if (before.comment !== after.comment) out.push(comment(after));
  return out;
}
