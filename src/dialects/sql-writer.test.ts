// The SqlWriter of each dialect (dialect.ts) run on the real PostgreSQL and MariaDB test servers:
// what each method writes must run there and do what its contract says, and each capability must
// be true of the server, so that a caller can rely on them and never on the engine's name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEngines } from '../../test/support/engines.ts';
import { targetConfig } from '../../test/support/targets.ts';
import type { TableModel } from '../engine/schema/model.ts';
import type { TargetHandle, TargetTransaction } from './dialect.ts';
import { dialects } from './index.ts';

const engines = await targetEngines('dialect SQL writers (sql-writer.test.ts)');

const SCHEMA = {
  postgresql:
    'create table items (id int primary key, code text not null, qty int, doc json); ' +
    'create index items_code on items (code); create index items_qty on items (qty); ' +
    'create table ids (id int generated always as identity primary key, label text); ' +
    'create table stamped (id int primary key, qty int); ' +
    'create function stamp() returns trigger language plpgsql as $$ begin new.qty := -1; return new; end $$; ' +
    'create trigger stamped_stamp before update on stamped for each row execute function stamp(); ' +
    'alter table stamped enable always trigger stamped_stamp; ' +
    'insert into stamped values (1, 1);',
  mysql:
    'create table items (id int primary key, code varchar(20) not null, qty int, doc json); ' +
    'create index items_code on items (code); create index items_qty on items (qty); ' +
    'create table ids (id int auto_increment primary key, label varchar(20));',
};

