// Rolling back patches on tables that make an exact restore hard: generated columns (never
// written back), identity and auto-increment columns (written back as they were), a BEFORE UPDATE
// trigger that stamps rows (paused on PostgreSQL; on MySQL it fires, and the run says which rows
// it changed), a natural primary key beside a surrogate one, on the real PostgreSQL and MariaDB.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { testPgUrl } from '../../../test/support/databases.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';
import { targetConfig } from '../../../test/support/targets.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('patch rollback on hard tables (patches.restore.test.ts)');

const ROWS = "('a', 1, 10.00), ('b', 2, 20.00), ('c', 3, 30.00)";

const ENGINES = [
  {
    ...engines.postgresql,
    pausesTriggers: true,
    schema: `
      create table orders (
        code text primary key,
        seq bigint generated always as identity unique,
        qty int not null,
        price numeric(10, 2) not null,
        total numeric(12, 2) generated always as (qty * price) stored,
        touched timestamptz not null default '2000-01-01',
        touch_count int not null default 0
      );
      create function touch() returns trigger language plpgsql as $$
        begin new.touched = now(); new.touch_count = old.touch_count + 1; return new; end $$;
      create trigger orders_touch before update on orders for each row execute function touch();
      insert into orders (code, qty, price) values ${ROWS};`,
  },
  {
    ...engines.mysql,
    pausesTriggers: false,
    schema: `
      create table orders (
        code varchar(10) primary key,
        seq int not null auto_increment unique,
        qty int not null,
        price decimal(10, 2) not null,
        total decimal(12, 2) as (qty * price) stored,
        shown decimal(12, 2) as (qty * price) virtual,
        touched datetime not null default '2000-01-01 00:00:00',
        touch_count int not null default 0
      );
      create index orders_qty on orders (qty);
      create trigger orders_touch before update on orders for each row
        set new.touched = now(), new.touch_count = old.touch_count + 1;
      insert into orders (code, qty, price) values ${ROWS};`,
  },
];

describe('patch rollback on tables with generated, identity and trigger-maintained columns', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({
      org: 'Hard tables',
      project: 'Hard tables',
    }));
  });
  afterAll(() => closeSuite(t, databases));

  for (const engine of ENGINES) {
    it(`restores every column it can on ${engine.name}, and says what a trigger changed`, {
      skip: !engine.up,
    }, async () => {
      const database = await engine.create();
      databases.push(database);
      await engine.load(database.url, engine.schema);
      const connection = await owner.post(
        `${API}/connections`,
        connectionBody(projectId, database.url, { name: `${engine.name} hard tables` }),
      );
      const run = async (path: string, body: Record<string, unknown> = {}) => {
        const started = await owner.post(`${API}/patches/${path}`, body);
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        return waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
      };
      const before = await tableChecksum(database.url, 'orders');

      const patch = await owner.post(`${API}/patches`, {
        project_id: projectId,
        connection_id: connection.body.id,
        title: 'Reprice',
        sql:
          "UPDATE orders SET qty = qty + 1, price = price * 2 WHERE code IN ('a', 'b'); " +
          "DELETE FROM orders WHERE code = 'c'; " +
          "INSERT INTO orders (code, qty, price) VALUES ('d', 4, 40)",
      });
      expect(patch.status, JSON.stringify(patch.body)).toBe(201);
      expect(patch.body.statements.map((s: { reversible: boolean }) => s.reversible)).toEqual([
        true,
        true,
        true,
      ]);
      const executed = await run(`${patch.body.id}/execute`);
      expect(executed.error).toBeNull();
      expect(executed.result.affected_rows).toEqual([2, 1, 1]);
      if (!engine.pausesTriggers) {
        // A MySQL image keeps the key's index (and the one AUTO_INCREMENT needs), not the others.
        const indexes = await engine.query(
          database.url,
          `select distinct index_name as name from information_schema.statistics
            where table_schema = database() and table_name = '_dbops_bak_${executed.id.replaceAll('-', '')}_0'
            order by 1`,
        );
        expect(indexes.map((r) => r.name)).toEqual(['PRIMARY', 'seq']);
      }

      const rolled = await run(`${patch.body.id}/rollback`);
      expect(rolled.error).toBeNull();
      expect(rolled.status).toBe('succeeded');
      const restored = rolled.result.restored as { index: number; unequal_rows: number }[];
      if (engine.pausesTriggers) {
        // The trigger did not stamp the restored rows: the table is as it was, to the byte.
        expect(rolled.result).toMatchObject({ exact: true, warnings: [] });
        expect(await tableChecksum(database.url, 'orders')).toEqual(before);
      } else {
        // MySQL cannot pause it: the two restored rows carry the trigger's stamp, and the run says so.
        expect(rolled.result.exact).toBe(false);
        expect(restored.find((r) => r.index === 0)?.unequal_rows).toBe(2);
        expect(rolled.result.warnings).toEqual([expect.stringMatching(/Statement 1: 2 rows of orders/)]);
      }
      const rows = await engine.query(
        database.url,
        'select code, seq, qty, price, total from orders order by code',
      );
      expect(rows.map((r) => `${r.code}:${r.seq}:${r.qty}:${Number(r.price)}:${Number(r.total)}`)).toEqual([
        'a:1:1:10:10',
        'b:2:2:20:40',
        'c:3:3:30:90',
      ]);
    });
  }
  it('restores with the triggers firing when the user may not pause them, and says so (PostgreSQL)', {
    skip: !engines.postgresql.up,
  }, async () => {
    const engine = ENGINES[0]!;
    const database = await engine.create();
    databases.push(database);
    await engine.load(database.url, engine.schema);
    // A role that may change the rows but does not own the table: it cannot disable its triggers.
    const role = `dbops_patcher_${randomBytes(4).toString('hex')}`;
    const dbName = targetConfig(database.url).database;
    await engine.query(
      database.url,
      `create role ${role} login; grant create on database "${dbName}" to ${role}; ` +
        `grant usage on schema public to ${role}; grant select, insert, update, delete on orders to ${role}`,
    );
    try {
      const connection = await owner.post(
        `${API}/connections`,
        connectionBody(projectId, database.url, { name: 'not the owner', username: role, password: '' }),
      );
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
      const patch = await owner.post(`${API}/patches`, {
        project_id: projectId,
        connection_id: connection.body.id,
        title: 'Reprice',
        sql: "UPDATE orders SET qty = qty + 1 WHERE code = 'a'",
      });
      const run = async (path: string) => {
        const started = await owner.post(`${API}/patches/${patch.body.id}/${path}`, {});
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        return waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
      };
      expect((await run('execute')).error).toBeNull();
      const rolled = await run('rollback');
      expect(rolled.error).toBeNull();
      expect(rolled.result).toMatchObject({ exact: false, restored: [{ index: 0, unequal_rows: 1 }] });
      expect(rolled.result.warnings).toEqual([
        expect.stringMatching(/^The triggers of orders fired during the restore: .*owner/),
        expect.stringMatching(/^Statement 1: 1 row of orders is not as before/),
      ]);
      const [row] = await engine.query(database.url, "select qty, touch_count from orders where code = 'a'");
      expect(row).toMatchObject({ qty: 1, touch_count: 2 });
    } finally {
      await engine.query(database.url, `drop owned by ${role}`);
      await engine.query(testPgUrl, `drop role ${role}`);
    }
  });
});
