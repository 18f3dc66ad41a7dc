// How a patch's before-image is read on MariaDB: the rows it copies are taken for writing at once
// (FOR UPDATE), so the UPDATE after it finds its locks held instead of taking them a second time.
// Seen from another session that holds a shared lock on a matched row: the copy itself waits for
// it, where a plain INSERT … SELECT (whose shared lock is compatible) would pass it and leave the
// wait to the UPDATE. On the real MariaDB.
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('the before-image read of a patch (patch-images.test.ts)');

describe("a patch's before-image read on MariaDB", () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Image locks', project: 'Image locks' }));
  });
  afterAll(() => closeSuite(t, databases));

  it('takes the rows it copies for writing, before the UPDATE runs', {
    skip: !engines.mysql.up,
  }, async () => {
    const engine = engines.mysql;
    const database = await engine.create();
    databases.push(database);
    await engine.load(
      database.url,
      'create table accounts (id int primary key, v int not null); insert into accounts values (1, 10), (2, 20), (3, 30);',
    );
    const connection = await owner.post(
      `${API}/connections`,
      connectionBody(projectId, database.url, { name: 'image locks' }),
    );
    const patch = await owner.post(`${API}/patches`, {
      project_id: projectId,
      connection_id: connection.body.id,
      title: 'Bump',
      sql: 'UPDATE accounts SET v = v + 1 WHERE v >= 0',
    });
    expect(patch.status, JSON.stringify(patch.body)).toBe(201);

    const holder = await mysql.createConnection({ uri: database.url });
    const watcher = await mysql.createConnection({ uri: database.url });
    try {
      await holder.query('start transaction');
      await holder.query('select v from accounts where id = 2 lock in share mode');
      const started = await owner.post(`${API}/patches/${patch.body.id}/execute`, {});
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      // The run's transaction waits on the shared lock: with which statement?
      let waiting = '';
      for (let i = 0; i < 200 && waiting === ''; i++) {
        const [rows] = await watcher.query(
          "select trx_query as query from information_schema.innodb_trx where trx_state = 'LOCK WAIT'",
        );
        waiting = String((rows as { query: string | null }[])[0]?.query ?? '');
        if (waiting === '') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(waiting).toMatch(/^INSERT INTO `_dbops_bak_\w+` .* FOR UPDATE$/s);
      await holder.query('commit');
      const done = await waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
      expect(done.error).toBeNull();
      expect(done.result.affected_rows).toEqual([3]);
    } finally {
      await holder.end();
      await watcher.end();
    }
    const rows = await engine.query(database.url, 'select v from accounts order by id');
    expect(rows.map((r) => r.v)).toEqual([11, 21, 31]);
  });
});
