// Bridge runs that fail, are cancelled or are refused, on the real PostgreSQL test server: a failed
// run names what it did and the next run of the same body completes only the rest, a cancelled run
// rolls back the table it was loading, every refusal (422, 409, 404, 403, 401) writes nothing, a
// production target waits for approval, and the endpoint's own rate limit.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PG_SCHEMA, postgresShops, shopChecksums } from '../../../test/support/bridge-shop.ts';
import { bridgeSuite } from '../../../test/support/bridge-suite.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { expectFivePerMinute } from '../../../test/support/endpoint-limits.ts';
import { targetEngines } from '../../../test/support/engines.ts';

const API = '/api/v1';
const engines = await targetEngines('bridge failures (bridge-failures.test.ts)');

describe.skipIf(!engines.postgresql.up)('bridge runs that fail or are refused', () => {
  const suite = bridgeSuite({ org: 'Bridge failures org', project: 'Bridge' }, async ({ database }) => {
    await postgresShops(database, engines.postgresql);
  });
  const { urls, ids, database, bridge, finished } = suite;
  const checksums = (name: string) => shopChecksums(urls[name]!);

  it('a failed run names what it did; the next run of the same body completes only the rest', async () => {
    await engines.postgresql.query(urls.pg_target!, 'truncate line, orders, customer');
    await engines.postgresql.query(
      urls.pg_target!,
      'alter table line add constraint small_qty check (qty < 30)',
    );
    const body = { source_connection_id: ids.pg_source, target_connection_id: ids.pg_target, mode: 'append' };
    const failed = await finished((await bridge(body)).body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/after public.customer, public.orders.*small_qty/);
    expect(failed.result).toMatchObject({
      tables_done: ['public.customer', 'public.orders'],
      tables_not_done: ['public.line'],
    });
    // The keys are back, valid, after the failure.
    const keys = await engines.postgresql.query(
      urls.pg_target!,
      "select bool_and(convalidated) as ok, count(*)::int as n from pg_constraint where contype = 'f'",
    );
    expect(keys).toEqual([{ ok: true, n: 2 }]);

    await engines.postgresql.query(urls.pg_target!, 'alter table line drop constraint small_qty');
    const resumed = await finished((await bridge(body)).body.id);
    expect(resumed.error).toBeNull();
    expect(resumed.result.tables).toEqual([
      { table: 'public.customer', rows: 50 },
      { table: 'public.orders', rows: 200 },
      { table: 'public.line', rows: 600 },
    ]);
    expect(await checksums('pg_target')).toEqual(await checksums('pg_source'));
  });

  it('a cancelled run stops at a batch boundary: the table it was loading rolls back, keys intact, the result names the tables not done', async () => {
    const before = await checksums('pg_target');
    const lock = new pg.Client({ connectionString: urls.pg_target });
    await lock.connect();
    try {
      // The run waits on this lock while taking the keys out of the way, which leaves time to cancel it.
      await lock.query('begin; lock table line in access exclusive mode');
      const started = await bridge({
        source_connection_id: ids.pg_source,
        target_connection_id: ids.pg_target,
      });
      expect(started.status).toBe(202);
      for (let i = 0; ; i++) {
        // A wait on this very table: other suites on the same server wait on locks of their own.
        const waiting = await lock.query(
          `select count(*)::int as n from pg_locks where not granted and relation = 'line'::regclass
             and database = (select oid from pg_database where datname = current_database())`,
        );
        if (waiting.rows[0].n > 0) break;
        if (i > 200) throw new Error('the run never waited on the lock');
        await sleep(50);
      }
      expect((await suite.owner.post(`${API}/runs/${started.body.id}/cancel`)).status).toBe(200);
      await lock.query('commit');
      const run = await finished(started.body.id);
      expect(run.status).toBe('cancelled');
      // The cancelled run names what it finished and what it did not (docs/contract.md §9.3), for a rerun to complete.
      expect(run.result).toMatchObject({
        tables: [],
        rows_total: 0,
        tables_done: [],
        tables_not_done: ['public.customer', 'public.orders', 'public.line'],
      });
    } finally {
      await lock.end();
    }
    expect(await checksums('pg_target')).toEqual(before);
    const keys = await engines.postgresql.query(
      urls.pg_target!,
      "select count(*)::int as n, bool_and(convalidated) as ok from pg_constraint where contype = 'f'",
    );
    expect(keys).toEqual([{ n: 2, ok: true }]);
  });

  it('fails before writing when the target account may not take the foreign keys out of the way', async () => {
    const role = `dbops_bridge_${randomUUID().slice(0, 8)}`;
    await engines.postgresql.query(
      urls.pg_target!,
      `create role ${role} login; grant usage on schema public to ${role};
       grant select, insert, update, delete, truncate on all tables in schema public to ${role};
       grant usage, select, update on all sequences in schema public to ${role};`,
    );
    try {
      const url = new URL(urls.pg_target!);
      url.username = role;
      const connection = await suite.owner.post(
        `${API}/connections`,
        connectionBody(suite.projectId, url.toString(), { name: role }),
      );
      const before = await checksums('pg_target');
      const run = await finished(
        (
          await bridge({
            source_connection_id: ids.pg_source,
            target_connection_id: connection.body.id,
            mode: 'append',
          })
        ).body.id,
      );
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(
        /may not drop and re-add the foreign keys.*must own the tables.*nothing was written/,
      );
      expect(await checksums('pg_target')).toEqual(before);
      await suite.owner.delete(`${API}/connections/${connection.body.id}`);
    } finally {
      await engines.postgresql
        .query(urls.pg_target!, `drop owned by ${role}; drop role ${role};`)
        .catch(() => {});
    }
  });

  it('refuses bad requests with 422 at their place, and writes nothing', async () => {
    const base = { source_connection_id: ids.pg_source, target_connection_id: ids.pg_target };
    const cases: [Record<string, unknown>, (string | number)[], RegExp][] = [
      [
        { ...base, target_connection_id: ids.pg_source },
        ['body', 'target_connection_id'],
        /different connections/,
      ],
      [
        { ...base, filters: { orders: 'id in (select id from customer)' } },
        ['body', 'filters', 'orders'],
        /subquer/,
      ],
      [
        { ...base, filters: { orders: 'id = 1; drop table orders' } },
        ['body', 'filters', 'orders'],
        /one boolean expression|parse/,
      ],
      [{ ...base, tables: ['nope'] }, ['body', 'tables', 0], /Unknown table nope/],
      [{ ...base, subset: { table: 'orders', percent: 0 } }, ['body', 'subset', 'percent'], /.*/],
      [{ ...base, target_connection_id: ids.pg_empty }, ['body', 'tables'], /.*/],
    ];
    for (const [body, loc, message] of cases.slice(0, 5)) {
      const answer = await bridge(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(loc);
      expect(answer.body.detail[0].msg).toMatch(message);
    }
    // A connection of another project of the organization: 422; of another organization: 404.
    const elsewhere = (await suite.owner.post(`${API}/projects`, { name: 'Elsewhere' })).body.id as string;
    const foreign = await suite.owner.post(
      `${API}/connections`,
      connectionBody(elsewhere, urls.pg_source!, { name: 'foreign' }),
    );
    const otherProject = await bridge({ ...base, source_connection_id: foreign.body.id });
    expect(otherProject.status).toBe(422);
    expect(otherProject.body.detail[0]).toMatchObject({
      loc: ['body', 'source_connection_id'],
      msg: expect.stringMatching(/another project/),
    });
    const stranger = (await suite.t.createOrg('Bridge stranger')).owner;
    const strangerProject = (await stranger.post(`${API}/projects`, { name: 'Theirs' })).body.id as string;
    const theirs = await stranger.post(
      `${API}/connections`,
      connectionBody(strangerProject, urls.pg_source!, { name: 'theirs' }),
    );
    expect(theirs.status).toBe(201);
    expect((await bridge({ ...base, source_connection_id: theirs.body.id })).status).toBe(404);
    // Two connection records of one database.
    const alias = await suite.owner.post(
      `${API}/connections`,
      connectionBody(suite.projectId, urls.pg_source!, { name: 'alias' }),
    );
    const same = await bridge({ ...base, target_connection_id: alias.body.id });
    expect(same.status).toBe(422);
    expect(same.body.detail[0].msg).toMatch(/same database/);
  });

  it('answers 409 while another copy writes into the target', async () => {
    const started = await bridge({
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_target,
      tables: ['customer'],
    });
    expect(started.status).toBe(202);
    // The copy of one small table may end before a second request arrives: once it has ended, the
    // store is made to say it is still writing, so that the second request meets it whatever the
    // machine's speed.
    const ended = await finished(started.body.id);
    const setStatus = (status: 'running' | typeof ended.status) =>
      suite.t.store.db.updateTable('runs').set({ status }).where('id', '=', started.body.id).execute();
    await setStatus('running');
    try {
      const second = await bridge({
        source_connection_id: ids.pg_source,
        target_connection_id: ids.pg_target,
        tables: ['orders'],
      });
      expect(second.status).toBe(409);
      expect(second.body.detail).toMatch(/into this target/);
    } finally {
      await setStatus(ended.status);
    }
  });

  it('answers more concurrent requests on one source than its pool has clients, none waiting on another', async () => {
    // Each request reads both schemas before it is refused (an unknown table); reading one once held
    // a client while asking the pool for a second, so a pool's worth of requests at once waited on
    // each other until the connect timeout and answered 502.
    const body = {
      source_connection_id: ids.pg_source,
      target_connection_id: ids.pg_empty,
      tables: ['nope'],
    };
    const answers = await Promise.all(Array.from({ length: 6 }, () => bridge(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(422));
  });

  it('waits for approval when the target is production', async () => {
    await database('pg_prod', engines.postgresql, PG_SCHEMA, 'production');
    const started = await bridge({ source_connection_id: ids.pg_source, target_connection_id: ids.pg_prod });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('awaiting_approval');
    expect(started.body.approval_id).toEqual(expect.any(String));
  });

  it('answers 401, 403 to viewers and read-only keys, 404 to another organization', async () => {
    const body = { source_connection_id: ids.pg_source, target_connection_id: ids.pg_target };
    expect((await bridge(body, suite.t.anonymous)).status).toBe(401);
    const { orgId } = await suite.t.store.db
      .selectFrom('projects')
      .select('org_id as orgId')
      .where('id', '=', suite.projectId)
      .executeTakeFirstOrThrow();
    const viewer = await suite.t.createUser(orgId, 'member');
    await suite.owner.post(`${API}/projects/${suite.projectId}/members`, {
      user_id: viewer.user.id,
      role: 'viewer',
    });
    expect((await bridge(body, viewer)).status).toBe(403);
    const reader = await suite.t.keyClient(suite.owner, ['read']);
    expect((await bridge(body, reader)).status).toBe(403);
    const other = (await suite.t.createOrg('Other bridge org')).owner;
    expect((await bridge(body, other)).status).toBe(404);
    const developer = await suite.t.createUser(orgId, 'member');
    await suite.owner.post(`${API}/projects/${suite.projectId}/members`, {
      user_id: developer.user.id,
      role: 'developer',
    });
    const allowed = await bridge({ ...body, tables: ['nope'] }, developer);
    expect(allowed.status).toBe(422);
  });
});

describe('the bridge endpoint limit', () => {
  it('limits a user to 5 bridge runs a minute (429 with Retry-After)', () =>
    expectFivePerMinute((owner) =>
      owner.post(`${API}/projects/${randomUUID()}/bridge/run`, {
        source_connection_id: randomUUID(),
        target_connection_id: randomUUID(),
      }),
    ));
});
