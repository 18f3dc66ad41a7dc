// Subsets on a graph where the skipped passes matter (bridge-subset.ts): a child pulled in along one
// key that references another parent (whose parent pass must still run), a parent reached from two
// children, a self-referencing table, on both engines, with the exact rows expected; a leaf read
// through its parent's key table (also when the closure pulls in parents of its own), and one that
// must not be, because its parent gains rows as a parent later; and no key table left behind after
// a run, whether it succeeded or failed, nor after a killed one.
import { describe, expect, it } from 'vitest';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { targetEngines } from '../../../test/support/engines.ts';

const engines = await targetEngines('bridge subsets (bridge-subset.test.ts)');
const up = engines.postgresql.up && engines.mysql.up;

// customer 1 has orders 1, 2; customer 2 has order 3; customer 3 none. Lines reference orders and
// products; product 30 is on no line. Employees form a chain 1 ← 2 ← 3 (manager_id), 4 alone;
// orders are taken by an employee.
const schema = (text: string) => `
  create table employee (id int primary key, manager_id int references employee (id), name ${text});
  create table customer (id int primary key, name ${text});
  create table product (id int primary key, name ${text});
  create table orders (id int primary key, customer_id int not null references customer (id),
    employee_id int references employee (id));
  create table line (id int primary key, order_id int not null references orders (id),
    product_id int not null references product (id), note ${text});
`;
const DATA = `
  insert into employee values (1, null, 'boss'), (2, 1, 'lead'), (3, 2, 'clerk'), (4, null, 'other');
  insert into customer values (1, 'ann'), (2, 'bob'), (3, 'cy');
  insert into product values (10, 'p10'), (20, 'p20'), (30, 'p30');
  insert into orders values (1, 1, 3), (2, 1, null), (3, 2, 4);
  insert into line values (100, 1, 10, 'a'), (101, 1, 20, 'b'), (102, 2, 10, 'c'), (103, 3, 20, 'd');
`;
// What a subset starting at customer 1 must hold: its orders and their lines (children), then the
// products of those lines and the employees who took the orders, with their managers (parents),
// but not customer 2, order 3 or employee 4.
const EXPECTED = {
  customer: [1],
  orders: [1, 2],
  line: [100, 101, 102],
  product: [10, 20],
  employee: [1, 2, 3],
};

