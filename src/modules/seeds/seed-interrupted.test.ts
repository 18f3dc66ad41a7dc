// A seed run whose process died (seed-interrupted.ts) says whether it seeded everything or nothing:
// without a report of its COMMIT nothing was committed; with one, the target's server tells whether
// the COMMIT landed. Deterministic: the kill -9 test (test/e2e/crash-safety-data.test.ts) rarely
// lands inside a COMMIT.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../../../test/support/databases.ts';
import { closeSuite } from '../../../test/support/worker-runs.ts';
import { findRunById } from '../runs/runs.repo.ts';

const API = '/api/v1';
const available = await pgAvailable();

describe.skipIf(!available)('settling a seed run that was interrupted', () => {
  let t: TestApp;
  let owner: Client;
  let target: TestPgDatabase;
  let scenarioId: string;

  beforeAll(async () => {
    // Runs are recorded, not worked: each is made the one a dead process left.
    t = await createTestApp();
    ({ owner } = await t.createOrg('Seed interrupted'));
    const projectId = (await owner.post(`${API}/projects`, { name: 'Settled' })).body.id;
    target = (await createTestPgDatabase()) as TestPgDatabase;
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query('create table people (id int primary key, name text not null)');
    await client.end();
    const connectionId = (await owner.post(`${API}/connections`, connectionBody(projectId, target.url))).body
      .id;
    const scenario = await owner.post(`${API}/seed/scenarios`, {
      project_id: projectId,
      connection_id: connectionId,
      name: 'people',
      seed: 1,
      definition: { tables: [{ table: 'people', rows: 10 }] },
    });
    expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);
    scenarioId = scenario.body.id;
  });
  afterAll(() => closeSuite(t, target ? [target] : []));

  /** The id of a target transaction that ended as `end` says. */
  async function transaction(end: 'COMMIT' | 'ROLLBACK'): Promise<string> {
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT txid_current()::text AS id');
    await client.query(end);
    await client.end();
    return rows[0].id;
  }

  async function settled(reported: Record<string, unknown> | null) {
    const started = await owner.post(`${API}/seed/scenarios/${scenarioId}/run`);
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    await t.store.db
      .updateTable('runs')
      .set({
        status: 'failed',
        error: 'interrupted: the process working this run stopped',
        result: reported && JSON.stringify(reported),
      })
      .where('id', '=', id)
      .execute();
    const run = await findRunById(t.store.db, id);
    await t.composition.runKinds.get('seed_run')?.interrupted?.(run!);
    return (await owner.get(`${API}/runs/${id}`)).body;
  }
  const committing = (transaction: string | null) => ({
    tables: [{ table: 'public.people', rows: 10 }],
    rows_total: 10,
    committing: { transaction },
  });

  it('killed before its commit: nothing was written', async () => {
    const run = await settled(null);
    expect(run.error).toMatch(/before its commit; nothing was written$/);
    expect(run.result).toEqual({ tables: [], rows_total: 0 });
  });

  it('killed during a commit that landed: every table seeded, and running it again would seed twice', async () => {
    const run = await settled(committing(await transaction('COMMIT')));
    expect(run.error).toMatch(/every table was seeded \(10 rows\); running it again would seed them again/);
    expect(run.result).toEqual({ tables: [{ table: 'public.people', rows: 10 }], rows_total: 10 });
  });

  it('killed during a commit that did not land, or that cannot be asked about', async () => {
    expect((await settled(committing(await transaction('ROLLBACK')))).error).toMatch(
      /did not land; nothing was written/,
    );
    expect((await settled(committing(null))).error).toMatch(/cannot tell whether it landed/);
  });
});
