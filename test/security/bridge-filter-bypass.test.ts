// Found from outside: a bridge filter could leave its parentheses. `id > 0) OR (true` was accepted
// (checked wrapped as `WHERE (<filter>)`) and embedded as `(filter) AND <subset>`, so the subset's
// condition was bypassed and rows outside the subset were copied. A filter must now parse alone as
// one complete expression and is written into the copy from its parsed form (docs/contract.md §9.3); MySQL
// filters are read as the server reads them, which also takes columns named by non-reserved
// keywords (`status`, `orders.status`), refused before with a parse error. On real PostgreSQL and
// MariaDB.
import { describe, expect, it } from 'vitest';
import { bridgeSuite } from '../support/bridge-suite.ts';
import { targetEngines } from '../support/engines.ts';

const engines = await targetEngines('bridge filter bypass (test/security/bridge-filter-bypass.test.ts)');
const up = engines.postgresql.up && engines.mysql.up;

const schema = (text: string) => `
  create table customer (id int primary key, name ${text});
  create table orders (id int primary key, customer_id int not null references customer (id),
    status ${text} not null);
`;
// Customer 1 has orders 1 (paid) and 2 (open); customer 2 has order 3 (paid); customer 3 none.
const DATA = `
  insert into customer values (1, 'ann'), (2, 'bob'), (3, 'cy');
  insert into orders values (1, 1, 'paid'), (2, 1, 'open'), (3, 2, 'paid');
`;

describe.skipIf(!up)('bridge filters stay one expression', () => {
  const suite = bridgeSuite({ org: 'Filter bypass org', project: 'Filter bypass' }, async ({ database }) => {
    await database('pg_source', engines.postgresql, schema('text') + DATA);
    await database('pg_target', engines.postgresql, schema('text'));
    await database('my_source', engines.mysql, schema('varchar(20)') + DATA);
    await database('my_target', engines.mysql, schema('varchar(20)'));
  });
  const { urls, ids, bridge, finished } = suite;
  const sides = [
    { engine: 'postgresql', source: 'pg_source', target: 'pg_target' },
    { engine: 'mysql', source: 'my_source', target: 'my_target' },
  ] as const;
  const idsIn = async (side: (typeof sides)[number], table: string) =>
    (await engines[side.engine].query(urls[side.target]!, `select id from ${table} order by id`)).map((r) =>
      Number(r.id),
    );

  describe.each(sides)('$engine', (side) => {
    it.each(['id > 0) OR (true', 'id > 0 --\n) OR (true', 'id > 0 /*) OR (true*/'])(
      'a filter that would close the parentheses around it (%j) copies nothing outside the subset',
      async (breakout) => {
        const answer = await bridge({
          source_connection_id: ids[side.source],
          target_connection_id: ids[side.target],
          subset: { table: 'customer', where: 'id = 1' },
          filters: { customer: breakout },
        });
        if (answer.status === 202) {
          // Accepted only if it is read as what it says, inside the subset: never customers 2 and 3.
          const run = await finished(answer.body.id);
          expect(run.status).toBe('succeeded');
          expect(await idsIn(side, 'customer')).toEqual([1]);
        } else {
          expect(answer.status).toBe(422);
          expect(answer.body.detail[0].loc).toEqual(['body', 'filters', 'customer']);
        }
      },
    );

    it.each(['id > 0) OR (true', 'true) OR (1 = 1'])(
      'a subset condition that would close its parentheses (%j) is refused',
      async (breakout) => {
        const answer = await bridge({
          source_connection_id: ids[side.source],
          target_connection_id: ids[side.target],
          subset: { table: 'customer', where: breakout, percent: 50 },
        });
        expect(answer.status).toBe(422);
        expect(answer.body.detail[0].loc).toEqual(['body', 'subset', 'where']);
      },
    );

    it.each(["status = 'paid'", "orders.status = 'paid'"])(
      'a column named by a non-reserved keyword (%s) filters the copy',
      async (filter) => {
        const answer = await bridge({
          source_connection_id: ids[side.source],
          target_connection_id: ids[side.target],
          filters: { orders: filter },
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        const run = await finished(answer.body.id);
        expect(run.status, String(run.error)).toBe('succeeded');
        expect(await idsIn(side, 'orders')).toEqual([1, 3]);
        expect(await idsIn(side, 'customer')).toEqual([1, 2, 3]);
      },
    );
  });

  it('a filter longer than 4,000 characters is refused by the schema', async () => {
    const answer = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      filters: { customer: `id > ${'1'.repeat(4000)}` },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'filters', 'customer']);
  });
});
