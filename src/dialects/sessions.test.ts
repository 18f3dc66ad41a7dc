// TargetHandle.endSession on both real servers: a session left running a long statement (what a
// killed process leaves) is ended and gone when it answers; a session that already ended, or a name
// from another life of the server, is answered "gone" without touching anything.
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { targetEngines } from '../../test/support/engines.ts';
import { targetConfig } from '../../test/support/targets.ts';
import { dialects } from './index.ts';
import { mysqlSessionOf } from './mysql/mysql.sessions.ts';
import { postgresSessionOf } from './postgres/postgres.sessions.ts';

const engines = await targetEngines('ending server sessions (sessions.test.ts)');

/** A client of the engine at `url`: its session name, a long statement, and its end. */
async function clientOf(url: string) {
  if (url.startsWith('mysql')) {
    const connection = await mysql.createConnection({ uri: url });
    return {
      session: await mysqlSessionOf(connection),
      sleep: () =>
        connection.query('select sleep(30)').then(
          () => 'finished',
          () => 'ended',
        ),
      close: () => connection.end().catch(() => {}),
    };
  }
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return {
    session: await postgresSessionOf(client),
    sleep: () =>
      client.query('select pg_sleep(30)').then(
        () => 'finished',
        () => 'ended',
      ),
    close: () => client.end().catch(() => {}),
  };
}

describe('ending a server session left by a dead process', () => {
  const databases: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  for (const engine of [engines.postgresql, engines.mysql]) {
    it.skipIf(!engine.up)(`on ${engine.name}`, async () => {
      const database = await engine.create();
      databases.push(database);
      const handle = await dialects[engine.dialect].open(targetConfig(database.url));
      try {
        const left = await clientOf(database.url);
        const sleeping = left.sleep();
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = Date.now();
        expect(await handle.endSession(left.session, 10_000)).toBe(true);
        expect(await sleeping).toBe('ended');
        expect(Date.now() - started).toBeLessThan(5_000);
        await left.close();

        // Gone already, or a name from another life of the server: nothing to end.
        expect(await handle.endSession(left.session, 1_000)).toBe(true);
        const other = await clientOf(database.url);
        const [id, start] = other.session.split('@');
        const otherLife = `${id}@${Number(start) - 3600}`;
        const stillSleeping = other.sleep();
        expect(await handle.endSession(otherLife, 1_000)).toBe(true);
        const outcome = await Promise.race([
          stillSleeping,
          new Promise((resolve) => setTimeout(() => resolve('still running'), 500)),
        ]);
        expect(outcome).toBe('still running');
        expect(await handle.endSession(other.session, 10_000)).toBe(true);
        await other.close();
      } finally {
        await handle.close();
      }
    });
  }
});
