// Every access rule applies to both connections of a copy. A just-in-time grant on the target opens
// nothing on the source: a viewer holding one copied another connection's rows into it before, and
// is now refused before any run exists. Rows read out of a protected connection wait for an approval
// by someone other than the requester, as a write into one does. One engine suffices: the checks are
// made in the store before either target is touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { newProjectMember } from '../../../test/support/members.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const FINISHED = ['succeeded', 'failed', 'cancelled'];
const { postgresql } = await targetEngines('bridge access (bridge-access.test.ts)');
const SCHEMA = 'create table customers (id int primary key, email text not null);';

describe.skipIf(!postgresql.up)('a copy is checked on its source as on its target', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let projectId: string;
  let productionUrl: string;
  let stagingUrl: string;
  let devUrl: string;
  const databases: { drop(): Promise<void> }[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ t, orgId, owner, projectId } = await createWorkerProject({ org: 'Copies', project: 'Shop' }));
    const database = async (rows: string) => {
      const created = await postgresql.create();
      databases.push(created);
      await postgresql.load(created.url, SCHEMA + rows);
      return created.url;
    };
    productionUrl = await database(
      "insert into customers values (1, 'ada@example.com'), (2, 'bob@example.com');",
    );
    stagingUrl = await database("insert into customers values (7, 'staging@example.com');");
    devUrl = await database('');
    for (const [name, url, environment] of [
      ['production', productionUrl, 'production'],
      ['staging', stagingUrl, 'staging'],
      ['dev', devUrl, 'development'],
    ] as const) {
      const made = await owner.post(
        `${API}/connections`,
        connectionBody(projectId, url, { name, environment }),
      );
      expect(made.status).toBe(201);
      ids[name] = made.body.id;
    }
  });
  afterAll(() => closeSuite(t, databases));

  const member = (role: 'developer' | 'viewer') => newProjectMember(t, orgId, owner, projectId, role);

  const copy = (client: Client, source: string, target: string) =>
    client.post(`${API}/projects/${projectId}/bridge/run`, {
      source_connection_id: ids[source],
      target_connection_id: ids[target],
    });
  const runsOfProject = async () =>
    (await owner.get(`${API}/runs?project_id=${projectId}&kind=bridge_run`)).body.items.length as number;
  const emails = (url: string) => postgresql.query(url, 'select email from customers order by id');

  it('refuses a viewer with a grant on the target only: 403, no run, nothing copied', async () => {
    const viewer = await member('viewer');
    const asked = await viewer.post(`${API}/projects/${projectId}/access-requests`, {
      role: 'developer',
      connection_id: ids.dev,
      duration_minutes: 30,
      reason: 'load test data',
    });
    expect(asked.status).toBe(201);
    expect(
      (await owner.patch(`${API}/approvals/${asked.body.approval_id}`, { decision: 'approve' })).status,
    ).toBe(200);
    const before = await runsOfProject();
    const refused = await copy(viewer, 'staging', 'dev');
    expect(refused.status).toBe(403);
    expect(await runsOfProject()).toBe(before);
    expect(await emails(devUrl)).toEqual([]);
  });

  it('holds a copy out of a protected connection for an approval by someone else', async () => {
    const developer = await member('developer');
    const started = await copy(developer, 'production', 'dev');
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'awaiting_approval',
      subject: {
        kind: 'bridge',
        title: 'copy of 1 table production → dev',
        connection: { id: ids.dev, environment: 'development', protected: false },
        source_connection: { id: ids.production, environment: 'production', protected: true },
      },
    });
    const approval = `${API}/approvals/${started.body.approval_id}`;
    expect((await developer.get(approval)).body.can_decide).toBe(false);
    expect((await developer.patch(approval, { decision: 'approve' })).status).toBe(403);
    expect(await emails(devUrl)).toEqual([]);

    expect((await owner.patch(approval, { decision: 'approve' })).status).toBe(200);
    expect((await waitForRun(developer, started.body.id, FINISHED)).status).toBe('succeeded');
    expect(await emails(devUrl)).toEqual([{ email: 'ada@example.com' }, { email: 'bob@example.com' }]);
  });

  it('lets a copy between unprotected connections run at once, as before', async () => {
    const developer = await member('developer');
    const started = await copy(developer, 'staging', 'dev');
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('queued');
    expect((await waitForRun(developer, started.body.id, FINISHED)).status).toBe('succeeded');
    expect(await emails(devUrl)).toEqual([{ email: 'staging@example.com' }]);
  });
});
