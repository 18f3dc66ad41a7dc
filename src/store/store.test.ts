import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../test/support/databases.ts';
import { seedDataDir } from '../../test/support/store-template.ts';
import { DataDirBusyError, lockDataDir } from './data-dir-lock.ts';
import { type Db, openStore, type Store } from './db.ts';
import { isMigrated, migrateToLatest } from './migrate.ts';
import { paginate } from './paging.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probeValues(db: Db): Promise<number[]> {
  const { rows } = await sql<{ v: number }>`select v from probe order by v`.execute(db);
  return rows.map((row) => row.v);
}

/** Three organizations created a second apart, and the paging helper over them. */
async function checkPaging(db: Db): Promise<void> {
  const query = () =>
    db.selectFrom('organizations').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc');
  expect(await paginate(query(), { page: 1, page_size: 10 })).toEqual({ rows: [], total: 0 });
  expect(await paginate(query(), { page: 3, page_size: 10 })).toEqual({ rows: [], total: 0 });
  for (const [i, name] of ['first', 'second', 'third'].entries()) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
    await db
      .insertInto('organizations')
      .values({ id: crypto.randomUUID(), name, created_at: at, updated_at: at })
      .execute();
  }
  const first = await paginate(query(), { page: 1, page_size: 2 });
  expect(first.total).toBe(3);
  expect(first.rows.map((row) => row.name)).toEqual(['third', 'second']);
  expect(Object.keys(first.rows[0]!)).not.toContain('page_total');
  const last = await paginate(query(), { page: 2, page_size: 2 });
  expect(last).toMatchObject({ total: 3 });
  expect(last.rows.map((row) => row.name)).toEqual(['first']);
  // An empty page past the end still knows the total.
  expect(await paginate(query(), { page: 5, page_size: 2 })).toEqual({ rows: [], total: 3 });
  expect(await paginate(query().where('name', '=', 'second'), { page: 2, page_size: 1 })).toEqual({
    rows: [],
    total: 1,
  });
}

