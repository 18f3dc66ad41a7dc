// The target's foreign keys among the copied tables are set aside during a PostgreSQL load and put
// back after: as they were (MATCH FULL, deferrability, their comment), validated, so a copy never
// makes the target drift from its own schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('bridge keys (bridge-keys.test.ts)');

const SCHEMA = `
  create table parent (a int, b int, primary key (a, b));
  create table child (id int primary key, a int, b int,
    constraint child_parent_fk foreign key (a, b) references parent (a, b) match full
      on delete cascade deferrable initially deferred);
  comment on constraint child_parent_fk on child is 'Both or neither';
`;
const KEY = `
  select confmatchtype as match, condeferrable as deferrable, condeferred as deferred,
    convalidated as validated, confdeltype as on_delete, obj_description(oid, 'pg_constraint') as comment
  from pg_constraint where conname = 'child_parent_fk'`;

describe.skipIf(!engines.postgresql.up)('bridge: the target keys put back as they were', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];
  let targetUrl: string;
  const ids: string[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Keys org', project: 'Keys' }));
    for (const [name, data] of [
      [
        'source',
        'insert into parent values (1, 1), (2, 2); insert into child values (1, 1, 1), (2, null, null);',
      ],
      ['target', ''],
    ]) {
      const created = await engines.postgresql.create();
      databases.push(created);
      await engines.postgresql.load(created.url, SCHEMA + data);
      if (name === 'target') targetUrl = created.url;
      const connection = await owner.post(
        `${API}/connections`,
        connectionBody(projectId, created.url, { name }),
      );
      expect(connection.status).toBe(201);
      ids.push(connection.body.id);
    }
  });
  afterAll(() => closeSuite(t, databases));

  it('keeps MATCH FULL, deferrability, the delete action and the comment of a key it set aside', async () => {
    const before = await engines.postgresql.query(targetUrl, KEY);
    const answer = await owner.post(`${API}/projects/${projectId}/bridge/run`, {
      source_connection_id: ids[0],
      target_connection_id: ids[1],
      mode: 'replace',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const run = await waitForRun(owner, answer.body.id, ['succeeded', 'failed', 'cancelled']);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(await engines.postgresql.query(targetUrl, KEY)).toEqual(before);
    expect(before).toEqual([
      {
        match: 'f',
        deferrable: true,
        deferred: true,
        validated: true,
        on_delete: 'c',
        comment: 'Both or neither',
      },
    ]);
    expect(Number((await engines.postgresql.query(targetUrl, 'select count(*) as n from child'))[0]?.n)).toBe(
      2,
    );
  });
});
