// The target side of a bridge run: each table loaded in one transaction of the target (so it ends
// loaded or untouched, in every mode), with the target's foreign keys among the copied tables out
// of the way during the load and checked after it, as the dialect says (RowFormat.foreignKeyLoad):
// PostgreSQL drops them all in one transaction before the first table loads, after writing in the
// run's report how to add each back (the journal: a run killed meanwhile leaves it to the
// interrupted hook, bridge-interrupted.ts, which adds them back), adds each back NOT VALID and
// validates it as soon as the two tables it links are in (while other tables still load), and
// the rest at the end, whatever happened; MySQL turns checking off for each
// load session and runs one orphan query per key at the end. With the keys out of the way up
// front, tables hold no lock on each other and load side by side, each on its own session (a lane,
// bridge-tables.ts). The checks at the end run on two sessions at once when there are several (a
// spare session of the target, opened for them): each is a scan of a child table, and they lock
// nothing the others need (PostgreSQL's VALIDATE takes SHARE UPDATE EXCLUSIVE on the child, ROW
// SHARE on the parent). Triggers stay as the user has them. Sequences are moved past the copied
// keys in the same transaction. A table truncated in its load transaction is written already
// visible to all (WriteRowsRequest.emptiedInTransaction): the validation that reads it next is
// spared the per-row visibility bookkeeping of freshly written rows. Tables the run created get
// their primary key, unique constraints and indexes built after their rows, and a replaced table
// its plain secondary indexes, in the same transaction (bridge-create.ts, keysAroundLoad): a
// failed, cancelled or killed load rolls back to the table with every index it had.
import type { RowFormat, RowSession, SqlWriter } from '../../dialects/dialect.ts';
import { qualifiedTable } from '../../dialects/rows.ts';
import { displayName, type PlannedTable } from '../../engine/bridge/copy-plan.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import type { ForeignKeyModel, SchemaModel, TableModel } from '../../engine/schema/model.ts';
import type { KeysAroundLoad } from './bridge-create.ts';

export type BridgeMode = 'replace' | 'append' | 'upsert';

interface InnerKey {
  table: TableModel;
  fk: ForeignKeyModel;
}

/** A key set aside for the load, and how to put it back: what the run's journal keeps. */
export interface KeySetAside {
  table: string;
  name: string;
  /** The statements that add it back NOT VALID, as it was. */
  add: string[];
  validate: string;
}

export interface TargetLoader {
  /**
   * Takes the foreign keys among the copied tables out of the way before `loading` (the tables
   * about to load) do (PostgreSQL: dropped in one transaction, after the journal has them);
   * nothing where the dialect turns checking off per session instead.
   */
  setAside(loading: TableModel[]): Promise<void>;
  /**
   * Called once `table` is committed, on the lane that loaded it: the keys whose two tables are
   * both in come back (NOT VALID) and are validated there, while other tables still load.
   */
  loaded(table: PlannedTable, lane?: RowSession): Promise<void>;
  /** Readies another session of the target to load tables on (MySQL: key checks off there too). */
  readyLane(lane: RowSession): Promise<void>;
  /** Loads one planned table from its batches in one transaction on `lane` (default: the loader's session). */
  load(
    table: PlannedTable,
    batches: AsyncIterable<RowBatch>,
    lane?: RowSession,
  ): Promise<{ rows: number; method: string }>;
  /**
   * Checks every foreign key among the copied tables (validating the ones added back NOT VALID):
   * the failures, each naming the key. Run also after a failure: keys are restored before the run ends.
   */
  finish(): Promise<string[]>;
  /** The keys `finish` validated (PostgreSQL; MySQL keys have no validity to change). */
  validated(): { table: TableModel; name: string }[];
}

/** The target account may not take the foreign keys out of the way: nothing was written. */
export class ForeignKeyRightsMissing extends Error {}

const referencedOf = (table: TableModel, fk: ForeignKeyModel) => ({
  schema: fk.referenced_schema ?? table.schema,
  name: fk.referenced_table,
});