describe.skipIf(!up)('bridge subsets', () => {
  const suite = bridgeSuite({ org: 'Subset org', project: 'Subsets' }, async ({ database }) => {
    await database('pg_source', engines.postgresql, schema('text') + DATA);
    await database('pg_target', engines.postgresql, schema('text'));
    await database('my_source', engines.mysql, schema('varchar(20)') + DATA);
    await database('my_target', engines.mysql, schema('varchar(20)'));
    // Notes longer than one character do not fit this target: a copy into it fails mid-load.
    await database(
      'my_narrow',
      engines.mysql,
      schema('varchar(20)').replace('note varchar(20)', 'note char(0)'),
    );
  });
  const { urls, ids, database, copied: copy } = suite;
  const idsIn = async (engine: typeof engines.postgresql, url: string, table: string) =>
    (await engine.query(url, `select id from ${table} order by id`)).map((r) => Number(r.id));

  it('PostgreSQL: a leaf read through its parent keeps to it when its own parents come in', async () => {
    // Lines are a leaf: they come from product 10 alone; the orders of those lines come in as their
    // parents, without their other line (101, product 20).
    const run = await copy({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      subset: { table: 'product', where: 'id = 10' },
    });
    expect(run.error).toBeNull();
    const expected = { product: [10], line: [100, 102], orders: [1, 2], customer: [1], employee: [1, 2, 3] };
    for (const [table, rows] of Object.entries(expected))
      expect(await idsIn(engines.postgresql, urls.pg_target!, table), table).toEqual(rows);
    expect(run.result.subset_rows).toEqual({
      'public.product': 1,
      'public.line': 2,
      'public.orders': 2,
      'public.customer': 1,
      'public.employee': 3,
    });
  });

  it('PostgreSQL: a leaf whose parent gains parents-only rows later keeps the rows of before', async () => {
    // A refund of customer 1 is for order 3 (customer 2's): order 3 comes in as a parent of the
    // refund, after the children closure; its line 103 must not come with it.
    const refunds = `
      create table refund (id int primary key, customer_id int not null references customer (id),
        order_id int not null references orders (id));`;
    await database(
      'pg_refund_source',
      engines.postgresql,
      `${schema('text') + refunds + DATA}
      insert into refund values (1, 1, 3);`,
    );
    await database('pg_refund_target', engines.postgresql, schema('text') + refunds);
    const run = await copy({
      source_connection_id: ids.pg_refund_source,
      target_connection_id: ids.pg_refund_target,
      subset: { table: 'customer', where: 'id = 1' },
    });
    expect(run.error).toBeNull();
    const expected = {
      customer: [1, 2],
      orders: [1, 2, 3],
      refund: [1],
      line: [100, 101, 102],
      product: [10, 20],
      employee: [1, 2, 3, 4],
    };
    for (const [table, rows] of Object.entries(expected))
      expect(await idsIn(engines.postgresql, urls.pg_refund_target!, table), table).toEqual(rows);
  });

  for (const [engine, source, target] of [
    ['PostgreSQL', 'pg_source', 'pg_target'],
    ['MariaDB', 'my_source', 'my_target'],
  ] as const) {
    it(`${engine}: children, then every parent of every kept row, and nothing else`, async () => {
      const e = engine === 'PostgreSQL' ? engines.postgresql : engines.mysql;
      const run = await copy({
        source_connection_id: ids[source],
        target_connection_id: ids[target],
        subset: { table: 'customer', where: 'id = 1' },
      });
      expect(run.error).toBeNull();
      for (const [table, expected] of Object.entries(EXPECTED))
        expect(await idsIn(e, urls[target]!, table), table).toEqual(expected);
    });
  }

  it('PostgreSQL: the key tables are temporary, gone with the session', async () => {
    const run = await copy({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      subset: { table: 'orders', percent: 50 },
    });
    expect(run.error).toBeNull();
    const left = await engines.postgresql.query(
      urls.pg_source!,
      "select count(*)::int as n from pg_class where relname like 'dbops\\_bridge\\_%'",
    );
    expect(left).toEqual([{ n: 0 }]);
  });

  it('MariaDB: key tables a killed run left behind are dropped by the next subset', async () => {
    // What a run killed mid-subset leaves: a plain key table named after a run that is not running.
    await engines.mysql.load(
      urls.my_source!,
      'create table `_dbops_bak_bridge_deadbeef_0` (id int primary key)',
    );
    const run = await copy({
      source_connection_id: ids.my_source,
      target_connection_id: ids.my_target,
      subset: { table: 'customer', where: 'id = 2' },
    });
    expect(run.error).toBeNull();
    const left = await engines.mysql.query(
      urls.my_source!,
      "select count(*) as n from information_schema.tables where table_schema = database() and table_name like '\\_dbops\\_bak\\_%'",
    );
    expect(left).toEqual([{ n: 0 }]);
  });

  it('MariaDB: a run that fails while loading drops its key tables too', async () => {
    const run = await copy({
      source_connection_id: ids.my_source,
      target_connection_id: ids.my_narrow,
      subset: { table: 'customer', where: 'id = 1' },
    });
    expect(run.status).toBe('failed');
    expect(run.error).toContain('line');
    const left = await engines.mysql.query(
      urls.my_source!,
      "select count(*) as n from information_schema.tables where table_schema = database() and table_name like '\\_dbops\\_bak\\_%'",
    );
    expect(left).toEqual([{ n: 0 }]);
  });
});
