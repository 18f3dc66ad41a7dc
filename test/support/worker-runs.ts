// The app with its runs worked by the real job handlers, the ones a `worker` process builds, for
// suites whose runs reach target databases. The handlers need the app's store, so they are built
// once it exists; closing the app closes their pools too.
import { TARGET_DEFAULTS } from '../../src/config.ts';
import { createTargetRunHandlers } from '../../src/jobs/target-runs.ts';
import type { RunHandler, RunHandlers } from '../../src/modules/runs/runs.executor.ts';
import type { RunKind } from '../../src/store/tables.ts';
import { type Client, createTestApp, SECRET_KEY, type TestApp } from './app.ts';

export async function createTestAppWithWorker(kinds: RunKind[]): Promise<TestApp> {
  let handlers: RunHandlers = {};
  const delegate =
    (kind: RunKind): RunHandler =>
    (run, context) =>
      handlers[kind]!(run, context);
  const t = await createTestApp({
    targets: { connectTimeoutMs: 3_000 },
    runHandlers: Object.fromEntries(kinds.map((kind) => [kind, delegate(kind)])),
  });
  const built = createTargetRunHandlers({
    db: t.store.db,
    now: t.now,
    secretKey: SECRET_KEY,
    targets: { ...TARGET_DEFAULTS, connectTimeoutMs: 3_000 },
  });
  handlers = built.handlers;
  return {
    ...t,
    async close() {
      await built.close();
      await t.close();
    },
  };
}

/** An app whose runs of `kinds` are worked for real, with one organization and one project in it. */
export async function createWorkerProject(
  kinds: RunKind[],
  names: { org: string; project: string },
): Promise<{ t: TestApp; orgId: string; owner: Client; projectId: string }> {
  const t = await createTestAppWithWorker(kinds);
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
