// A seed run whose process died (seed-interrupted.ts) says whether it seeded everything or nothing:
// without a report of its COMMIT nothing was committed; with one, the target's server tells whether
// the COMMIT landed. Deterministic: the kill -9 test (test/e2e/crash-safety-data.test.ts) rarely
// lands inside a COMMIT.
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

describe.skipIf(!available)('settling a seed run that was interrupted', () => {
  let t: TestApp;
  let owner: Client;
  let target: TestPgDatabase;
  let scenarioId: string;

  beforeAll(async () => {
    // Runs are recorded, not worked: each is made the one a dead process left.
    let projectId: string;
    let connectionId: string;
    ({ t, owner, projectId, target, connectionId } = await projectOnTarget(
      'Seed interrupted',
      'create table people (id int primary key, name text not null)',
    ));
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

  const transaction = (end: 'COMMIT' | 'ROLLBACK') => targetTransaction(target.url, end);
  const settled = (reported: Record<string, unknown> | null) =>
    settledAfterKill(t, owner, 'seed_run', `${API}/seed/scenarios/${scenarioId}/run`, reported);
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
