// A keyed UPDATE run in primary-key ranges on the real MariaDB (patch-key-ranges.ts), with ranges of
// a few rows over a composite key: the table ends as the statement alone leaves it, the images hold
// every row it changed as before and as after, the clock reads one NOW() across the ranges, and a
// statement its index finds, or one that names its table twice, runs whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEngines } from '../../../test/support/engines.ts';
import { targetConfig } from '../../../test/support/targets.ts';
import type { TargetHandle } from '../../dialects/dialect.ts';
import { mysqlDialect } from '../../dialects/mysql/mysql.dialect.ts';
import { parsePatch } from '../../engine/patch/parse-patch.ts';
import { keyOnModel } from '../../engine/patch/rollback-key.ts';
import type { StoredPatchStatement } from '../../store/tables.ts';
import { backupTable, createImageSql, writableColumns } from './patch-images.ts';
import { rangedUpdate, runInKeyRanges } from './patch-key-ranges.ts';

const engines = await targetEngines('patch key ranges (patch-key-ranges.test.ts)');

const ROWS = 50;
const SCHEMA = `
  create table ledger (
    region varchar(8) not null, n int not null, v int not null, note varchar(20) null,
    stamped datetime(6) null, primary key (region, n), key ledger_v (v));
  insert into ledger (region, n, v, note)
  select elt(seq % 3 + 1, 'east', 'north', 'west'), seq, seq % 7, if(seq % 5 = 0, null, concat('row ', seq))
  from seq_1_to_${ROWS};`;

