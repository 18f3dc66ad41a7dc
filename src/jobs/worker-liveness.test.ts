// Worker liveness: a worker is alive exactly while the session holding its advisory lock lives.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPgDatabase, type TestPgDatabase } from '../../test/support/databases.ts';
import { openTemplateStore } from '../../test/support/store-template.ts';
import { openStore, type Store } from '../store/db.ts';
import { createWorkerLiveness, newWorkerId } from './worker-liveness.ts';

describe('worker liveness', () => {
  let database: TestPgDatabase | undefined;
  let store: Store | undefined;
  const errors: Error[] = [];

  beforeAll(async () => {
    database = await createTestPgDatabase();
    if (database) store = await openStore({ kind: 'postgres', url: database.url });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('PostgreSQL: alive while its lock session lives, gone once it ends, never for an unknown id', async (context) => {
    if (!store) return context.skip();
    const [x, y] = [newWorkerId(), newWorkerId()];
    const first = await createWorkerLiveness(store, x, (e) => errors.push(e));
    const second = await createWorkerLiveness(store, y, (e) => errors.push(e));
    const unknown = newWorkerId();
    expect(await first.alive([x, y, unknown])).toEqual(new Set([x, y]));
    await second.close();
    expect(await first.alive([x, y, unknown])).toEqual(new Set([x]));
    // The session ended by the server (as when the process is killed): gone too.
    const third = await createWorkerLiveness(store, y, (e) => errors.push(e));
    expect(await first.alive([y])).toEqual(new Set([y]));
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'dbops worker lock' and datname = current_database()`.execute(store.db);
    // Both lock sessions died; the first one's own check takes its lock again, the other stays gone
    // until its owner checks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await first.alive([x, y])).toEqual(new Set([x]));
    await third.close();
    await first.close();
  });

  it('embedded store: the workers of this process are alive, those of an earlier process are gone', async () => {
    const embedded = await openTemplateStore('blank');
    try {
      const mine = newWorkerId();
      const liveness = await createWorkerLiveness(embedded, mine, (e) => errors.push(e));
      const sibling = newWorkerId();
      const earlier = mine.replace(`:${process.pid}:`, `:${process.pid + 1}:`);
      expect(await liveness.alive([mine, sibling, earlier])).toEqual(new Set([mine, sibling]));
    } finally {
      await embedded.close();
    }
  });
});
