import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { canonicalJson, schemaHash } from './hash.ts';
import type { SchemaModel } from './model.ts';

function model(): SchemaModel {
  return makeSchema([
    makeTable('b', {
      columns: [
        makeColumn('id', { ordinal_position: 1 }),
        makeColumn('name', { type: 'text', ordinal_position: 2 }),
      ],
      indexes: [makeIndex('b_name', ['name']), makeIndex('a_id', ['id'])],
    }),
    makeTable('a', { schema: 'other' }),
  ]);
}

describe('schemaHash', () => {
  it('is the SHA-256 hex of the canonical JSON, the same every time', () => {
    expect(schemaHash(model())).toMatch(/^[0-9a-f]{64}$/);
    expect(schemaHash(model())).toBe(schemaHash(model()));
  });

  it('does not depend on the order of tables, columns, indexes or object keys', () => {
    const shuffled = model();
    shuffled.tables.reverse();
    const table = shuffled.tables[1]!;
    table.columns = [
      { ...table.columns[1]!, ordinal_position: 1 },
      { ...table.columns[0]!, ordinal_position: 2 },
    ];
    table.indexes.reverse();
    // Same fields, other insertion order.
    const [first] = table.indexes;
    table.indexes[0] = {
      predicate: first!.predicate,
      method: first!.method,
      unique: first!.unique,
      include: first!.include,
      columns: first!.columns,
      name: first!.name,
    };
    expect(canonicalJson(shuffled)).toBe(canonicalJson(model()));
    expect(schemaHash(shuffled)).toBe(schemaHash(model()));
  });

  it('ignores what is recorded but not compared: raw defaults, server version, unmanaged objects', () => {
    const other = model();
    other.server_version = '16.1';
    other.tables[0]!.columns[1]!.default = 'NULL::text';
    other.unmanaged.push({ kind: 'view', schema: 'public', name: 'v', table: null });
    expect(schemaHash(other)).toBe(schemaHash(model()));
  });

  it('changes with anything the diff compares', () => {
    const typeChanged = model();
    typeChanged.tables[0]!.columns[0]!.type = 'bigint';
    const defaultChanged = model();
    defaultChanged.tables[0]!.columns[1]!.default_normalized = "'x'";
    const indexChanged = model();
    indexChanged.tables[0]!.indexes[0]!.unique = true;
    const hashes = new Set([model(), typeChanged, defaultChanged, indexChanged].map(schemaHash));
    expect(hashes.size).toBe(4);
  });
});
