// The password of a connection masked in what the real servers say, without mangling the message:
// a one-letter password (the PostgreSQL test server trusts 127.0.0.1, so any password connects)
// must not turn "does not exist" into "does not e***ist", in a dry run's 422, a connection test or
// a 502; on MariaDB, a refused password keeps "Access denied … (using password: YES)" readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';

const API = '/api/v1';
const engines = await targetEngines('password masking (password-masking.test.ts)');

describe('password masking in target errors', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Masking'));
    projectId = (await owner.post(`${API}/projects`, { name: 'Masking' })).body.id;
  });
  afterAll(async () => {
    await t.close();
    for (const database of databases) await database.drop();
  });

  async function connection(url: string, overrides: Record<string, unknown>): Promise<string> {
    const created = await owner.post(`${API}/connections`, connectionBody(projectId, url, overrides));
    expect(created.status).toBe(201);
    return created.body.id;
  }

  describe('on PostgreSQL', { skip: !engines.postgresql.up }, () => {
    const pg = engines.postgresql;

    it('a dry run failing on a missing type says so whole, with the password x', async () => {
      const database = await pg.create();
      databases.push(database);
      await pg.load(database.url, 'create table films (id int primary key, year int);');
      const connectionId = await connection(database.url, { password: 'x' });
      const patch = await owner.post(`${API}/patches`, {
        project_id: projectId,
        connection_id: connectionId,
        title: 'Retype',
        sql: 'UPDATE films SET year = 1::public.year WHERE id = 1',
      });
      expect(patch.status).toBe(201);
      const dryRun = await owner.post(`${API}/patches/${patch.body.id}/dry-run`, {});
      expect(dryRun.status).toBe(422);
      const message = dryRun.body.detail[0].msg as string;
      expect(message).toContain('type "public.year" does not exist');
      expect(message).not.toContain('***');
    });

    it('a missing database is named whole in a test and a 502, with the password e', async () => {
      const database = await pg.create();
      databases.push(database);
      const connectionId = await connection(database.url, {
        password: 'e',
        database: 'dbops_never_created',
      });
      const tested = await owner.post(`${API}/connections/${connectionId}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body.error.cause).toBe('unknown_database');
      expect(tested.body.error.message).toContain('database "dbops_never_created" does not exist');
      const schema = await owner.get(`${API}/connections/${connectionId}/schema`);
      expect(schema.status).toBe(502);
      expect(schema.body.detail).toContain('database "dbops_never_created" does not exist');
      expect(schema.body.detail).not.toContain('***');
    });
  });

  describe('on MariaDB / MySQL', { skip: !engines.mysql.up }, () => {
    it('a refused one-letter password leaves the refusal readable', async () => {
      const database = await engines.mysql.create();
      databases.push(database);
      // The test server's user has no password: `e` is refused.
      const connectionId = await connection(database.url, { password: 'e' });
      const tested = await owner.post(`${API}/connections/${connectionId}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body.error.cause).toBe('authentication_failed');
      expect(tested.body.error.message).toMatch(
        /Access denied for user '[^']+'@'[^']+' \(using password: YES\)/,
      );
      expect(tested.body.error.message).not.toContain('***');
    });
  });
});
