// The body limit (1 MiB) bounds an edit's SQL too: the plan of a compare of a 520-table schema
// (20 columns, keys, indexes, checks and comments each; built from nothing) must still fit in one
// PATCH, so that reviewing and editing the largest plans of real schemas stays possible.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSchema, postgresDdl } from '../../bench/schema-fixture.ts';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';
import { connectionBody } from '../support/connections.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../support/databases.ts';
import { queryPostgres } from '../support/target-query.ts';

const BODY_LIMIT = 1024 * 1024;
const TABLES = 520;

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('the largest plan can be edited (large-plan-edit.test.ts)', 'PostgreSQL', testPgUrl);

describe.runIf(pgUp)(`a compare of ${TABLES} tables makes a plan one edit can carry`, () => {
  let t: TestApp;
  let owner: Client;
  let source: TestPgDatabase;
  let target: TestPgDatabase;
  let projectId: string;

  beforeAll(async () => {
    source = (await createTestPgDatabase())!;
    target = (await createTestPgDatabase())!;
    const quote = (name: string) => `"${name}"`;
    for (const batch of postgresDdl(generateSchema(TABLES), quote)) await queryPostgres(source.url, batch);
    t = await createTestApp();
    ({ owner } = await t.createOrg());
    projectId = (await owner.post('/api/v1/projects', { name: 'Large plan' })).body.id;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await source?.drop();
    await target?.drop();
  });

  it('is edited whole, in one request under the body limit', async () => {
    const ids: string[] = [];
    for (const [name, url] of [
      ['source', source.url],
      ['target', target.url],
    ] as const) {
      const created = await owner.post('/api/v1/connections', connectionBody(projectId, url, { name }));
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    let started = performance.now();
    const compared = await owner.post(`/api/v1/projects/${projectId}/migrations/compare`, {
      source_connection_id: ids[0],
      target_connection_id: ids[1],
    });
    expect(compared.status).toBe(201);
    const compareMs = performance.now() - started;
    const sql: string = compared.body.generated_sql;
    expect(sql.match(/CREATE TABLE/g)?.length).toBe(TABLES);

    const edited = `${sql}\n-- reviewed by the data team`;
    const body = JSON.stringify({ generated_sql: edited });
    const bytes = Buffer.byteLength(body);
    console.log(
      `plan of ${TABLES} tables: ${compared.body.statements.length} statements, ` +
        `an edit body of ${(bytes / 1024).toFixed(0)} KiB (${((100 * bytes) / BODY_LIMIT).toFixed(0)}% of the limit)`,
    );
    expect(bytes).toBeLessThan(BODY_LIMIT);
    started = performance.now();
    const response = await owner.patch(`/api/v1/migrations/${compared.body.id}`, { generated_sql: edited });
    expect(response.status).toBe(200);
    console.log(`compare ${compareMs.toFixed(0)} ms, edit ${(performance.now() - started).toFixed(0)} ms`);
    expect(response.body.generated_sql).toBe(edited);
  }, 240_000);
});
