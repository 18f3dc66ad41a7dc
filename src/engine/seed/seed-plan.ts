// What the seed planner (plan.ts) answers: the tables to fill in load order, each with its columns'
// generators, the references it draws (and those written empty then filled, breaking a cycle), and
// the unique keys to keep. Kept apart from the planner so that its parts and the loader read the
// shape without importing the planner itself.
import type { ForeignKeyModel, TableModel } from '../schema/model.ts';
import type { SeedColumn } from './column-kind.ts';
import type { PredicateTerm } from './limits.ts';
import type { ResolvedColumn } from './resolved.ts';

export interface UniqueKey {
  name: string;
  columns: string[];
  /** The rows a partial index covers; null: every row. */
  predicate: PredicateTerm[] | null;
}

export interface PlannedReference {
  fk: ForeignKeyModel;
  /** The parent's tableKey. */
  parent: string;
  distribution: 'uniform' | 'zipf';
  /** Written empty, filled by an UPDATE once every row exists (a self-reference or a broken cycle). */
  deferred: boolean;
  /** The parent is the table itself: a row points at an earlier row (a tree), the first at none. */
  self: boolean;
}

export interface PlannedTable {
  key: string;
  table: TableModel;
  rows: number;
  /** The columns written, in the table's order, each with its generator. */
  columns: ResolvedColumn[];
  seedColumns: Map<string, SeedColumn>;
  references: PlannedReference[];
  uniqueKeys: UniqueKey[];
  /** The primary key (what a cycle-closing UPDATE joins on). */
  primaryKey: string[];
}

export interface SeedPlan {
  locale: string;
  /** In load order: parents first. */
  tables: PlannedTable[];
  /** Parents outside the scenario whose existing rows the references draw from. */
  outsideParents: string[];
}

/** Whether a table holds rows (the planner is pure: the caller asks the database). */
export type Populated = (key: string) => boolean;
