// The snapshot the patches module takes after a successful execution: a plain snapshot (never the
// baseline), by the system, and a failing target never turns into an error of the patch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { AppError } from '../../core/errors.ts';
import { createAuditService } from '../audit/audit.service.ts';
import { createSnapshotAfterPatch } from './snapshot-after-patch.ts';
import { createSnapshotsService } from './snapshots.service.ts';

describe('snapshot after a patch', () => {
  let t: TestApp;
  let owner: Client;
  let connectionId: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Acme'));
    const projectId = (await owner.post('/api/v1/projects', { name: 'P' })).body.id;
    const created = await owner.post(
      '/api/v1/connections',
      connectionBody(projectId, 'postgres://app@127.0.0.1:1/app', { name: 'patched' }),
    );
    connectionId = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  function snapshotter(introspect: () => Promise<ReturnType<typeof makeSchema>>) {
    const warnings: object[] = [];
    const snapshots = createSnapshotsService({
      db: t.store.db,
      audit: createAuditService({ db: t.store.db, now: t.now }),
      connections: {
        findById: (id) =>
          t.store.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst(),
        introspect,
      },
      now: t.now,
    });
    const take = createSnapshotAfterPatch({ snapshots, logger: { warn: (obj) => warnings.push(obj) } });
    return { take, warnings };
  }

  it('stores a snapshot that is not the baseline, as the system', async () => {
    const { take, warnings } = snapshotter(async () => makeSchema([makeTable('orders')]));
    const snapshot = await take(connectionId, 'run-1');
    expect(snapshot).toMatchObject({ connection_id: connectionId, is_baseline: false });
    expect(warnings).toEqual([]);
    const entry = await t.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target_id', '=', snapshot!.id)
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({
      action: 'snapshot.create',
      actor_type: 'system',
      actor_label: 'patch_execute',
    });
  });

  it('answers null and logs when the target fails, storing nothing', async () => {
    const failure = new AppError('target_unavailable', 'Connection "patched" failed: unreachable');
    const { take, warnings } = snapshotter(async () => {
      throw failure;
    });
    const before = await t.store.db.selectFrom('snapshots').select('id').execute();
    expect(await take(connectionId, 'run-2')).toBeNull();
    expect(warnings).toEqual([{ err: failure, connection_id: connectionId, run_id: 'run-2' }]);
    expect(await t.store.db.selectFrom('snapshots').select('id').execute()).toEqual(before);
  });
});