export async function createTargetLoader(input: {
  session: RowSession;
  /** Another session of the target, for checking keys two at a time (closed after); none: one at a time. */
  spareSession?: () => Promise<RowSession>;
  rows: RowFormat;
  sql: SqlWriter;
  /** Every table of the target, for the keys that reference a copied table from outside the copy. */
  targetTables: TableModel[];
  /** The target tables of the copy. */
  copied: TableModel[];
  mode: BridgeMode;
  /** Per target table (displayName), its keys taken off for the load and built after it (bridge-create.ts). */
  keysAroundLoad?: Map<string, KeysAroundLoad>;
  /**
   * Records durably the keys set aside (null once they are back), before they are dropped and
   * after they are added back: what the interrupted hook of a killed run restores from.
   */
  journal?: (keys: KeySetAside[] | null) => Promise<void>;
}): Promise<TargetLoader> {
  const { session, rows, sql, mode } = input;
  const q = (name: string) => sql.quoteIdent(name);
  const qualified = (t: { schema: string | null; name: string }) => qualifiedTable(q, t);
  const copiedNames = new Set(input.copied.map(displayName));
  const inner: InnerKey[] = input.copied.flatMap((table) =>
    table.foreign_keys
      .filter((fk) => copiedNames.has(displayName(referencedOf(table, fk))))
      .map((fk) => ({ table, fk })),
  );
  /** Tables referenced from outside the copy cannot be truncated: their rows are deleted instead. */
  const referencedFromOutside = new Set(
    input.targetTables
      .filter((t) => !copiedNames.has(displayName(t)))
      .flatMap((t) => t.foreign_keys.map((fk) => displayName(referencedOf(t, fk)))),
  );
  const fkLoad = rows.foreignKeyLoad;
  if (fkLoad.kind === 'session') await session.query(fkLoad.off);
  const touched = new Set<InnerKey>();

  // Before anything is written: the account must be allowed to drop the keys (PostgreSQL: own the
  // tables). Tried in a transaction that is rolled back.
  if (fkLoad.kind === 'readd' && inner.length > 0) {
    await session.query('BEGIN');
    try {
      for (const k of inner) await session.query(fkLoad.drop(qualified(k.table), k.fk.name));
    } catch (error) {
      throw new ForeignKeyRightsMissing(
        `The target account may not drop and re-add the foreign keys of the copied tables (it must own the tables): ${error instanceof Error ? error.message : error}`,
      );
    } finally {
      await session.query('ROLLBACK');
    }
  }

  /** How to put each key back (PostgreSQL): what the journal keeps. */
  const journalOf = (keys: Iterable<InnerKey>): KeySetAside[] =>
    fkLoad.kind === 'readd'
      ? [...keys].map((k) => ({
          table: qualified(k.table),
          name: k.fk.name,
          add: fkLoad.addNotValid(qualified(k.table), k.fk, qualified(referencedOf(k.table, k.fk))),
          validate: fkLoad.validate(qualified(k.table), k.fk.name),
        }))
      : [];
  /** The keys dropped for the load and not back yet. */
  const aside = new Set<InnerKey>();
  /** The copied tables not loaded yet: a key comes back once neither of its ends is among them. */
  const pending = new Set<string>();
  /** Keys a lane is adding back now (still aside, and journalled as such, until committed). */
  const claimed = new Set<InnerKey>();
  /** Keys validated as soon as both their tables were in, with their failure or null. */
  const checkedEarly = new Map<InnerKey, string | null>();
  // One key change at a time: adding a key locks both its tables (SHARE ROW EXCLUSIVE, which
  // conflicts with itself), so two lanes adding keys that share a table could deadlock; and the
  // journal's writes must land in the order the keys changed.
  let keyChanges: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = keyChanges.then(work);
    keyChanges = next.catch(() => {});
    return next;
  };

  async function setAside(loading: TableModel[]) {
    for (const t of loading) pending.add(displayName(t));
    if (fkLoad.kind !== 'readd' || inner.length === 0) return;
    // Journalled first: a kill between the journal and the COMMIT leaves keys that are still there,
    // which the hook's re-adding finds present and leaves alone.
    await input.journal?.(journalOf(inner));
    await session.query('BEGIN');
    try {
      for (const k of inner) await session.query(fkLoad.drop(qualified(k.table), k.fk.name));
      await session.query('COMMIT');
    } catch (error) {
      await session.query('ROLLBACK').catch(() => {});
      await input.journal?.(null);
      throw error;
    }
    for (const k of inner) {
      aside.add(k);
      touched.add(k);
    }
  }

  /** Adds `keys` back NOT VALID on `on`, in one short transaction, then journals what is still aside. */
  function putBack(keys: InnerKey[], on: RowSession) {
    if (keys.length === 0 || fkLoad.kind !== 'readd') return Promise.resolve();
    return oneAtATime(async () => {
      await on.query('BEGIN');
      try {
        for (const k of keys) for (const statement of journalOf([k])[0]!.add) await on.query(statement);
        await on.query('COMMIT');
      } catch (error) {
        await on.query('ROLLBACK').catch(() => {});
        throw error;
      }
      for (const k of keys) aside.delete(k);
      await input.journal?.(aside.size > 0 ? journalOf(aside) : null);
    });
  }

  /**
   * After `table` committed, on the lane that loaded it: the keys whose two tables are now both in
   * come back and are validated there, while other tables still load.
   */
  async function loaded(table: PlannedTable, lane: RowSession = session) {
    pending.delete(displayName(table.target!));
    const isIn = (t: { schema: string | null; name: string }) => !pending.has(displayName(t));
    // Claimed before waiting for the key changes of other lanes: two lanes finishing together must
    // not both add the same key back.
    const ready = [...aside].filter(
      (k) => !claimed.has(k) && isIn(k.table) && isIn(referencedOf(k.table, k.fk)),
    );
    for (const k of ready) claimed.add(k);
    try {
      await putBack(ready, lane);
    } finally {
      for (const k of ready) claimed.delete(k);
    }
    for (const k of ready) checkedEarly.set(k, await check(lane, k));
  }

  async function load(table: PlannedTable, batches: AsyncIterable<RowBatch>, lane: RowSession = session) {
    const target = table.target!;
    const name = qualified(target);
    const session = lane;
    await session.query('BEGIN');
    try {
      const around = input.keysAroundLoad?.get(displayName(target));
      for (const statement of around?.before ?? []) await session.query(statement);
      const truncated =
        mode === 'replace' &&
        sql.capabilities.transactionalDdl &&
        !referencedFromOutside.has(displayName(target));
      if (mode === 'replace') await session.query(`${truncated ? 'TRUNCATE TABLE' : 'DELETE FROM'} ${name}`);
      let written: { rows: number; method: string };
      if (mode === 'upsert') {
        const stage = q('dbops_bridge_stage');
        for (const statement of rows.stageSql(stage, name)) await session.query(statement);
        written = await session.writeRows(
          { schema: null, name: 'dbops_bridge_stage', columns: table.columns, kinds: table.targetKinds },
          batches,
        );
        await session.query(rows.upsertSql(name, stage, table.columns, target.primary_key!.columns));
        await session.query(`DROP ${sql.capabilities.transactionalDdl ? '' : 'TEMPORARY '}TABLE ${stage}`);
      } else
        written = await session.writeRows(
          {
            schema: target.schema,
            name: target.name,
            columns: table.columns,
            kinds: table.targetKinds,
            // COPY FREEZE refuses a partitioned table (its rows go to the partitions).
            emptiedInTransaction: truncated && !target.partitioning,
            ...(target.primary_key && { keyColumns: target.primary_key.columns }),
          },
          batches,
        );
      for (const statement of around?.after ?? []) await session.query(statement);
      for (const column of target.columns) {
        const sequenced = column.identity !== null || (column.default ?? '').includes('nextval(');
        const sync = sequenced ? rows.syncSequence(target, column.name) : null;
        if (sync) await session.query(sync.sql, sync.params);
      }
      await session.query('COMMIT');
      return written;
    } catch (error) {
      await session.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  /** One key's check on `on`: its failure, or null. */
  async function check(on: RowSession, k: InnerKey): Promise<string | null> {
    if (fkLoad.kind === 'readd')
      try {
        await on.query(fkLoad.validate(qualified(k.table), k.fk.name));
        return null;
      } catch (error) {
        return `Foreign key ${k.fk.name} of ${displayName(k.table)} is back but not valid (NOT VALID): ${error instanceof Error ? error.message : error}`;
      }
    const parent = referencedOf(k.table, k.fk);
    const orphan =
      `SELECT 1 AS orphan FROM ${qualified(k.table)} c WHERE ` +
      k.fk.columns.map((c) => `c.${q(c)} IS NOT NULL`).join(' AND ') +
      ` AND NOT EXISTS (SELECT 1 FROM ${qualified(parent)} p WHERE ` +
      k.fk.columns.map((c, i) => `p.${q(k.fk.referenced_columns[i]!)} = c.${q(c)}`).join(' AND ') +
      ') LIMIT 1';
    const { rows: orphans } = await on.query(orphan);
    return orphans.length > 0
      ? `Foreign key ${k.fk.name} of ${displayName(k.table)}: rows reference ${displayName(parent)} rows that do not exist`
      : null;
  }

  async function finish(): Promise<string[]> {
    if (fkLoad.kind === 'session') await session.query(fkLoad.on);
    try {
      await putBack([...aside], session);
    } catch (error) {
      // The load's own session may be what failed (its connection lost): another one puts the keys back.
      if (!input.spareSession) throw error;
      const other = await input.spareSession();
      try {
        await putBack([...aside], other);
      } finally {
        await other.close();
      }
    }
    const keys = (fkLoad.kind === 'readd' ? [...touched] : inner).filter((k) => !checkedEarly.has(k));
    const failures: (string | null)[] = keys.map(() => null);
    let next = 0;
    const work = async (on: RowSession) => {
      for (let i = next++; i < keys.length; i = next++) failures[i] = await check(on, keys[i]!);
    };
    // The spare opens while the first key is checked; if it cannot open, one session does them all.
    const spare =
      keys.length > 1 && input.spareSession
        ? input.spareSession().then(
            async (opened) => {
              try {
                await work(opened);
              } finally {
                await opened.close();
              }
            },
            () => {},
          )
        : Promise.resolve();
    const [own, other] = await Promise.allSettled([work(session), spare]);
    for (const outcome of [own, other]) if (outcome.status === 'rejected') throw outcome.reason;
    return [...checkedEarly.values(), ...failures].filter((f): f is string => f !== null);
  }

  return {
    setAside,
    loaded,
    async readyLane(lane) {
      if (fkLoad.kind === 'session') await lane.query(fkLoad.off);
    },
    load,
    finish,
    validated: () =>
      fkLoad.kind === 'readd' ? [...touched].map((k) => ({ table: k.table, name: k.fk.name })) : [],
  };
}

/**
 * The target's schema as read while its keys were being validated, with those keys valid: what
 * the validation changes in a schema is only that (PostgreSQL's `convalidated`).
 */
export function withKeysValid(model: SchemaModel, keys: { table: TableModel; name: string }[]): SchemaModel {
  const valid = new Set(keys.map((k) => `${displayName(k.table)}\u0000${k.name}`));
  const isValidated = (table: TableModel, fk: ForeignKeyModel) =>
    valid.has(`${displayName(table)}\u0000${fk.name}`);
  return {
    ...model,
    tables: model.tables.map((table) =>
      table.foreign_keys.some((fk) => isValidated(table, fk))
        ? {
            ...table,
            foreign_keys: table.foreign_keys.map((fk) => {
              if (!isValidated(table, fk)) return fk;
              // Introspection leaves the flag out of a valid key.
              const { not_valid: _, ...validKey } = fk;
              return validKey;
            }),
          }
        : table,
    ),
  };
}
