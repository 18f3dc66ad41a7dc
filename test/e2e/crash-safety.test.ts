// Crash safety: the worker process is killed with SIGKILL at random points while it
// executes a patch, or applies a migration, on PostgreSQL, again and again. Each time the next
// worker fails the run at once (the dead worker's lock is free: src/jobs/worker-liveness.ts), the
// target is untouched or fully changed (one transaction), the subject can be run again, and in
// the end a run completes and the change is applied once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrashHarness, query } from '../support/crash.ts';
import { pgAvailable } from '../support/databases.ts';

const ROWS = 400_000;

describe('kill -9 of the worker at random points of a run on PostgreSQL', async () => {
  const available = await pgAvailable();
  const crash = createCrashHarness('crash');
  const { post, get, until, database, killRepeatedly } = crash;
  const connectionTo = crash.connectionTo;
  let projectId: string;

  beforeAll(async () => {
    if (!available) return;
    await crash.start();
    projectId = crash.projectId();
  }, 120_000);

  afterAll(() => crash.stop());

  it.skipIf(!available)(
    'patch execute: failed at once, all or nothing, and in the end applied exactly once',
    async () => {
      const target = await database();
      await query(target.url, 'create table accounts (id int primary key, n int not null)');
      await query(target.url, `insert into accounts select g, 0 from generate_series(1, ${ROWS}) g`);
      const total = async () =>
        Number((await query(target.url, 'select sum(n)::int8 as s from accounts'))[0].s);
      const patch = await post('/api/v1/patches', {
        project_id: projectId,
        connection_id: await connectionTo(target, 'patched'),
        title: 'bump every account',
        sql: 'UPDATE accounts SET n = n + 1 WHERE id > 0',
      });
      expect(patch.status, JSON.stringify(patch.body)).toBe(201);

      const outcomes = await killRepeatedly(
        () => post(`/api/v1/patches/${patch.body.id}/execute`),
        async () => {
          const sum = await total();
          expect([0, ROWS]).toContain(sum);
          return sum === 0 ? 'before' : 'after';
        },
      );
      console.log(`kill -9 during patch execute: ${outcomes.join('; ')}`);
      expect(await total()).toBe(ROWS);
      expect((await get(`/api/v1/patches/${patch.body.id}`)).body.status).toBe('executed');
      // An executed patch is never executed again.
      expect((await post(`/api/v1/patches/${patch.body.id}/execute`)).status).toBe(409);
      // Only the applying execution's images are left in the backup schema.
      const images = await query(
        target.url,
        "select table_name from information_schema.tables where table_schema = 'dbops_backup'",
      );
      expect(images.length).toBeLessThanOrEqual(1);
    },
    120_000,
  );

  it.skipIf(!available)(
    'migration apply: failed at once, the schema as before or as the source (foreign keys included), then applied',
    async () => {
      const [source, target] = await Promise.all([database(), database()]);
      const schema = (idType: string) => `
        create table accounts (id int primary key, n ${idType} not null);
        ${idType === 'bigint' ? 'create table ledger (id int primary key, account_id int not null references accounts (id));' : ''}`;
      await query(source.url, schema('bigint'));
      await query(target.url, schema('int'));
      await query(target.url, `insert into accounts select g, g from generate_series(1, ${ROWS}) g`);
      const compared = await post(`/api/v1/projects/${projectId}/migrations/compare`, {
        source_connection_id: await connectionTo(source, 'source'),
        target_connection_id: await connectionTo(target, 'migrated'),
      });
      expect(compared.status, JSON.stringify(compared.body)).toBe(201);
      const migration = compared.body.id as string;
      const state = async (): Promise<'before' | 'after'> => {
        const [column] = await query(
          target.url,
          "select data_type from information_schema.columns where table_name = 'accounts' and column_name = 'n'",
        );
        const foreignKeys = await query(
          target.url,
          "select conname from pg_constraint where contype = 'f' and conrelid = 'ledger'::regclass",
        ).catch(() => undefined);
        if (column.data_type === 'integer') {
          expect(foreignKeys).toBeUndefined();
          return 'before';
        }
        expect(column.data_type).toBe('bigint');
        expect(foreignKeys).toHaveLength(1);
        return 'after';
      };

      const outcomes = await killRepeatedly(() => post(`/api/v1/migrations/${migration}/apply`), state);
      console.log(`kill -9 during migration apply: ${outcomes.join('; ')}`);
      expect(await state()).toBe('after');
      expect((await get(`/api/v1/migrations/${migration}`)).body.status).toBe('applied');
      const rows = await query(target.url, 'select count(*)::int as n, sum(n)::int8 as s from accounts');
      expect(rows[0]).toEqual({ n: ROWS, s: String((ROWS * (ROWS + 1)) / 2) });
    },
    120_000,
  );

  it.skipIf(!available)(
    'bridge copy: failed at once, each table all or nothing with its foreign keys, then completed',
    async () => {
      const [source, target] = await Promise.all([database(), database()]);
      const schema = `
        create table customers (id int primary key, name text not null);
        create table orders (id int primary key, customer_id int not null references customers (id), total int not null);`;
      await query(source.url, schema);
      await query(target.url, schema);
      await query(
        source.url,
        `insert into customers select g, 'c' || g from generate_series(1, ${ROWS / 4}) g`,
      );
      await query(
        source.url,
        `insert into orders select g, 1 + g % ${ROWS / 4}, g from generate_series(1, ${ROWS}) g`,
      );
      const [sourceId, targetId] = [
        await connectionTo(source, 'bridge source'),
        await connectionTo(target, 'bridge target'),
      ];
      const counts = async () => {
        const [row] = await query(
          target.url,
          'select (select count(*) from customers)::int as customers, (select count(*) from orders)::int as orders',
        );
        return row as { customers: number; orders: number };
      };
      const state = async (): Promise<'before' | 'after'> => {
        const { customers, orders } = await counts();
        // Each table is loaded in one transaction: empty or complete, never in between.
        expect([0, ROWS / 4]).toContain(customers);
        expect([0, ROWS]).toContain(orders);
        const foreignKeys = await query(
          target.url,
          "select conname from pg_constraint where contype = 'f' and conrelid = 'orders'::regclass",
        );
        expect(foreignKeys).toHaveLength(1);
        return customers === ROWS / 4 && orders === ROWS ? 'after' : 'before';
      };
      const outcomes = await killRepeatedly(
        () =>
          post(`/api/v1/projects/${projectId}/bridge/run`, {
            source_connection_id: sourceId,
            target_connection_id: targetId,
            tables: ['public.customers', 'public.orders'],
            mode: 'replace',
          }),
        state,
      );
      console.log(`kill -9 during bridge copy: ${outcomes.join('; ')}`);
      expect(await counts()).toEqual({ customers: ROWS / 4, orders: ROWS });
      const [orphans] = await query(
        target.url,
        'select count(*)::int as n from orders o left join customers c on c.id = o.customer_id where c.id is null',
      );
      expect(orphans.n).toBe(0);
    },
    120_000,
  );

  it.skipIf(!available)(
    'SIGTERM to a worker in the middle of a run: it finishes the run, then exits in bounded time',
    async () => {
      const target = await database();
      await query(target.url, 'create table accounts (id int primary key, n int not null)');
      await query(target.url, `insert into accounts select g, 0 from generate_series(1, ${ROWS}) g`);
      const patch = await post('/api/v1/patches', {
        project_id: projectId,
        connection_id: await connectionTo(target, 'stopped'),
        title: 'bump before a stop',
        sql: 'UPDATE accounts SET n = n + 1 WHERE id > 0',
      });
      const started = await post(`/api/v1/patches/${patch.body.id}/execute`);
      expect(started.status).toBe(202);
      await until(started.body.id, ['running'], 20_000);
      const { exit, output } = await crash.terminateWorker(30_000);
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.ms).toBeLessThan(25_000);
      // Finished by the stopping worker, not left running for another.
      const ended = (await get(`/api/v1/runs/${started.body.id}`)).body;
      expect(ended, `${JSON.stringify(ended)}\n${output.slice(-3000)}`).toMatchObject({
        status: 'succeeded',
      });
      const [sum] = await query(target.url, 'select sum(n)::int8 as s from accounts');
      expect(Number(sum.s)).toBe(ROWS);
      await crash.startWorker();
    },
    120_000,
  );
});