describe.skipIf(!engines.mysql.up)('MariaDB: a patch UPDATE in primary-key ranges', () => {
  let db: { url: string; drop(): Promise<void> };
  let handle: TargetHandle;
  let runs = 0;

  beforeAll(async () => {
    db = await engines.mysql.create();
    handle = await mysqlDialect.open(targetConfig(db.url));
  });

  afterAll(async () => {
    await handle?.close();
    await db?.drop();
  });

  /** The statement as execute stores it, its images created empty, and a run id of its own. */
  async function prepared(text: string, schema = SCHEMA) {
    await engines.mysql.load(db.url, `drop table if exists ledger, counters; ${schema}`);
    const parsed = await parsePatch('mysql', text);
    if (!parsed.ok) throw new Error(parsed.message);
    const model = await handle.introspect();
    const keyed = keyOnModel(parsed.statements[0]!, model)!;
    const statement: StoredPatchStatement & { columns: string[] } = {
      ...parsed.statements[0]!,
      reversible: keyed.verdict.reversible,
      irreversible_reason: keyed.verdict.reason,
      key: keyed.verdict.key,
      columns: writableColumns(keyed.table),
    };
    const runId = `00000000-0000-0000-0000-${String(++runs).padStart(12, '0')}`;
    await handle.transaction(
      async (tx) => {
        for (const image of ['before', 'after'] as const)
          for (const create of createImageSql(
            mysqlDialect,
            backupTable(mysqlDialect, runId, 0, image),
            statement,
            keyed.table,
          ))
            await tx.query(create);
      },
      { commit: true },
    );
    return { statement, table: keyed.table, runId };
  }

  const rowsOf = (sql: string) => engines.mysql.query(db.url, sql);
  const ordered = (table: string, where = '1 = 1') =>
    `SELECT region, n, v, note, stamped FROM ${table} WHERE ${where} ORDER BY region, n`;

  it('changes the rows the statement changes, imaging each before and after, under one NOW()', async () => {
    const text = 'UPDATE ledger SET v = v + 10, stamped = NOW(6) WHERE v % 2 = 0 AND note IS NOT NULL';
    const { statement, table, runId } = await prepared(text);
    const expectedBefore = await rowsOf(ordered('ledger', 'v % 2 = 0 AND note IS NOT NULL'));
    const update = rangedUpdate(mysqlDialect, statement, table, true);
    expect(update).not.toBeNull();

    const done = await handle.transaction(
      (tx) => runInKeyRanges(tx, { sql: mysqlDialect, runId }, statement, { ...update!, rowsPerRange: 4 }),
      { commit: true },
    );

    expect(done).toEqual({ affected: expectedBefore.length, imaged: expectedBefore.length });
    expect(expectedBefore.length).toBeGreaterThan(4 * 3);
    const before = backupTable(mysqlDialect, runId, 0, 'before');
    const after = backupTable(mysqlDialect, runId, 0, 'after');
    expect(await rowsOf(ordered(before))).toEqual(expectedBefore);
    const changed = await rowsOf(ordered('ledger', 'stamped IS NOT NULL'));
    expect(changed.map((r) => [r.region, r.n, r.v])).toEqual(
      expectedBefore.map((r) => [r.region, r.n, Number(r.v) + 10]),
    );
    expect(await rowsOf(ordered(after))).toEqual(changed);
    expect(new Set(changed.map((r) => String(r.stamped))).size).toBe(1);
    // The session's clock runs again for what the connection does next.
    const clock = await handle.transaction(
      async (tx) => (await tx.query('SELECT @@timestamp AS t')).rows[0]!.t,
      {
        commit: false,
      },
    );
    expect(Math.abs(Number(clock) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('updates by the imaged keys where the key is one column, as the statement alone would', async () => {
    const schema = `
      create table counters (id bigint primary key, v int not null, label varchar(8) null);
      insert into counters select seq, seq % 5, if(seq % 4 = 0, null, 'x') from seq_1_to_${ROWS};`;
    const { statement, table, runId } = await prepared(
      "UPDATE counters SET v = v + 100, label = 'done' WHERE v % 2 = 1",
      schema,
    );
    const expected = await rowsOf('SELECT id, v, label FROM counters WHERE v % 2 = 1 ORDER BY id');
    const update = rangedUpdate(mysqlDialect, statement, table, true)!;
    const done = await handle.transaction(
      (tx) => runInKeyRanges(tx, { sql: mysqlDialect, runId }, statement, { ...update, rowsPerRange: 6 }),
      { commit: true },
    );
    expect(done).toEqual({ affected: expected.length, imaged: expected.length });
    const image = (which: 'before' | 'after') =>
      rowsOf(`SELECT id, v, label FROM ${backupTable(mysqlDialect, runId, 0, which)} ORDER BY id`);
    expect(await image('before')).toEqual(expected);
    const changed = await rowsOf("SELECT id, v, label FROM counters WHERE label = 'done' ORDER BY id");
    expect(changed).toEqual(expected.map((r) => ({ ...r, v: Number(r.v) + 100, label: 'done' })));
    expect(await image('after')).toEqual(changed);
  });

  it('leaves the after-image to the end of the patch when a later statement follows', async () => {
    const { statement, table, runId } = await prepared(
      'UPDATE ledger SET v = v * 2 WHERE note IS NULL OR v > 1',
    );
    const update = rangedUpdate(mysqlDialect, statement, table, false)!;
    expect(update.afterImageByRange).toBe(false);
    const done = await handle.transaction(
      (tx) => runInKeyRanges(tx, { sql: mysqlDialect, runId }, statement, { ...update, rowsPerRange: 7 }),
      { commit: true },
    );
    expect(done?.affected).toBe(done?.imaged);
    expect(done!.affected).toBeGreaterThan(7);
    expect(await rowsOf(`SELECT count(*) AS n FROM ${backupTable(mysqlDialect, runId, 0, 'after')}`)).toEqual(
      [{ n: 0 }],
    );
  });

  it('runs whole a statement whose index finds its rows', async () => {
    const { statement, table, runId } = await prepared('UPDATE ledger SET note = NULL WHERE v = 3');
    const update = rangedUpdate(mysqlDialect, statement, table, true)!;
    const done = await handle.transaction(
      (tx) => runInKeyRanges(tx, { sql: mysqlDialect, runId }, statement, { ...update, rowsPerRange: 4 }),
      { commit: false },
    );
    expect(done).toBeNull();
  });

  it('leaves whole a statement that reads its own table again, or has no WHERE', async () => {
    const reads = await prepared(
      'UPDATE ledger SET v = 0 WHERE n IN (SELECT n FROM (SELECT max(n) AS n FROM ledger) m)',
    );
    expect(rangedUpdate(mysqlDialect, reads.statement, reads.table, true)).toBeNull();
    const everything = await parsePatch('mysql', 'UPDATE ledger SET v = 0', { allowFullTable: true });
    if (!everything.ok) throw new Error(everything.message);
    const whole = { ...reads.statement, ...everything.statements[0]! };
    expect(rangedUpdate(mysqlDialect, whole, reads.table, true)).toBeNull();
  });
});
