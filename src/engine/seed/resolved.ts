// A column's generator once checked and resolved against the schema: the explicit kinds of the
// definition with their options normalised (dates as epoch milliseconds, choice values as the
// text the row pipeline writes), plus what inference and the planner add. Pure types.
import type { ForeignKeyModel } from '../schema/model.ts';
import type { ReferenceDistribution } from './definition.ts';

/** Realistic values picked from dictionaries by a hash of (seed, table, column, row). */
export const FAKE_VALUES = [
  'first_name',
  'last_name',
  'full_name',
  'email',
  'phone',
  'city',
  'state',
  'country',
  'company',
  'url',
  'street_address',
  'postal_code',
  'username',
  'title',
  'sentence',
  'code',
  'word',
  'uuid',
  'json',
  'boolean',
] as const;
export type FakeValue = (typeof FAKE_VALUES)[number];

export type Resolved =
  /** Left to the database: not in the rows written (defaults, generated, identity not referenced). */
  | { kind: 'default' }
  /** An integer key written by the service above the table's current maximum. */
  | { kind: 'key' }
  /** A foreign key's columns, from the parent's rows; `fk` names the key, the first column carries it. */
  | { kind: 'reference'; fk: ForeignKeyModel; distribution: ReferenceDistribution }
  | { kind: 'null' }
  | { kind: 'sequence'; start: number; step: number }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'float'; min: number; max: number; precision: number | null }
  | { kind: 'timestamp'; from: number; to: number }
  | { kind: 'date'; from: number; to: number }
  | { kind: 'time' }
  | { kind: 'choice'; values: string[]; weights: number[] | null }
  | { kind: 'constant'; value: string | null }
  | { kind: 'template'; template: string; columns: string[] }
  | { kind: 'faker'; method: string; args: unknown[] }
  | { kind: 'fake'; fake: FakeValue };

export interface ResolvedColumn {
  name: string;
  generator: Resolved;
  nullRatio: number;
  /** Values must be distinct (asked for, or a single-column unique key). */
  unique: boolean;
  /** How the value was chosen, for the preview and the README's rule table: `given` or the rule. */
  origin: string;
}
