// Tables loading side by side (bridge-tables.ts) and what the load sets aside for its speed, on the
// real PostgreSQL test server: while one table waits, the others load and their foreign keys come
// back valid; a replaced table's plain indexes are dropped for the load and are there again after
// it, also when it fails (the load transaction rolls back with them); the keys a killed run had
// set aside are put back by its interrupted hook from the run's journal.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PG_DATA, PG_SCHEMA, shopChecksums } from '../../../test/support/bridge-shop.ts';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { findRunById } from '../runs/runs.repo.ts';

const engines = await targetEngines('bridge in parallel (bridge-parallel.test.ts)');

// A table no key links, with the most rows: the first to start, so the one a lock holds up.
const LOG = `create table audit_log (id integer primary key, note text);
  create index line_qty on line (qty); create index orders_placed on orders (placed_at);`;
const LOG_DATA = `insert into audit_log select i, 'event ' || i from generate_series(1, 5000) i; analyze;`;
const KEYS_SQL = `select conname as name, convalidated as valid from pg_constraint where contype = 'f' order by 1`;
const INDEXES_SQL = `select i.relname as name, x.indisvalid as valid from pg_index x join pg_class i on i.oid = x.indexrelid
  where i.relname in ('line_qty', 'orders_placed') order by 1`;

describe.skipIf(!engines.postgresql.up)('bridge: tables side by side', () => {
  const suite = bridgeSuite({ org: 'Bridge lanes org', project: 'Lanes' }, async ({ database }) => {
    await database('pg_source', engines.postgresql, PG_SCHEMA + LOG + PG_DATA + LOG_DATA);
    await database('pg_target', engines.postgresql, PG_SCHEMA + LOG);
    await database(
      'pg_failing',
      engines.postgresql,
      `${PG_SCHEMA + LOG} alter table line add constraint small_qty check (qty < 30);
      insert into customer (name) values ('kept'); insert into orders (customer_id) values (1);
      insert into line values (1, 1, 5, 'kept');`,
    );
  });
  const { urls, ids, bridge, finished } = suite;
  const pg_ = (name: string, sql: string) => engines.postgresql.query(urls[name]!, sql);

  it('loads the other tables while one waits, their keys back and valid before it is in', async () => {
    const lock = new pg.Client({ connectionString: urls.pg_target });
    await lock.connect();
    try {
      await lock.query('begin; lock table audit_log in access exclusive mode');
      const started = await bridge({
        source_connection_id: ids.pg_source,
        target_connection_id: ids.pg_target,
      });
      expect(started.status).toBe(202);
      // Loaded one after the other, nothing would be in while the first table waits.
      for (let i = 0; ; i++) {
        const [counts] = await pg_(
          'pg_target',
          `select (select count(*)::int from line) as lines,
             (select count(*)::int from pg_constraint where contype = 'f' and convalidated) as valid_keys`,
        );
        if (counts!.lines === 600 && counts!.valid_keys === 2) break;
        if (i > 400)
          throw new Error(`the other tables did not load while audit_log waited: ${JSON.stringify(counts)}`);
        await sleep(50);
      }
      const waiting = await lock.query(
        `select count(*)::int as n from pg_locks where not granted and relation = 'audit_log'::regclass`,
      );
      expect(waiting.rows[0].n).toBe(1);
      await lock.query('commit');
      const run = await finished(started.body.id);
      expect(run.error).toBeNull();
      // In the plan's order whatever order they committed in.
      expect(run.result.tables_done).toEqual([
        'public.audit_log',
        'public.customer',
        'public.orders',
        'public.line',
      ]);
    } finally {
      await lock.end();
    }
    expect(await shopChecksums(urls.pg_target!)).toEqual(await shopChecksums(urls.pg_source!));
    expect(await pg_('pg_target', 'select count(*)::int as n from audit_log')).toEqual([{ n: 5000 }]);
    expect(await pg_('pg_target', KEYS_SQL)).toEqual([
      { name: 'line_order_id_fkey', valid: true },
      { name: 'orders_customer_id_fkey', valid: true },
    ]);
    expect(await pg_('pg_target', INDEXES_SQL)).toEqual([
      { name: 'line_qty', valid: true },
      { name: 'orders_placed', valid: true },
    ]);
  });

  it('a load that fails leaves its table as it was, plain indexes included, and names the table, line and row key', async () => {
    const before = await shopChecksums(urls.pg_failing!);
    const started = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_failing,
    });
    const run = await finished(started.body.id);
    expect(run.status).toBe('failed');
    // PostgreSQL names the line; the run adds which row it is (its key), read again from what it sent.
    expect(run.error).toMatch(/small_qty.*COPY line, line \d+: .*, row key \(order_id, n\) = \(\d+, 3\)\)$/);
    expect(run.result.tables_not_done).toContain('public.line');
    const [, , lines] = await shopChecksums(urls.pg_failing!);
    expect(lines).toEqual(before[2]);
    expect(await pg_('pg_failing', INDEXES_SQL)).toEqual([
      { name: 'line_qty', valid: true },
      { name: 'orders_placed', valid: true },
    ]);
    expect(await pg_('pg_failing', KEYS_SQL)).toEqual([
      { name: 'line_order_id_fkey', valid: true },
      { name: 'orders_customer_id_fkey', valid: true },
    ]);
  });

  it('puts back the keys a killed run had set aside, from its journal, and validates them', async () => {
    const started = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
    });
    const run = await finished(started.body.id);
    expect(run.error).toBeNull();
    // What a run killed during its load leaves: its keys dropped, and the journal it wrote first.
    await pg_(
      'pg_target',
      'alter table line drop constraint line_order_id_fkey; alter table orders drop constraint orders_customer_id_fkey',
    );
    const journal = {
      tables: [],
      tables_done: [],
      tables_not_done: ['public.customer', 'public.orders', 'public.line'],
      keys_set_aside: [
        {
          table: '"public"."orders"',
          name: 'orders_customer_id_fkey',
          add: [
            'ALTER TABLE "public"."orders" ADD CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "public"."customer" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION NOT VALID',
          ],
          validate: 'ALTER TABLE "public"."orders" VALIDATE CONSTRAINT "orders_customer_id_fkey"',
        },
        {
          table: '"public"."line"',
          name: 'line_order_id_fkey',
          add: [
            'ALTER TABLE "public"."line" ADD CONSTRAINT "line_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "public"."orders" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION NOT VALID',
          ],
          validate: 'ALTER TABLE "public"."line" VALIDATE CONSTRAINT "line_order_id_fkey"',
        },
      ],
    };
    const db = suite.t.store.db;
    await db
      .updateTable('runs')
      .set({ status: 'failed', error: 'interrupted', result: JSON.stringify(journal) })
      .where('id', '=', started.body.id)
      .execute();
    await suite.t.composition.runKinds
      .get('bridge_run')
      ?.interrupted?.((await findRunById(db, started.body.id))!);
    expect(await pg_('pg_target', KEYS_SQL)).toEqual([
      { name: 'line_order_id_fkey', valid: true },
      { name: 'orders_customer_id_fkey', valid: true },
    ]);
    const settled = (await findRunById(db, started.body.id))!;
    expect(settled.error).toMatch(
      /foreign keys it had set aside are back \(orders_customer_id_fkey, line_order_id_fkey\)$/,
    );
    expect(settled.result).not.toHaveProperty('keys_set_aside');
  });
});
