// An anonymization whose process died (anonymize-interrupted.ts) names what it did from what it
// reported and, for the group it was committing, from the server: a transaction that committed
// counts its tables as anonymised, one that rolled back as untouched, one the engine cannot ask
// about (MySQL: no transaction id recorded) as not known. Deterministic: the kill -9 test
// (test/e2e/crash-safety-data.test.ts) rarely lands inside a COMMIT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { pgAvailable, type TestPgDatabase } from '../../../test/support/databases.ts';
import {
  projectOnTarget,
  settledAfterKill,
  targetTransaction,
} from '../../../test/support/interrupted-runs.ts';
import { closeSuite } from '../../../test/support/worker-runs.ts';

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
    ({ t, owner, projectId, target, connectionId } = await projectOnTarget(
      'Anon interrupted',
      `create table customers (id int primary key, email text not null);
      create table employees (id int primary key, email text not null);
      insert into customers values (1, 'a@example.com'); insert into employees values (1, 'b@example.com');`,
    ));
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

  const transaction = (end: 'COMMIT' | 'ROLLBACK') => targetTransaction(target.url, end);
  /** A run killed while committing the employees' group, after the customers' group was done. */
  const settled = (transactionId: string | null) =>
    settledAfterKill(t, owner, 'anonymize_run', `${API}/anonymize/configs/${configId}/run`, {
      tables: [{ table: 'public.customers', rows: 1 }],
      rows_total: 1,
      tables_done: ['public.customers'],
      tables_not_done: ['public.employees'],
      committing: { tables: [{ table: 'public.employees', rows: 1 }], transaction: transactionId },
    });

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