describe('store on PGlite (in memory)', () => {
  let store: Store;

  beforeAll(async () => {
    // From nothing (initdb here, every migration below): the production path of a first start, which
    // the other tests skip by starting from the store template (test/support/store-template.ts).
    store = await openStore({ kind: 'pglite-memory' });
    await sql`create table probe (v integer not null)`.execute(store.db);
  });
  afterEach(async () => {
    await sql`delete from probe`.execute(store.db);
  });
  afterAll(() => store.close());

  it('keeps a query issued from outside out of an open transaction that is rolled back', async () => {
    let outside: Promise<unknown> | undefined;
    let outsideDone = false;
    await expect(
      store.db.transaction().execute(async (trx) => {
        await sql`insert into probe values (1)`.execute(trx);
        // Another part of the process (pg-boss, another request) writes while the transaction is open.
        outside = store.pglite!.query('insert into probe values (2)').then(() => {
          outsideDone = true;
        });
        await sleep(50);
        // It waits for the transaction instead of running inside it.
        expect(outsideDone).toBe(false);
        expect(await probeValues(trx)).toEqual([1]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await outside;
    expect(outsideDone).toBe(true);
    expect(await probeValues(store.db)).toEqual([2]);
  });

  it('makes an outside query wait for a commit too, and keeps both writes', async () => {
    let outside: Promise<unknown> | undefined;
    await store.db.transaction().execute(async (trx) => {
      await sql`insert into probe values (3)`.execute(trx);
      outside = store.pglite!.query('insert into probe values (4)');
      await sleep(20);
    });
    await outside;
    expect(await probeValues(store.db)).toEqual([3, 4]);
  });

  it('leaves nothing behind after a failed transaction, and the store stays usable', async () => {
    await expect(
      store.db.transaction().execute(async (trx) => {
        await sql`insert into probe values (5)`.execute(trx);
        await sql`insert into probe values (6)`.execute(trx);
        await sql`insert into probe values (null)`.execute(trx);
      }),
    ).rejects.toThrow(/null value/);
    expect(await probeValues(store.db)).toEqual([]);
    await store.db.transaction().execute((trx) => sql`insert into probe values (7)`.execute(trx));
    expect(await probeValues(store.db)).toEqual([7]);
  });

  it('runs Kysely transactions one after another when they are started together', async () => {
    await Promise.all(
      [10, 20, 30].map((base) =>
        store.db.transaction().execute(async (trx) => {
          await sql`insert into probe values (${base})`.execute(trx);
          await sleep(10);
          // Another transaction shows here only as a whole (both of its rows), never half done.
          const others = (await probeValues(trx)).filter((v) => v !== base);
          expect(
            others.every((v) => others.includes(v % 10 === 0 ? v + 1 : v - 1)),
            String(others),
          ).toBe(true);
          await sql`insert into probe values (${base + 1})`.execute(trx);
        }),
      ),
    );
    expect(await probeValues(store.db)).toEqual([10, 11, 20, 21, 30, 31]);
  });

  it('migrates, and pages with a total on an empty page past the end', async () => {
    expect(await isMigrated(store.db)).toBe(false);
    expect((await migrateToLatest(store.db))[0]).toBe('0001_foundation');
    expect(await isMigrated(store.db)).toBe(true);
    await checkPaging(store.db);
  });
});

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('store tests on PostgreSQL (src/store/store.test.ts)', 'PostgreSQL', testPgUrl);

describe.skipIf(!pgUp)('store on PostgreSQL', () => {
  let database: TestPgDatabase;
  let store: Store;

  beforeAll(async () => {
    database = (await createTestPgDatabase())!;
    store = await openStore({ kind: 'postgres', url: database.url });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('applies the migrations once, after which isMigrated is true', async () => {
    await store.ping();
    expect(store.pglite).toBeUndefined();
    expect(store.url).toBe(database.url);
    expect(await isMigrated(store.db)).toBe(false);
    expect((await migrateToLatest(store.db))[0]).toBe('0001_foundation');
    expect(await isMigrated(store.db)).toBe(true);
    expect(await migrateToLatest(store.db)).toEqual([]);
    const { rows } = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(
      store.db,
    );
    expect(rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['audit_log', 'organizations', 'projects', 'sessions', 'users', 'api_keys']),
    );
  });

  it('pages with a total on an empty page past the end', async () => {
    await checkPaging(store.db);
  });

  it('rolls a failed transaction back completely', async () => {
    const id = crypto.randomUUID();
    await expect(
      store.db.transaction().execute(async (trx) => {
        const at = new Date();
        await trx
          .insertInto('organizations')
          .values({ id, name: 'Doomed', created_at: at, updated_at: at })
          .execute();
        throw new Error('fail after the insert');
      }),
    ).rejects.toThrow('fail after the insert');
    expect(await store.db.selectFrom('organizations').select('id').where('id', '=', id).execute()).toEqual(
      [],
    );
  });
});

describe('data-dir lock', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second lock on the same directory, naming the pid, until the first is released', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    expect(fs.readFileSync(path.join(dir, 'dbops.lock'), 'utf8')).toBe(String(process.pid));
    expect(() => lockDataDir(dir)).toThrow(DataDirBusyError);
    expect(() => lockDataDir(dir)).toThrow(`(pid ${process.pid})`);
    lock.release();
    expect(fs.existsSync(path.join(dir, 'dbops.lock'))).toBe(false);
    lockDataDir(dir).release();
  });

  it('refuses a lock held by another live process', () => {
    const dir = tempDir();
    // The parent of this test process is alive for as long as the test runs.
    fs.writeFileSync(path.join(dir, 'dbops.lock'), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(`in use by another dbops process (pid ${process.ppid})`);
    expect(fs.readFileSync(path.join(dir, 'dbops.lock'), 'utf8')).toBe(String(process.ppid));
  });

  it('takes over a stale lock whose process is gone', () => {
    const dir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    expect(gone).toBeGreaterThan(0);
    fs.writeFileSync(path.join(dir, 'dbops.lock'), String(gone));
    const lock = lockDataDir(dir);
    expect(fs.readFileSync(path.join(dir, 'dbops.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();

    fs.writeFileSync(path.join(dir, 'dbops.lock'), 'garbage');
    const again = lockDataDir(dir);
    expect(fs.readFileSync(path.join(dir, 'dbops.lock'), 'utf8')).toBe(String(process.pid));
    again.release();
  });

  it('locks the embedded store: a second openStore on the same DATA_DIR is refused', async () => {
    const dir = tempDir();
    // The lock is the point, not initdb (the in-memory store above starts from nothing).
    await seedDataDir(dir);
    const first = await openStore({ kind: 'pglite', dataDir: dir });
    try {
      await expect(openStore({ kind: 'pglite', dataDir: dir })).rejects.toThrow(DataDirBusyError);
    } finally {
      await first.close();
    }
    const second = await openStore({ kind: 'pglite', dataDir: dir });
    await second.ping();
    await second.close();
  });
});
