// Crash safety of the data operations, as crash-safety.test.ts does it for patch
// execute, migration apply and bridge copy: the worker is killed with SIGKILL at random points of a
// patch rollback, a seed run and an in-place anonymization on PostgreSQL. Each time the next worker
// fails the run at once, the target is as before the run or as after it (per table where the run
// commits table group by table group), and in the end a run completes. Last, the target database
// itself is restarted in the middle of a run (a PostgreSQL server of the test's own: the shared one
// is never restarted): the run fails with a classified error and leaves nothing half done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrashHarness, query, type TargetState } from '../support/crash.ts';
import { pgAvailable } from '../support/databases.ts';
import { privatePostgresMissing, startPrivatePostgres } from '../support/private-postgres.ts';

const ROWS = 100_000;

describe('kill -9 of the worker during a rollback, a seed or an anonymization on PostgreSQL', async () => {
  const available = await pgAvailable();
  const crash = createCrashHarness('crash-data');
  const { post, get, until, database, connectionTo, killRepeatedly } = crash;

  beforeAll(async () => {
    if (available) await crash.start();
  }, 120_000);
  afterAll(() => crash.stop());

  const backupTables = async (url: string) =>
    (
      await query(
        url,
        "select table_name from information_schema.tables where table_schema = 'dbops_backup' order by 1",
      )
    ).map((row) => row.table_name as string);

  it.skipIf(!available)(
    'patch rollback: as before the rollback or fully restored, settled from the target, rolled back once',
    async () => {
      const target = await database();
      await query(target.url, 'create table accounts (id int primary key, n int not null)');
      await query(target.url, `insert into accounts select g, 0 from generate_series(1, ${ROWS}) g`);
      const total = async () =>
        Number((await query(target.url, 'select sum(n)::int8 as s from accounts'))[0].s);
      const patch = await post('/api/v1/patches', {
        project_id: crash.projectId(),
        connection_id: await connectionTo(target, 'rolled back'),
        title: 'bump every account, to be rolled back',
        sql: 'UPDATE accounts SET n = n + 1 WHERE id > 0',
      });
      expect(patch.status, JSON.stringify(patch.body)).toBe(201);
      const executed = await post(`/api/v1/patches/${patch.body.id}/execute`);
      expect((await until(executed.body.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
      expect(await total()).toBe(ROWS);
      const images = await backupTables(target.url);
      expect(images).toHaveLength(1);

      const outcomes = await killRepeatedly(
        () => post(`/api/v1/patches/${patch.body.id}/rollback`),
        async () => {
          const sum = await total();
          // One transaction: every row restored, or none.
          expect([ROWS, 0]).toContain(sum);
          const status = (await get(`/api/v1/patches/${patch.body.id}`)).body.status;
          // The sweep settled the patch from what the target shows, never left `executing`.
          expect(status).toBe(sum === 0 ? 'rolled_back' : 'executed');
          // A rollback creates no table of its own: only the execution's image is there.
          expect(await backupTables(target.url)).toEqual(images);
          return sum === 0 ? 'after' : 'before';
        },
        // The restore takes 1 to 3 s: a later kill may land after its commit.
        { kills: 2, laterWithinMs: 2_000 },
      );
      console.log(`kill -9 during patch rollback: ${outcomes.join('; ')}`);
      expect(await total()).toBe(0);
      expect((await get(`/api/v1/patches/${patch.body.id}`)).body.status).toBe('rolled_back');
      // Rolled back once: a second rollback is refused, not restored again.
      expect((await post(`/api/v1/patches/${patch.body.id}/rollback`)).status).toBe(409);
    },
    180_000,
  );

  it.skipIf(!available)(
    'seed run: nothing or every table seeded (one transaction), foreign keys whole, never left running',
    async () => {
      const target = await database();
      await query(
        target.url,
        `create table customers (id int primary key, name text not null);
         create table orders (id int primary key, customer_id int not null references customers (id), total int not null);`,
      );
      // Twice the rows of the other runs: a seed writes fast (a run of 125,000 rows once ended inside
      // the first kill's window on a quiet machine, so that kill tested nothing).
      const [customers, orders] = [ROWS / 2, 2 * ROWS];
      const scenario = await post('/api/v1/seed/scenarios', {
        project_id: crash.projectId(),
        connection_id: await connectionTo(target, 'seeded'),
        name: 'customers and their orders',
        seed: 21,
        definition: {
          tables: [
            { table: 'customers', rows: customers },
            { table: 'orders', rows: orders },
          ],
        },
      });
      expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);
      const counts = async () =>
        (
          await query(
            target.url,
            'select (select count(*) from customers)::int as customers, (select count(*) from orders)::int as orders',
          )
        )[0] as { customers: number; orders: number };

      const outcomes = await killRepeatedly(
        () => post(`/api/v1/seed/scenarios/${scenario.body.id}/run`),
        async () => {
          const seeded = await counts();
          expect([
            { customers: 0, orders: 0 },
            { customers, orders },
          ]).toContainEqual(seeded);
          return seeded.orders === 0 ? 'before' : 'after';
        },
        {
          kills: 2,
          // The first kill early in the run, the later one anywhere up to past its commit.
          withinMs: 150,
          laterWithinMs: 2_500,
          // The run says which: seeding again after a commit that landed would add every row twice.
          interrupted(run, state) {
            expect(run.error).toMatch(state === 'before' ? /nothing was written/ : /every table was seeded/);
          },
        },
      );
      console.log(`kill -9 during seed run: ${outcomes.join('; ')}`);
      expect(await counts()).toEqual({ customers, orders });
      const [orphans] = await query(
        target.url,
        'select count(*)::int as n from orders o left join customers c on c.id = o.customer_id where c.id is null',
      );
      expect(orphans.n).toBe(0);
      const foreignKeys = await query(
        target.url,
        "select convalidated from pg_constraint where contype = 'f' and conrelid = 'orders'::regclass",
      );
      expect(foreignKeys).toEqual([{ convalidated: true }]);
      const running = await get(`/api/v1/runs?project_id=${crash.projectId()}&kind=seed_run&status=running`);
      expect(running.body.total).toBe(0);
    },
    180_000,
  );

  it.skipIf(!available)(
    'anonymize run in place: each table untouched or fully anonymised, the tables done named, then completed',
    async () => {
      const target = await database();
      const tables = ['customers', 'employees'];
      // Two tables no key links: two groups, each committed in a transaction of its own.
      for (const table of tables) {
        await query(target.url, `create table ${table} (id int primary key, email text not null)`);
        await query(
          target.url,
          `insert into ${table} select g, 'person-' || g || '@example.com' from generate_series(1, ${ROWS / 2}) g`,
        );
      }
      const config = await post('/api/v1/anonymize/configs', {
        project_id: crash.projectId(),
        connection_id: await connectionTo(target, 'anonymised'),
        name: 'hash the e-mails',
        rules: tables.map((table) => ({ table, column: 'email', transformer: 'hash' })),
      });
      expect(config.status, JSON.stringify(config.body)).toBe(201);
      /** Per table: whether it is anonymised; a table half masked fails here. */
      const anonymised = async () => {
        const state: Record<string, boolean> = {};
        for (const table of tables) {
          const [{ n }] = await query(
            target.url,
            `select count(*)::int as n from ${table} where email like 'person-%'`,
          );
          // A hash is hexadecimal: no anonymised value looks like an original one.
          expect([0, ROWS / 2], `${table} is half anonymised`).toContain(n);
          state[table] = n === 0;
        }
        return state;
      };
      let before = await anonymised();
      const state = async (): Promise<TargetState> =>
        Object.values(await anonymised()).every(Boolean) ? 'after' : 'before';

      const outcomes = await killRepeatedly(
        async () => {
          before = await anonymised();
          return post(`/api/v1/anonymize/configs/${config.body.id}/run`);
        },
        state,
        {
          // Two commits in a run of a few seconds: the later kills may land between them.
          kills: 2,
          laterWithinMs: 3_000,
          // The run that was killed names what it did: the tables it anonymised, the ones it did not.
          async interrupted(run) {
            const now = await anonymised();
            const result = run.result as { tables_done: string[]; tables_not_done: string[] };
            for (const table of tables.filter((t) => !before[t])) {
              const name = `public.${table}`;
              if (now[table]) {
                expect(result.tables_done).toContain(name);
                expect(run.error).toContain(name);
              } else expect(result.tables_done).not.toContain(name);
            }
          },
        },
      );
      console.log(`kill -9 during anonymize run: ${outcomes.join('; ')}`);
      expect(await anonymised()).toEqual({ customers: true, employees: true });
    },
    180_000,
  );

  const noPrivateServer = privatePostgresMissing();
  if (noPrivateServer) console.warn(`\n*** SKIPPED the target restart test: ${noPrivateServer} ***\n`);

  it.skipIf(!available || noPrivateServer !== undefined)(
    'target database restarted mid-run: each run fails with a classified error, nothing half done, then completes',
    async () => {
      const server = await startPrivatePostgres();
      const rows = ROWS;
      const count = async (sql: string) => Number((await query(server.url, sql))[0].n);
      /** Starts a run, restarts the server within it, and returns the run as it ended. */
      const restartDuring = async (
        what: string,
        start: () => Promise<{ status: number; body: { id: string } }>,
      ) => {
        const started = await start();
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        await until(started.body.id, ['running'], 20_000);
        // pg_ctl itself takes some 100 ms to stop it: the runs are sized to outlast that.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 200)));
        await server.crash();
        await server.start();
        const ended = await until(started.body.id, ['failed', 'succeeded'], 30_000);
        console.log(`target restarted during ${what}: ${ended.status} (${ended.error})`);
        // The restart came within the run: it failed, saying why in the driver's classified words.
        expect(ended.status).toBe('failed');
        expect(ended.error, crash.workerOutput().slice(-4000)).not.toMatch(/Internal error|interrupted/);
        expect(ended.error).toMatch(/connection_lost|connection was lost|refused|unreachable/i);
        return ended;
      };
      /** Runs it again: the worker's pools must not hand it a connection the restart killed. */
      const completes = async (start: () => Promise<{ status: number; body: { id: string } }>) => {
        const retried = await start();
        expect(retried.status, JSON.stringify(retried.body)).toBe(202);
        expect((await until(retried.body.id, ['failed', 'succeeded'], 60_000)).error).toBeNull();
      };
      try {
        await query(
          server.url,
          `create table accounts (id int primary key, n int not null);
           insert into accounts select g, 0 from generate_series(1, ${rows}) g;
           create table customers (id int primary key, name text not null);
           create table orders (id int primary key, customer_id int not null references customers (id), total int not null);
           create table people (id int primary key, email text not null);
           create table staff (id int primary key, email text not null);
           insert into people select g, 'person-' || g from generate_series(1, ${rows}) g;
           insert into staff select g, 'person-' || g from generate_series(1, ${rows}) g;`,
        );
        const connectionId = await connectionTo(server, 'restarted');

        // A patch: one transaction, rolled back by the crash; the patch can run again.
        const patch = await post('/api/v1/patches', {
          project_id: crash.projectId(),
          connection_id: connectionId,
          title: 'bump every account while the server restarts',
          sql: 'UPDATE accounts SET n = n + 1 WHERE id > 0',
        });
        expect(patch.status, JSON.stringify(patch.body)).toBe(201);
        const execute = () => post(`/api/v1/patches/${patch.body.id}/execute`);
        await restartDuring('patch execute', execute);
        expect(await count('select sum(n)::int8 as n from accounts')).toBe(0);
        expect((await get(`/api/v1/patches/${patch.body.id}`)).body.status).toBe('failed');
        await completes(execute);
        expect(await count('select sum(n)::int8 as n from accounts')).toBe(rows);

        // A seed run: every table in one transaction, nothing written.
        const scenario = await post('/api/v1/seed/scenarios', {
          project_id: crash.projectId(),
          connection_id: connectionId,
          name: 'seeded while the server restarts',
          seed: 7,
          definition: {
            tables: [
              { table: 'customers', rows: rows / 4 },
              { table: 'orders', rows },
            ],
          },
        });
        expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);
        const seed = () => post(`/api/v1/seed/scenarios/${scenario.body.id}/run`);
        await restartDuring('seed run', seed);
        expect(
          await count('select (select count(*) from customers) + (select count(*) from orders) as n'),
        ).toBe(0);
        await completes(seed);
        expect(await count('select count(*) as n from orders')).toBe(rows);

        // An anonymization: each table untouched or fully anonymised, as the run says.
        const config = await post('/api/v1/anonymize/configs', {
          project_id: crash.projectId(),
          connection_id: connectionId,
          name: 'hashed while the server restarts',
          rules: ['people', 'staff'].map((table) => ({ table, column: 'email', transformer: 'hash' })),
        });
        expect(config.status, JSON.stringify(config.body)).toBe(201);
        const anonymize = () => post(`/api/v1/anonymize/configs/${config.body.id}/run`);
        const ended = await restartDuring('anonymize run', anonymize);
        for (const table of ['people', 'staff']) {
          const left = await count(`select count(*) as n from ${table} where email like 'person-%'`);
          expect([0, rows], `${table} is half anonymised`).toContain(left);
          const named = (ended.result as { tables_done: string[] }).tables_done.includes(`public.${table}`);
          expect(named, `${table} is ${left === 0 ? '' : 'not '}anonymised`).toBe(left === 0);
        }
        await completes(anonymize);
        for (const table of ['people', 'staff'])
          expect(await count(`select count(*) as n from ${table} where email like 'person-%'`)).toBe(0);
      } finally {
        await server.destroy();
      }
    },
    180_000,
  );
});
