// Upgrading the schema model alerts nobody (docs/contract.md §6): a baseline taken by an older model, which did
// not see views, functions or triggers, is re-taken and audited on the next check, never reported as
// drift; drift after that is reported as before. Real PostgreSQL target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/app.ts';
import { loadPostgresSql } from '../../../test/support/corpus.ts';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../../../test/support/databases.ts';
import { orgOnPlan } from '../../../test/support/drift.ts';
import { SCHEMA_MODEL_VERSION } from '../../engine/schema/version.ts';

const API = '/api/v1';
const pgUp = await pgAvailable();

describe('drift across a schema model upgrade', { skip: !pgUp }, () => {
  let t: TestApp;
  let pg: TestPgDatabase;

  beforeAll(async () => {
    t = await createTestApp({ targets: { connectTimeoutMs: 3_000 } });
    pg = (await createTestPgDatabase())!;
    await loadPostgresSql(
      pg.url,
      'create table orders (id bigint primary key, total numeric(10,2)); ' +
        'create view big_orders as select id from orders where total > 100;',
    );
  });
  afterAll(async () => {
    await t?.close();
    await pg?.drop();
  });

  it('re-takes a baseline of an older model without a report, and reports drift after it', async () => {
    const acme = await orgOnPlan(t, 'Upgraded');
    const id = await acme.connect(pg.url, { name: 'orders-db' });
    const first = await acme.owner.post(`${API}/connections/${id}/drift/check`);
    expect(first.status).toBe(200);
    expect(first.body.drift).toBe(false);

    // The baseline as the previous model stored it: no version, no sections for other objects.
    const baseline = await t.store.db
      .selectFrom('snapshots')
      .select(['id', 'schema_json'])
      .where('connection_id', '=', id)
      .where('is_baseline', '=', true)
      .executeTakeFirstOrThrow();
    const { model_version, schemas, views, routines, triggers, extensions, types, ...older } =
      baseline.schema_json as Record<string, unknown>;
    expect(model_version).toBe(SCHEMA_MODEL_VERSION);
    expect(views).toEqual([expect.objectContaining({ name: 'big_orders' })]);
    await t.store.db
      .updateTable('snapshots')
      .set({ schema_json: JSON.stringify(older), schema_hash: 'from-the-older-model' })
      .where('id', '=', baseline.id)
      .execute();

    const upgraded = await acme.owner.post(`${API}/connections/${id}/drift/check`);
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({ drift: false, report: null });
    const retakes = (await acme.owner.get(`${API}/audit?action=drift.baseline_retake`)).body.items;
    expect(retakes).toHaveLength(1);
    expect(retakes[0].details).toMatchObject({
      from_model_version: 1,
      to_model_version: SCHEMA_MODEL_VERSION,
      previous_baseline_id: baseline.id,
    });
    const reports = await t.store.db
      .selectFrom('drift_reports')
      .select('id')
      .where('connection_id', '=', id)
      .execute();
    expect(reports).toEqual([]);

    await loadPostgresSql(pg.url, 'create view small_orders as select id from orders where total <= 100;');
    const drifted = await acme.owner.post(`${API}/connections/${id}/drift/check`);
    expect(drifted.body.drift).toBe(true);
    expect(drifted.body.report.diff.objects_added).toEqual([
      expect.objectContaining({ kind: 'view', name: 'public.small_orders' }),
    ]);
  });
});
