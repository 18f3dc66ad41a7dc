// What the tests of a run kind's `interrupted` hook share: a project with a connection to a fresh
// PostgreSQL target, target transactions ended on purpose (whose ids a dying run may have reported),
// and a run made the one a dead process left, then settled by its kind's hook.
import pg from 'pg';
import { expect } from 'vitest';
import type { RunKind } from '../../src/core/vocabulary.ts';
import { findRunById } from '../../src/modules/runs/runs.repo.ts';
import { type Client, createTestApp, type TestApp } from './app.ts';
import { connectionBody } from './connections.ts';
import { createTestPgDatabase, type TestPgDatabase } from './databases.ts';

const API = '/api/v1';

/** Runs `sql` on the database at `url`. */
async function onTarget<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** An app that records runs without working them, an organization, a project, a target holding `ddl`. */
export async function projectOnTarget(org: string, ddl: string) {
  const t: TestApp = await createTestApp();
  const { owner } = await t.createOrg(org);
  const projectId: string = (await owner.post(`${API}/projects`, { name: 'Settled' })).body.id;
  const target = (await createTestPgDatabase()) as TestPgDatabase;
  await onTarget(target.url, (client) => client.query(ddl));
  const connectionId: string = (await owner.post(`${API}/connections`, connectionBody(projectId, target.url)))
    .body.id;
  return { t, owner, projectId, target, connectionId };
}

/** The id of a target transaction that ended as `end` says. */
export function targetTransaction(url: string, end: 'COMMIT' | 'ROLLBACK'): Promise<string> {
  return onTarget(url, async (client) => {
    await client.query('BEGIN');
    const { rows } = await client.query('SELECT txid_current()::text AS id');
    await client.query(end);
    return rows[0].id as string;
  });
}

/**
 * Starts a run (`start`: the route), makes it the one a killed process left (failed as interrupted,
 * with `reported` as what it had recorded), lets its kind's hook settle it, and answers the run.
 */
export async function settledAfterKill(
  t: TestApp,
  owner: Client,
  kind: RunKind,
  start: string,
  reported: Record<string, unknown> | null,
) {
  const started = await owner.post(start);
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
  await t.composition.runKinds.get(kind)?.interrupted?.(run!);
  return (await owner.get(`${API}/runs/${id}`)).body;
}
