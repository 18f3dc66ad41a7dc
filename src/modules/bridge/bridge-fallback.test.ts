// A bridge run into a MariaDB server whose `local_infile` is off: the rows arrive as
// multi-row INSERT batches instead of LOAD DATA LOCAL, the copy is complete (checksums equal, keys
// checked), and the run's result says `insert_batches`. The server setting is global: it is turned
// off only for the run and restored whatever happens, so that other suites see it as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('bridge INSERT fallback (bridge-fallback.test.ts)');

const SCHEMA = `
  create table parent (id int primary key, name varchar(50) not null, flag tinyint(1), payload blob);
  create table child (id int primary key, parent_id int not null, note text,
    constraint child_parent foreign key (parent_id) references parent (id));
`;
const DATA = `
  insert into parent select seq, concat('ñame ', seq), seq % 2, unhex(hex(seq)) from seq_1_to_1500;
  insert into child select seq, 1 + seq % 1500, if(seq % 4 = 0, '', concat('tab\there ', seq)) from seq_1_to_4000;
`;

describe.skipIf(!engines.mysql.up)('bridge into a server with local_infile off', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];
  const urls: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({
      org: 'Bridge fallback org',
      project: 'Fallback',
    }));
    for (const [name, sql] of [
      ['source', SCHEMA + DATA],
      ['target', SCHEMA],
    ] as const) {
      const created = await engines.mysql.create();
      databases.push(created);
      await engines.mysql.load(created.url, sql);
      urls[name] = created.url;
      const connection = await owner.post(
        `${API}/connections`,
        connectionBody(projectId, created.url, { name }),
      );
      expect(connection.status).toBe(201);
      ids[name] = connection.body.id;
    }
  });
  afterAll(() => closeSuite(t, databases));

  it('copies with multi-row INSERT batches and says so in the result', async () => {
    const [setting] = await engines.mysql.query(urls.target!, 'select @@global.local_infile as on_');
    const was = Number(setting!.on_);
    let run: Awaited<ReturnType<typeof waitForRun>>;
    await engines.mysql.query(urls.target!, 'set global local_infile = 0');
    try {
      const answer = await owner.post(`${API}/projects/${projectId}/bridge/run`, {
        source_connection_id: ids.source,
        target_connection_id: ids.target,
      });
      expect(answer.status).toBe(202);
      run = await waitForRun(owner, answer.body.id, ['succeeded', 'failed', 'cancelled']);
    } finally {
      await engines.mysql.query(urls.target!, `set global local_infile = ${was}`);
    }
    expect(run.error).toBeNull();
    expect(run.result).toMatchObject({
      tables: [
        { table: 'parent', rows: 1500 },
        { table: 'child', rows: 4000 },
      ],
      load_method: 'insert_batches',
    });
    for (const table of ['parent', 'child'])
      expect(await tableChecksum(urls.target!, table)).toEqual(await tableChecksum(urls.source!, table));
    const [checks] = await engines.mysql.query(urls.target!, 'select @@foreign_key_checks as on_');
    expect(Number(checks!.on_)).toBe(1);
  });
});
