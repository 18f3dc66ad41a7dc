// withKeysValid (bridge-load.ts): the schema a bridge run read while it validated its keys, with
// those keys valid, is the schema a later read gives (same hash), and nothing else changes in it.
import { describe, expect, it } from 'vitest';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { ForeignKeyModel, SchemaModel, TableModel } from '../../engine/schema/model.ts';
import { withKeysValid } from './bridge-load.ts';

const key = (name: string, notValid: boolean): ForeignKeyModel => ({
  name,
  columns: ['parent_id'],
  referenced_schema: 'public',
  referenced_table: 'parent',
  referenced_columns: ['id'],
  on_update: 'no action',
  on_delete: 'no action',
  deferrable: false,
  initially_deferred: false,
  ...(notValid ? { not_valid: true } : {}),
});

const table = (name: string, keys: ForeignKeyModel[]): TableModel => ({
  schema: 'public',
  name,
  comment: null,
  columns: [],
  primary_key: null,
  unique_constraints: [],
  check_constraints: [],
  exclusion_constraints: [],
  foreign_keys: keys,
  indexes: [],
});

const model = (child: TableModel, other: TableModel): SchemaModel =>
  ({
    dialect: 'postgresql',
    flavor: 'postgresql',
    tables: [child, other],
    enums: [],
    sequences: [],
  }) as unknown as SchemaModel;

describe('withKeysValid', () => {
  it('makes the validated keys valid, as a read after the validation shows them, and only them', () => {
    // Read mid-validation: the run's key still NOT VALID; a user's own NOT VALID key elsewhere.
    const during = model(
      table('child', [key('child_parent_fk', true)]),
      table('other', [key('other_parent_fk', true)]),
    );
    const afterwards = model(
      table('child', [key('child_parent_fk', false)]),
      table('other', [key('other_parent_fk', true)]),
    );
    const patched = withKeysValid(during, [{ table: during.tables[0]!, name: 'child_parent_fk' }]);
    expect(patched).toEqual(afterwards);
    expect(schemaHash(patched)).toBe(schemaHash(afterwards));
    expect(schemaHash(during)).not.toBe(schemaHash(afterwards));
  });
});
