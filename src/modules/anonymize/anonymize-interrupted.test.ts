// An anonymization whose process died (anonymize-interrupted.ts) names what it did from what it
// reported and, for the group it was committing, from the server: a transaction that committed
// counts its tables as anonymised, one that rolled back as untouched, one the engine cannot ask
// about (MySQL: no transaction id recorded) as not known. Deterministic: the kill -9 test
// (test/e2e/crash-safety-data.test.ts) rarely lands inside a COMMIT.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../../../test/support/databases.ts';
import { closeSuite } from '../../../test/support/worker-runs.ts';
import { findRunById } from '../runs/runs.repo.ts';

const API = '/api/v1';
const available = await pgAvailable();

describe.skipIf(!available)('settling an anonymization whose run was interrupted', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let target: TestPgDatabase;
  let configId: string;
  let connectionId: string;

  beforeAll(async () => {
    // Runs are recorded, not worked: each is made the one a dead process left.
    t = await createTestApp();
    ({ owner } = await t.createOrg('Anon interrupted'));
    projectId = (await owner.post(`${API}/projects`, { name: 'Settled' })).body.id;
    target = (await createTestPgDatabase()) as TestPgDatabase;
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query(`create table customers (id int primary key, email text not null);
      create table employees (id int primary key, email text not null);
      insert into customers values (1, 'a@example.com'); insert into employees values (1, 'b@example.com');`);
    await client.end();
    connectionId = (await owner.post(`${API}/connections`, connectionBody(projectId, target.url))).body.id;
    const config = await owner.post(`${API}/anonymize/configs`, {
      project_id: projectId,
      connection_id: connectionId,
      name: 'hash',
      rules: ['customers', 'employees'].map((table) => ({ table, column: 'email', transformer: 'hash' })),
    });
    expect(config.status, JSON.stringify(config.body)).toBe(201);
    configId = config.body.id;
  });
  afterAll(() => closeSuite(t, target ? [target] : []));

  /** A transaction of the target that ended as `end` says: its id, as the run records it. */
  async function transaction(end: 'COMMIT' | 'ROLLBACK'): Promise<string> {
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT txid_current()::text AS id');
    await client.query(end);
    await client.end();
    return rows[0].id;
  }

  /** A run killed while committing the employees' group, after the customers' group was done. */
  async function settled(transactionId: string | null) {
    const started = await owner.post(`${API}/anonymize/configs/${configId}/run`);
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    await t.store.db
      .updateTable('runs')
      .set({
        status: 'failed',
        error: 'interrupted: the process working this run stopped',
        result: JSON.stringify({
          tables: [{ table: 'public.customers', rows: 1 }],
          rows_total: 1,
          tables_done: ['public.customers'],
          tables_not_done: ['public.employees'],
          committing: { tables: [{ table: 'public.employees', rows: 1 }], transaction: transactionId },
        }),
      })
      .where('id', '=', id)
      .execute();
    const run = await findRunById(t.store.db, id);
    await t.composition.runKinds.get('anonymize_run')?.interrupted?.(run!);
    return (await owner.get(`${API}/runs/${id}`)).body;
  }

  it('the group whose COMMIT landed counts as anonymised', async () => {
    const run = await settled(await transaction('COMMIT'));
    expect(run.result).toMatchObject({
      tables_done: ['public.customers', 'public.employees'],
      tables_not_done: [],
      rows_total: 2,
    });
    expect(run.error).toBe(
      'interrupted: the process working this run stopped; anonymised: public.customers, public.employees',
    );
  });

  it('the group rolled back counts as untouched', async () => {
    const run = await settled(await transaction('ROLLBACK'));
    expect(run.result).toMatchObject({
      tables_done: ['public.customers'],
      tables_not_done: ['public.employees'],
    });
    expect(run.error).toContain('; anonymised: public.customers; untouched: public.employees');
  });

  it('without a transaction id to ask about (MySQL), the group is named as not known', async () => {
    const run = await settled(null);
    expect(run.result).toMatchObject({
      tables_done: ['public.customers'],
      tables_not_done: [],
      tables_not_known: ['public.employees'],
    });
    expect(run.error).toContain('not known');
  });
});