for (const engine of [engines.postgresql, engines.mysql]) {
  describe(`the SQL writer on ${engine.name}`, { skip: !engine.up }, () => {
    const sql = dialects[engine.dialect];
    const q = sql.quoteIdent;
    let handle: TargetHandle;
    let drop: () => Promise<void>;
    /** Runs `work` in a transaction that is rolled back (DDL aside on MySQL, which commits it). */
    const inTx = <T>(work: (tx: TargetTransaction) => Promise<T>) =>
      handle.transaction(work, { commit: false });
    const committed = <T>(work: (tx: TargetTransaction) => Promise<T>) =>
      handle.transaction(work, { commit: true });
    const tableOf = async (name: string): Promise<TableModel | undefined> =>
      (await handle.introspect()).tables.find((t) => t.name === name);

    beforeAll(async () => {
      const database = await engine.create();
      drop = database.drop;
      await engine.load(database.url, SCHEMA[engine.dialect]);
      await engine.load(
        database.url,
        `insert into items values (1, 'a', 1, null), (2, 'b', 2, '{"k": 1}'), (3, 'c', null, null);`,
      );
      handle = await sql.open(targetConfig(database.url));
    });
    afterAll(async () => {
      await handle?.close();
      await drop?.();
    });

    it('quotes one identifier, never splitting it, and numbers placeholders as the server expects', async () => {
      const name = q('we"ird`.name');
      await committed((tx) => tx.query(`create table ${name} (${q('a b')} int)`));
      const rows = await inTx(async (tx) => {
        await tx.query(
          `insert into ${name} (${q('a b')}) values (${sql.placeholder(1)}), (${sql.placeholder(2)})`,
          [7, 8],
        );
        return (await tx.query(`select ${q('a b')} as v from ${name} order by 1`)).rows;
      });
      expect(rows.map((r) => Number(r.v))).toEqual([7, 8]);
    });

    it('counts the rows a statement answers as affected rows', async () => {
      const result = await inTx((tx) => tx.query('select id from items order by id'));
      expect(result.rows).toHaveLength(3);
      expect(result.affectedRows).toBe(3);
    });

    it('compares values null-safely, whatever their type', async () => {
      const rows = await inTx(
        async (tx) =>
          (
            await tx.query(
              `select a.id from items a join items b on a.id = b.id where ${sql.sameValue('a.qty', 'b.qty')} ` +
                `and ${sql.sameValue('a.doc', 'b.doc')} order by a.id`,
            )
          ).rows,
      );
      // Row 3's null qty equals itself, and so does row 2's json.
      expect(rows.map((r) => Number(r.id))).toEqual([1, 2, 3]);
      const unequal = await inTx(
        async (tx) =>
          (await tx.query(`select count(*) as n from items a where ${sql.sameValue('a.qty', 'null')}`)).rows,
      );
      expect(Number(unequal[0]!.n)).toBe(1);
    });

    it('updates from and deletes by a joined table', async () => {
      const after = await inTx(async (tx) => {
        await tx.query('create temporary table src (id int, qty int)');
        await tx.query('insert into src values (1, 10), (2, 20)');
        const on = `t.${q('id')} = s.${q('id')}`;
        const target = { table: 'items', alias: 't' };
        const source = { table: 'src', alias: 's' };
        const updated = await tx.query(sql.updateFrom(target, source, on, ['qty']));
        await tx.query('delete from src where id = 1');
        const deleted = await tx.query(sql.deleteJoined(target, source, on));
        const rows = (await tx.query('select id, qty from items order by id')).rows;
        return { updated: updated.affectedRows, deleted: deleted.affectedRows, rows };
      });
      expect(after).toEqual({
        updated: 2,
        deleted: 1,
        rows: [
          { id: expect.anything(), qty: expect.anything() },
          { id: expect.anything(), qty: null },
        ],
      });
      expect(after.rows.map((r) => Number(r.id))).toEqual([1, 3]);
      expect(Number(after.rows[0]!.qty)).toBe(10);
    });

    it('inserts identity values as given', async () => {
      const rows = await inTx(async (tx) => {
        await tx.query(sql.insertAsGiven('ids', `${q('id')}, ${q('label')}`, "select 42, 'kept'"));
        return (await tx.query('select id, label from ids')).rows;
      });
      expect(rows.map((r) => [Number(r.id), r.label])).toEqual([[42, 'kept']]);
    });

    it('says truly whether DDL rolls back with the transaction', async () => {
      await inTx((tx) => tx.query('create table ddl_probe (id int)'));
      expect((await tableOf('ddl_probe')) !== undefined).toBe(!sql.capabilities.transactionalDdl);
    });

    it("keeps this service's own tables where introspection does not report them", async () => {
      const own = sql.ownTable('probe_0');
      await committed(async (tx) => {
        for (const setup of sql.ownTablesSetup()) await tx.query(setup);
        await tx.query(`create table ${own} (id int)`);
        await tx.query(`insert into ${own} values (1)`);
      });
      const rows = await inTx(async (tx) => (await tx.query(`select id from ${own}`)).rows);
      expect(rows.map((r) => Number(r.id))).toEqual([1]);
      const model = await handle.introspect();
      expect(JSON.stringify(model)).not.toContain('probe_0');
    });

    it('creates an empty copy with the columns and no index but what the key needs', async () => {
      const items = (await tableOf('items'))!;
      await committed(async (tx) => {
        for (const statement of sql.createEmptyCopy(q('items_copy'), q('items'), items, ['id']))
          await tx.query(statement);
      });
      const copy = (await tableOf('items_copy'))!;
      expect(copy.columns.map((c) => c.name)).toEqual(items.columns.map((c) => c.name));
      expect(copy.indexes.map((i) => i.name)).toEqual([]);
      const count = await inTx(async (tx) => (await tx.query('select count(*) as n from items_copy')).rows);
      expect(Number(count[0]!.n)).toBe(0);
    });

    it('takes RETURNING where it says it does, and refuses it where it says not', async () => {
      const returning = sql.returning(handle.flavor);
      const inserted = inTx((tx) => tx.query("insert into ids (label) values ('r') returning id"));
      if (returning.insert) expect((await inserted).rows).toHaveLength(1);
      else await expect(inserted).rejects.toThrow();
      const feeding = inTx((tx) =>
        tx.query('with gone as (delete from items where id = 3 returning id) select count(*) as n from gone'),
      );
      if (returning.inWith) expect(Number((await feeding).rows[0]!.n)).toBe(1);
      else await expect(feeding).rejects.toThrow();
    });

    it('tells the rows a transaction wrote by their version, where rows have one', async () => {
      const versions = sql.capabilities.rowVersions;
      if (versions === null) {
        await expect(inTx((tx) => tx.query('select xmin from items'))).rejects.toThrow();
        return;
      }
      expect(versions.writtenBy('t', 'not a version')).toBeNull();
      const written = await inTx(async (tx) => {
        const version = String((await tx.query(versions.currentSql)).rows[0]!.version);
        await tx.query('update items set qty = 5 where id = 2');
        return (await tx.query(`select id from items t where ${versions.writtenBy('t', version)}`)).rows;
      });
      expect(written.map((r) => Number(r.id))).toEqual([2]);
    });

    it('refreshes statistics inside a transaction only where that does not commit it', async () => {
      const analyze = sql.analyzeSql(q('items'));
      if (analyze === null) return expect(engine.dialect).toBe('mysql');
      const rows = await inTx(async (tx) => {
        await tx.query('update items set qty = 99 where id = 1');
        await tx.query(analyze);
        return (await tx.query('select qty from items where id = 1')).rows;
      });
      expect(Number(rows[0]!.qty)).toBe(99);
      const kept = await inTx(async (tx) => (await tx.query('select qty from items where id = 1')).rows);
      expect(Number(kept[0]!.qty)).toBe(1);
    });

    it('pauses triggers and resumes each in the mode it had, where the engine can', async () => {
      if (!sql.capabilities.pausableTriggers) {
        expect(await inTx((tx) => sql.pauseTriggers(tx, q('items')))).toEqual({ state: 'unsupported' });
        return;
      }
      expect((await inTx((tx) => sql.pauseTriggers(tx, q('items')))).state).toBe('none');
      const seen = await inTx(async (tx) => {
        const paused = await sql.pauseTriggers(tx, q('stamped'));
        await tx.query('update stamped set qty = 5 where id = 1');
        const whilePaused = (await tx.query('select qty from stamped')).rows[0]!.qty;
        if (paused.state !== 'paused') throw new Error(`not paused: ${paused.state}`);
        await paused.resume();
        const mode = (
          await tx.query("select tgenabled::text as mode from pg_trigger where tgname = 'stamped_stamp'")
        ).rows[0]!.mode;
        await tx.query('update stamped set qty = 6 where id = 1');
        const resumed = (await tx.query('select qty from stamped')).rows[0]!.qty;
        return { whilePaused, mode, resumed };
      });
      expect(seen).toEqual({ whilePaused: 5, mode: 'A', resumed: -1 });
    });
  });
}
