// How the PostgreSQL DDL writes a name or a literal: always through pg's own quoting, whatever the
// name holds. Every DDL file of this dialect writes names through these, and only these.
import pg from 'pg';
import type { TableRef } from '../../engine/migration/operations.ts';

export const id = (name: string) => pg.escapeIdentifier(name);
// pg writes E'…' with a leading space when the value holds a backslash.
export const lit = (value: string) => pg.escapeLiteral(value).trim();
export const table = (t: TableRef) => (t.schema === null ? id(t.name) : `${id(t.schema)}.${id(t.name)}`);
export const named = (schema: string, name: string) => `${id(schema)}.${id(name)}`;
export const list = (names: string[]) => names.map(id).join(', ');

/** A type from another schema than pg_catalog (enums, domains, extensions' types): format_type qualifies it. */
export const isUserType = (type: string) => /^(?:"(?:[^"]|"")*"|[^".[\]]+)\./.test(type);
