// The app with its runs worked by the modules' real handlers, as a `worker` process works them, for
// suites whose runs reach target databases.
import { type Client, createTestApp, type TestApp, type TestAppOptions } from './app.ts';

export function createTestAppWithWorker(options: Pick<TestAppOptions, 'logLevel'> = {}): Promise<TestApp> {
  return createTestApp({ ...options, work: true, targets: { connectTimeoutMs: 3_000 } });
}

/** An app whose runs are worked for real, with one organization and one project in it. */
export async function createWorkerProject(names: {
  org: string;
  project: string;
}): Promise<{ t: TestApp; orgId: string; owner: Client; projectId: string }> {
  const t = await createTestAppWithWorker();
  const { orgId, owner } = await t.createOrg(names.org);
  const projectId = (await owner.post('/api/v1/projects', { name: names.project })).body.id as string;
  return { t, orgId, owner, projectId };
}

/** After a suite: the app closed first (its pools hold the databases), then its databases dropped. */
export async function closeSuite(
  t: TestApp | undefined,
  databases: { drop(): Promise<void> }[],
): Promise<void> {
  await t?.close();
  for (const database of databases) await database.drop();
}
